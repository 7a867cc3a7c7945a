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
		{"a stream too large to buffer fails", func() io.Reader { return iotest.OneByteReader(strings.NewReader("")) }, maxBuffered + 1, "", true},
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
			got, err := io.ReadAll(rs)
			if err != nil || string(got) != tt.want {
				t.Errorf("read %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
