package simregion_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/minio/crc64nvme"

	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/retry"
	"github.com/s3bulk/s3bulk/internal/simregion"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store"
)

func start(t *testing.T, cfg simregion.Config) (*simregion.Server, *s3store.Client) {
	t.Helper()
	srv, err := simregion.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	c, err := s3store.NewClient(t.Context(), s3store.Config{
		EndpointURL: srv.URL(), Region: "us-east-1", AccessKey: "k", SecretKey: "s", MaxAttempts: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

func list(t *testing.T, st store.Lister, prefix, delim string) []string {
	t.Helper()
	var got []string
	err := st.List(t.Context(), prefix, delim, func(o store.Object) error {
		got = append(got, o.Key)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestListingsPageThroughTheKeySet(t *testing.T) {
	keys := simregion.ReportKeys(2500) // 7 companies, 625 users: more than a page
	_, c := start(t, simregion.Config{Bucket: "src", Keys: keys, Size: 10})
	sorted := slices.Clone(keys)
	sort.Strings(sorted)
	src := c.Bucket("src")
	if diff := cmp.Diff(sorted, list(t, src, "", "")); diff != "" {
		t.Errorf("flat listing (-want +got):\n%s", diff)
	}
	wantTop := []string{"company-0001/", "company-0002/", "company-0003/", "company-0004/", "company-0005/", "company-0006/", "company-0007/"}
	if diff := cmp.Diff(wantTop, list(t, src, "", "/")); diff != "" {
		t.Errorf("delimited listing (-want +got):\n%s", diff)
	}
	var under []string
	for _, k := range sorted {
		if strings.HasPrefix(k, "company-0002/") {
			if i := strings.Index(k[len("company-0002/"):], "/"); i >= 0 {
				k = k[:len("company-0002/")+i+1]
			}
			if len(under) == 0 || under[len(under)-1] != k {
				under = append(under, k)
			}
		}
	}
	if got := list(t, src, "company-0002/", "/"); !slices.Equal(got, under) || len(got) != 100 {
		t.Errorf("delimited listing of a company: %d prefixes, want the 100 users", len(got))
	}
	if got := list(t, c.Bucket("dst"), "", ""); len(got) != 0 {
		t.Errorf("another bucket lists %d keys, want none", len(got))
	}
}

func TestObjectsAnswerWithCorrectETags(t *testing.T) {
	const size = 100 << 10
	_, c := start(t, simregion.Config{Bucket: "src", Keys: simregion.ReportKeys(8), Size: size})
	ctx := t.Context()
	src, dst := c.Bucket("src"), c.Bucket("dst")
	key := "company-0001/user-0001/file-01.json"
	obj, _, err := src.Head(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	body, err := src.Get(ctx, key, 0, -1, obj.ETag)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(body)
	body.Close()
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum(b)
	if len(b) != size || obj.Size != size || hex.EncodeToString(sum[:]) != obj.ETag {
		t.Errorf("get: %d bytes with MD5 %x, head: size %d ETag %s; want %d bytes whose MD5 is the ETag", len(b), sum, obj.Size, obj.ETag, size)
	}
	part, err := src.Get(ctx, key, 10, 20, "")
	if err != nil {
		t.Fatal(err)
	}
	pb, _ := io.ReadAll(part)
	part.Close()
	if !bytes.Equal(pb, b[10:30]) {
		t.Errorf("ranged get = %q, want %q", pb, b[10:30])
	}
	if _, err := src.Get(ctx, key, 0, -1, "0123"); !errors.Is(err, store.ErrPreconditionFailed) {
		t.Errorf("get if-match a wrong ETag: %v, want ErrPreconditionFailed", err)
	}
	if _, _, err := src.Head(ctx, "company-0001/nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("head of a missing key: %v, want ErrNotFound", err)
	}
	if err := dst.Put(ctx, "up.json", bytes.NewReader(b), size, store.Metadata{}); err != nil {
		t.Errorf("put: %v", err)
	}
	if err := dst.Copy(ctx, store.CopySource{Bucket: "src", Key: key, IfMatch: obj.ETag, Size: size}, "copy.json", nil); err != nil {
		t.Errorf("copy: %v", err)
	}
	if err := dst.Copy(ctx, store.CopySource{Bucket: "src", Key: key, IfMatch: "0123"}, "copy.json", nil); !errors.Is(err, store.ErrPreconditionFailed) {
		t.Errorf("copy if-match a wrong ETag: %v, want ErrPreconditionFailed", err)
	}
	if err := dst.Copy(ctx, store.CopySource{Bucket: "src", Key: "missing"}, "copy.json", nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("copy of a missing source: %v, want ErrNotFound", err)
	}
}

func TestDelayAndThrottle(t *testing.T) {
	const delay = 50 * time.Millisecond
	srv, c := start(t, simregion.Config{
		Bucket: "src", Keys: simregion.ReportKeys(4), Size: 10, Delay: delay,
		Throttle: &faultproxy.Throttle{WriteRate: 10},
	})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	begin := time.Now()
	if _, _, err := c.Bucket("src").Head(ctx, "company-0001/user-0001/file-01.json"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(begin); d < delay {
		t.Errorf("head answered in %v, before the delay of %v", d, delay)
	}
	// A burst of 20 writes against 10/s (a token bucket of one): most are
	// throttled, and every one of those is a SlowDown.
	throttled := 0
	for range 20 {
		err := c.Bucket("dst").Put(ctx, "k", strings.NewReader("x"), 1, store.Metadata{})
		switch {
		case err == nil:
		case retry.Classify(err) == retry.Throttled:
			throttled++
		default:
			t.Fatalf("put: %v, want success or SlowDown", err)
		}
	}
	if throttled == 0 || srv.Stats().Throttled != int64(throttled) {
		t.Errorf("%d puts throttled, fixture counted %d; want some, and the same", throttled, srv.Stats().Throttled)
	}
}

// InFlight counts the requests still waiting out the delay.
func TestInFlightCountsRequestsWaitingForTheirAnswer(t *testing.T) {
	srv, c := start(t, simregion.Config{Bucket: "src", Keys: simregion.ReportKeys(10), Size: 10, Delay: 300 * time.Millisecond})
	done := make(chan error, 3)
	for range 3 {
		go func() {
			_, _, err := c.Bucket("src").Head(t.Context(), simregion.ReportKeys(1)[0])
			done <- err
		}()
	}
	deadline := time.Now().Add(250 * time.Millisecond)
	for srv.InFlight() < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := srv.InFlight(); n != 3 {
		t.Errorf("InFlight() = %d with three requests waiting, want 3", n)
	}
	for range 3 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.InFlight(); n != 0 {
		t.Errorf("InFlight() = %d once every answer arrived, want 0", n)
	}
}

// TestPutsAreCheckedAsS3ChecksThem sends bare PutObjects, many at once
// (the bodies' MD5s are computed side by side), each of its own bytes:
// every answer's ETag is the MD5 of that body, and a body that does not
// match its CRC32 or Content-MD5, or is shorter than its Content-Length,
// is refused.
func TestPutsAreCheckedAsS3ChecksThem(t *testing.T) {
	srv, _ := start(t, simregion.Config{Bucket: "src"})
	body := func(i int) []byte { return bytes.Repeat([]byte{byte(i), byte(i >> 8), 'x'}, 30000+i) }
	crc := crc32Of
	put := func(b []byte, header map[string]string) (*http.Response, error) { return putBody(srv.URL(), b, header) }
	t.Run("the ETag is each body's MD5", func(t *testing.T) {
		var wg sync.WaitGroup
		for i := range 64 {
			wg.Go(func() {
				b := body(i)
				resp, err := put(b, map[string]string{"x-amz-checksum-crc32": crc(b)})
				if err != nil {
					t.Error(err)
					return
				}
				sum := md5.Sum(b)
				if want := `"` + hex.EncodeToString(sum[:]) + `"`; resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != want {
					t.Errorf("put %d: %s, ETag %s; want 200 OK, ETag %s", i, resp.Status, resp.Header.Get("ETag"), want)
				}
			})
		}
		wg.Wait()
	})
	b := body(1)
	sum := md5.Sum(b)
	for _, tt := range []struct {
		name   string
		header map[string]string
	}{
		{"a wrong CRC32", map[string]string{"x-amz-checksum-crc32": crc(b[1:])}},
		{"a wrong CRC64NVME", map[string]string{"x-amz-checksum-crc64nvme": crc64Of(b[1:])}},
		{"a wrong Content-MD5", map[string]string{"Content-MD5": base64.StdEncoding.EncodeToString(sum[1:])}},
	} {
		t.Run(tt.name+" is refused", func(t *testing.T) {
			resp, err := put(b, tt.header)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("%s, want 400 BadDigest", resp.Status)
			}
		})
	}
	t.Run("a body longer than a read is checked against its CRC64NVME", func(t *testing.T) {
		long := bytes.Repeat([]byte("0123456789abcdef"), 20000) // 320,000 bytes: streamed through the hashes
		for _, tc := range []struct {
			crc    string
			status int
		}{{crc64Of(long), http.StatusOK}, {crc64Of(long[1:]), http.StatusBadRequest}} {
			resp, err := put(long, map[string]string{"x-amz-checksum-crc64nvme": tc.crc})
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.status {
				t.Errorf("CRC64NVME %s: %s, want %d", tc.crc, resp.Status, tc.status)
			}
		}
	})
	t.Run("a body shorter than its length is refused", func(t *testing.T) {
		// By hand: an HTTP client refuses to send a short body at all.
		resp, err := putRaw(srv.URL(), fmt.Sprintf("PUT /dst/k HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(b)+1, b))
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("a put one byte short: %s, want 400 IncompleteBody", resp.Status)
		}
	})
}

// TestETagIsTheMD5OfEveryBody is differential: bodies of random sizes
// (and the sizes at the edges of the fixture's ways of hashing: below the
// SIMD server's, at its read buffer's), many at once, bare and
// aws-chunked, each answered with crypto/md5's sum of its bytes as its
// ETag and with its CRC32 and Content-MD5 checked.
func TestETagIsTheMD5OfEveryBody(t *testing.T) {
	srv, _ := start(t, simregion.Config{Bucket: "src"})
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := []int{0, 1, 63, 64, 65, 8<<10 - 1, 8 << 10, 32 << 10, 100 << 10, 128<<10 - 1, 128 << 10, 128<<10 + 1, 300 << 10}
	for range 120 {
		sizes = append(sizes, rng.IntN(300<<10))
	}
	type upload struct {
		body    []byte
		chunked bool
	}
	uploads := make(chan upload)
	go func() {
		defer close(uploads)
		for i, n := range sizes {
			b := make([]byte, n)
			for j := range b {
				b[j] = byte(rng.Uint32())
			}
			uploads <- upload{b, i%3 == 2}
		}
	}()
	var wg sync.WaitGroup
	for range 24 {
		wg.Go(func() {
			for u := range uploads {
				sum := md5.Sum(u.body)
				want := `"` + hex.EncodeToString(sum[:]) + `"`
				header := map[string]string{"Content-MD5": base64.StdEncoding.EncodeToString(sum[:]), "x-amz-checksum-crc32": crc32Of(u.body)}
				var resp *http.Response
				var err error
				if u.chunked {
					resp, err = putChunked(srv.URL(), u.body, 1+len(u.body)/3, crc32Of(u.body), len(u.body))
				} else {
					resp, err = putBody(srv.URL(), u.body, header)
				}
				if err != nil {
					t.Error(err)
					continue
				}
				if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != want {
					t.Errorf("put of %d bytes (aws-chunked %v): %s, ETag %s; want 200 OK, ETag %s", len(u.body), u.chunked, resp.Status, resp.Header.Get("ETag"), want)
				}
			}
		})
	}
	wg.Wait()
}

// TestBadBodiesAreRefused: every way a body can disagree with what its
// request says, on each of the fixture's ways of hashing (a body read
// whole below and above the SIMD server's smallest, one streamed past the
// read buffer), is a 400.
func TestBadBodiesAreRefused(t *testing.T) {
	srv, _ := start(t, simregion.Config{Bucket: "src"})
	for _, size := range []int{100, 90 << 10, 200 << 10} {
		b := bytes.Repeat([]byte("0123456789abcdef"), size/16)
		sum := md5.Sum(b)
		crc := crc32Of(b)
		for _, tt := range []struct {
			name string
			send func() (*http.Response, error)
		}{
			{"a wrong CRC32", func() (*http.Response, error) {
				return putBody(srv.URL(), b, map[string]string{"x-amz-checksum-crc32": crc32Of(b[1:])})
			}},
			{"a wrong Content-MD5", func() (*http.Response, error) {
				return putBody(srv.URL(), b, map[string]string{"Content-MD5": base64.StdEncoding.EncodeToString(sum[1:])})
			}},
			{"a body one byte short of its Content-Length", func() (*http.Response, error) {
				return putRaw(srv.URL(), fmt.Sprintf("PUT /dst/k HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(b)+1, b))
			}},
			{"an aws-chunked body with a wrong trailing CRC32", func() (*http.Response, error) {
				return putChunked(srv.URL(), b, 8<<10, crc32Of(b[1:]), len(b))
			}},
			{"an aws-chunked body shorter than its decoded length", func() (*http.Response, error) {
				return putChunked(srv.URL(), b, 8<<10, crc, len(b)+1)
			}},
			{"an aws-chunked body cut inside a chunk", func() (*http.Response, error) {
				return putRaw(srv.URL(), chunkedRequest(chunkedBody(b, 8<<10, crc)[:len(b)/2], len(b)))
			}},
			{"an aws-chunked body without the CRLF after a chunk", func() (*http.Response, error) {
				body := fmt.Sprintf("%x\r\n%s%x\r\n%s\r\n0\r\n\r\n", len(b)/2, b[:len(b)/2], len(b)-len(b)/2, b[len(b)/2:])
				return putRaw(srv.URL(), chunkedRequest(body, len(b)))
			}},
			{"an aws-chunked body whose chunk size is not hex", func() (*http.Response, error) {
				return putRaw(srv.URL(), chunkedRequest(fmt.Sprintf("%dz\r\n%s\r\n0\r\n\r\n", len(b), b), len(b)))
			}},
		} {
			t.Run(fmt.Sprintf("%s of %d bytes", tt.name, len(b)), func(t *testing.T) {
				resp, err := tt.send()
				if err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != http.StatusBadRequest {
					t.Errorf("%s, want 400", resp.Status)
				}
			})
		}
		t.Run(fmt.Sprintf("the same %d bytes sent right are taken", len(b)), func(t *testing.T) {
			for _, send := range []func() (*http.Response, error){
				func() (*http.Response, error) {
					return putBody(srv.URL(), b, map[string]string{"x-amz-checksum-crc32": crc, "Content-MD5": base64.StdEncoding.EncodeToString(sum[:])})
				},
				func() (*http.Response, error) { return putChunked(srv.URL(), b, 8<<10, crc, len(b)) },
			} {
				resp, err := send()
				if err != nil {
					t.Fatal(err)
				}
				if want := `"` + hex.EncodeToString(sum[:]) + `"`; resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != want {
					t.Errorf("%s, ETag %s; want 200 OK, ETag %s", resp.Status, resp.Header.Get("ETag"), want)
				}
			}
		})
	}
}

// crc64Of is b's CRC64NVME as the x-amz-checksum-crc64nvme header has it.
func crc64Of(b []byte) string {
	return base64.StdEncoding.EncodeToString(binary.BigEndian.AppendUint64(nil, crc64nvme.Checksum(b)))
}

func crc32Of(b []byte) string {
	return base64.StdEncoding.EncodeToString(binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(b)))
}

// putBody sends a bare PutObject of b with header and returns its answer,
// its body read.
func putBody(endpoint string, b []byte, header map[string]string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPut, endpoint+"/dst/k", bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, nil
}

// chunkedBody encodes b as aws-chunked in chunks of size bytes, with crc
// as its trailing x-amz-checksum-crc32, as the SDK sends it.
func chunkedBody(b []byte, size int, crc string) string {
	var s strings.Builder
	for len(b) > 0 {
		n := min(size, len(b))
		fmt.Fprintf(&s, "%x\r\n%s\r\n", n, b[:n])
		b = b[n:]
	}
	fmt.Fprintf(&s, "0\r\nx-amz-checksum-crc32:%s\r\n\r\n", crc)
	return s.String()
}

// chunkedRequest is a whole PutObject of an aws-chunked body (by hand: an
// HTTP client refuses to send a body shorter than its length).
func chunkedRequest(body string, decoded int) string {
	return fmt.Sprintf("PUT /dst/k HTTP/1.1\r\nHost: x\r\nContent-Encoding: aws-chunked\r\n"+
		"X-Amz-Content-Sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER\r\nX-Amz-Trailer: x-amz-checksum-crc32\r\n"+
		"X-Amz-Decoded-Content-Length: %d\r\nContent-Length: %d\r\n\r\n%s", decoded, len(body), body)
}

// putChunked sends b aws-chunked, saying it is decoded bytes long.
func putChunked(endpoint string, b []byte, size int, crc string, decoded int) (*http.Response, error) {
	return putRaw(endpoint, chunkedRequest(chunkedBody(b, size, crc), decoded))
}

// putRaw writes request on a connection of its own, ends its side and
// reads the answer.
func putRaw(endpoint, request string) (*http.Response, error) {
	conn, err := net.Dial("tcp", strings.TrimPrefix(endpoint, "http://"))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, request); err != nil {
		return nil, err
	}
	_ = conn.(*net.TCPConn).CloseWrite()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, nil
}

func TestClosingTwiceIsHarmless(t *testing.T) {
	srv, err := simregion.Start(simregion.Config{Bucket: "src"})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := srv.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}
}
