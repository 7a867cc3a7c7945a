package s3store

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestSeekable(t *testing.T) {
	errBody := errors.New("body failed")
	tests := []struct {
		name    string
		body    func() io.Reader
		size    int64
		want    string
		wantErr bool
	}{
		{"a seekable body of the right size is used as is", func() io.Reader { return strings.NewReader("hello") }, 5, "hello", false},
		{"a seekable body counts from its current position", func() io.Reader {
			r := strings.NewReader("xxhello")
			r.Seek(2, io.SeekStart)
			return r
		}, 5, "hello", false},
		{"a short seekable body fails before any request", func() io.Reader { return strings.NewReader("hi") }, 5, "", true},
		{"a long seekable body fails before any request", func() io.Reader { return strings.NewReader("hello!") }, 5, "", true},
		{"a stream is buffered", func() io.Reader { return iotest.OneByteReader(strings.NewReader("hello")) }, 5, "hello", false},
		{"a short stream fails", func() io.Reader { return iotest.OneByteReader(strings.NewReader("hi")) }, 5, "", true},
		{"a long stream fails", func() io.Reader { return iotest.OneByteReader(strings.NewReader("hello!")) }, 5, "", true},
		{"a failing stream fails", func() io.Reader { return iotest.ErrReader(errBody) }, 5, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := seekable(tt.body(), tt.size)
			if (err != nil) != tt.wantErr {
				t.Fatalf("seekable: %v; want error %t", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if rs == nil {
				t.Fatal("seekable returned no reader for a small body")
			}
			got, err := io.ReadAll(rs)
			if err != nil || string(got) != tt.want {
				t.Errorf("read %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestSeekableLeavesLargeStreamsAlone(t *testing.T) {
	rs, err := seekable(iotest.OneByteReader(strings.NewReader("x")), maxBuffered+1)
	if rs != nil || err != nil {
		t.Errorf("seekable of a large stream = %v, %v; want nil, nil (stream it)", rs, err)
	}
}

func TestExactReader(t *testing.T) {
	errSrc := errors.New("source broke")
	tests := []struct {
		name     string
		src      io.Reader
		size     int64
		wantBody string // what reaches the transport
		wantErr  bool
	}{
		{"a stream of the declared size passes", strings.NewReader("hello"), 5, "hello", false},
		{"a short stream fails at its end", strings.NewReader("hell"), 5, "hell", true},
		{"a long stream fails before its last bytes go out", strings.NewReader("hello!"), 5, "", true},
		{"a long stream read a byte at a time keeps its last byte back", iotest.OneByteReader(strings.NewReader("hello!")), 5, "hell", true},
		{"a source error is passed on", io.MultiReader(strings.NewReader("he"), iotest.ErrReader(errSrc)), 5, "he", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := io.ReadAll(&exactReader{r: tt.src, left: tt.size})
			if (err != nil) != tt.wantErr || string(got) != tt.wantBody {
				t.Errorf("read %q, %v; want %q and error %t", got, err, tt.wantBody, tt.wantErr)
			}
		})
	}
}
