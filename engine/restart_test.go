package engine_test

// Restarts of whole objects (Options.Restarts) against the embedded server,
// with the faults put between client and server by internal/faultproxy: an
// upload id aborted mid-run, bytes damaged on the way down, a local file or
// an S3 source rewritten while it is read.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/engine/journal"
	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/localstore"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// proxied starts a fault proxy in front of srv and returns a client of
// the proxy wired to eng.
func proxied(t *testing.T, srv *s3test.Server, eng *engine.Engine, cfg faultproxy.Config) (*faultproxy.Proxy, *s3store.Client) {
	t.Helper()
	p, err := faultproxy.New(srv.Endpoint, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	c, err := s3store.NewClient(t.Context(), s3store.Config{
		EndpointURL: p.URL(), Region: srv.Region, AccessKey: srv.AccessKey, SecretKey: srv.SecretKey,
		Concurrency: eng.MaxConcurrency(), OnThrottle: eng.Throttled,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p, c
}

// localFile is the local file at path, as the source of a job.
func localFile(t *testing.T, path string) engine.Endpoint {
	t.Helper()
	loc, err := s3url.Parse(path)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := engine.LocalSource(loc, engine.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// runOne runs job and returns its summary and its one result.
func runOne(t *testing.T, eng *engine.Engine, job engine.Job, opts engine.Options) (engine.Summary, engine.Result) {
	t.Helper()
	var col collector
	opts.Observer = col.observe
	sum, err := eng.Run(t.Context(), job, opts)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(col.results) != 1 {
		t.Fatalf("%d results, want 1: %+v", len(col.results), col.results)
	}
	return sum, col.results[0]
}

// isPart selects the UploadPart (copy: UploadPartCopy) requests of part n.
func isPart(r *http.Request, n string, copy bool) bool {
	q := r.URL.Query()
	return r.Method == http.MethodPut && q.Has("uploadId") && q.Get("partNumber") == n &&
		(r.Header.Get("X-Amz-Copy-Source") != "") == copy
}

// isComplete selects the CompleteMultipartUpload requests.
func isComplete(r *http.Request) bool {
	return r.Method == http.MethodPost && r.URL.Query().Has("uploadId")
}

// isObjectGet selects the GETs of key's bytes.
// (A GetObjectTagging, which a multipart stream sends too, is not one.)
func isObjectGet(key string) func(*http.Request) bool {
	return func(r *http.Request) bool {
		return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/"+key) && !r.URL.Query().Has("uploadId") && !r.URL.Query().Has("tagging")
	}
}

// onlyFirst makes match select only the first request it selects.
func onlyFirst(match func(*http.Request) bool) func(*http.Request) bool {
	var seen atomic.Bool
	return func(r *http.Request) bool { return match(r) && !seen.Swap(true) }
}

func TestAnObjectWhoseUploadVanishedIsRestartedAndLandsWhole(t *testing.T) {
	srv := s3test.Start(t)
	body := stamped(11*mib + 3)
	tests := []struct {
		name string
		copy bool
		// at selects the request before which the upload is aborted.
		at func(r *http.Request) bool
	}{
		// Part 2 is sent only once part 1 is in (one request in flight):
		// the embedded server, aborting an upload while it writes a part
		// into it, keeps half of the upload. (An UploadPart that finds no
		// upload is answered before its body is read, and the proxy in
		// between turns that into a reset connection: a part copy, which
		// has no body, is what gets its NoSuchUpload through.)
		{"a server-side copy in parts, aborted as its part 2 arrives", true, func(r *http.Request) bool { return isPart(r, "2", true) }},
		{"an upload in parts, aborted as it completes", false, isComplete},
		{"a server-side copy in parts, aborted as it completes", true, isComplete},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.Require(t, s3test.AbortUpload)
			if tt.copy {
				srv.Require(t, s3test.PartCopy)
			}
			bucket := srv.NewBucket(t)
			admin := srv.Client(t)
			var aborted atomic.Int32
			var once sync.Once
			eng := engine.New(engine.Config{Concurrency: 1, PartStreams: 1})
			// Another client (a lifecycle rule, `mpu abort`) aborts the
			// upload as the request tt.at selects arrives, which then
			// finds none.
			_, c := proxied(t, srv, eng, faultproxy.Config{Hook: func(w http.ResponseWriter, r *http.Request, next http.Handler) {
				if tt.at(r) {
					once.Do(func() {
						_, err := admin.AbortMultipartUpload(context.Background(), &s3.AbortMultipartUploadInput{
							Bucket: aws.String(bucket), Key: aws.String("dst/big.bin"), UploadId: aws.String(r.URL.Query().Get("uploadId"))})
						if err != nil {
							t.Errorf("abort the upload behind the run's back: %v", err)
						}
						aborted.Add(1)
					})
				}
				next.ServeHTTP(w, r)
			}})
			var src engine.Endpoint
			if tt.copy {
				s3test.PutObject(t, admin, bucket, "src/big.bin", body)
				src = bucketAt(t, c, "s3://"+bucket+"/src/big.bin")
			} else {
				dir := t.TempDir()
				testfs.Write(t, dir, map[string]string{"big.bin": string(body)})
				src = localFile(t, filepath.Join(dir, "big.bin"))
			}
			jpath := filepath.Join(t.TempDir(), "journal")
			j, err := journal.Open(jpath, "restart-test")
			if err != nil {
				t.Fatal(err)
			}
			opts := parted
			opts.Journal = j
			sum, r := runOne(t, eng, engine.Job{Src: src, Dst: bucketAt(t, c, "s3://"+bucket+"/dst/big.bin")}, opts)
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			if aborted.Load() != 1 {
				t.Fatal("the upload was never aborted: the test tested nothing")
			}
			if r.Status != engine.StatusDone || r.Attempts != 2 || sum.Objects != 1 || sum.Failed != 0 || sum.Restarted != 1 {
				t.Errorf("result %s after %d attempts (%v), summary %+v; want done after 2, one restarted", r.Status, r.Attempts, r.Err, sum)
			}
			if got := s3test.GetObject(t, admin, bucket, "dst/big.bin"); !bytes.Equal(got, body) {
				t.Errorf("dst/big.bin: %d bytes, not the %d of the source", len(got), len(body))
			}
			if up := s3test.ListUploads(t, admin, bucket); len(up) != 0 {
				t.Errorf("multipart uploads left: %v", up)
			}
			// The journal says what a --resume needs: the object done, no
			// upload left open to resume.
			st, err := journal.Load(jpath)
			if err != nil {
				t.Fatal(err)
			}
			if open := st.Uploads(); len(open) != 0 {
				t.Errorf("the journal holds open uploads: %+v", open)
			}
			if !st.Done(store.Object{Key: r.Task.SrcKey, Size: r.Task.Size, ETag: r.Task.ETag, ModTime: r.Task.ModTime}, r.Task.DstKey) {
				t.Error("the journal does not record the object as done")
			}
		})
	}
}

func TestADownloadDamagedOnTheWayIsRestartedAndVerified(t *testing.T) {
	srv := s3test.Start(t)
	small, big := stamped(1*mib+7), stamped(11*mib+3)
	bucket := srv.NewBucket(t)
	s3test.PutObject(t, srv.Client(t), bucket, "small.bin", small)
	s3test.PutObject(t, srv.Client(t), bucket, "big.bin", big)
	tests := []struct {
		name string
		key  string
		body []byte
		// always damages every read, not only the first.
		always bool
	}{
		{"one read damaged once arrives whole", "small.bin", small, false},
		{"a ranged read damaged once arrives whole", "big.bin", big, false},
		{"one read damaged every time fails and leaves no file", "small.bin", small, true},
		{"ranged reads damaged every time fail and leave no file", "big.bin", big, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			match := isObjectGet(tt.key)
			if !tt.always {
				match = onlyFirst(match)
			}
			eng := engine.New(engine.Config{Concurrency: 8})
			p, c := proxied(t, srv, eng, faultproxy.Config{CorruptRate: 1, Match: match})
			dir := t.TempDir()
			opts := parted
			opts.Progress = &engine.Progress{}
			sum, r := runOne(t, eng, engine.Job{Src: bucketAt(t, c, "s3://"+bucket+"/"+tt.key), Dst: localAt(t, dir, false)}, opts)
			if got := opts.Progress.Snapshot().Restarted; got != 1 {
				t.Errorf("the progress counts %d objects restarted, want 1", got)
			}
			damaged := p.Stats().Faults[faultproxy.Corrupt]
			if damaged == 0 {
				t.Fatal("the proxy damaged nothing: the test tested nothing")
			}
			if !tt.always {
				if r.Status != engine.StatusDone || r.Attempts != 2 || sum.Restarted != 1 {
					t.Fatalf("result %s after %d attempts (%v), summary %+v; want done after 2", r.Status, r.Attempts, r.Err, sum)
				}
				if got, err := os.ReadFile(filepath.Join(dir, tt.key)); err != nil || !bytes.Equal(got, tt.body) {
					t.Errorf("%s: %d bytes (%v), not the object's %d", tt.key, len(got), err, len(tt.body))
				}
				if files := testfs.Read(t, dir); len(files) != 1 {
					t.Errorf("files in the destination: %d, want the one object (no temp file of the first attempt)", len(files))
				}
				return
			}
			if r.Status != engine.StatusFailed || r.Attempts != 3 || sum.Failed != 1 || sum.Restarted != 1 {
				t.Errorf("result %s after %d attempts, summary %+v; want failed after 3", r.Status, r.Attempts, sum)
			}
			if msg := r.Err.Error(); !strings.Contains(msg, "checksum mismatch") || !strings.Contains(msg, "restarted 2 times, then gave up") {
				t.Errorf("error %q; want the mismatch, and that the object was restarted 2 times", msg)
			}
			if !errors.Is(r.Err, store.ErrChecksumMismatch) {
				t.Errorf("error %v does not wrap store.ErrChecksumMismatch", r.Err)
			}
			if files := testfs.Read(t, dir); len(files) != 0 {
				t.Errorf("files left in the destination: %v", files)
			}
		})
	}
}

func TestAStreamDamagedOnTheWayIsRestartedAndVerified(t *testing.T) {
	srv := s3test.Start(t)
	small, big := stamped(1*mib+7), stamped(11*mib+3)
	src, dst := srv.NewBucket(t), srv.NewBucket(t)
	s3test.PutObject(t, srv.Client(t), src, "small.bin", small)
	s3test.PutObject(t, srv.Client(t), src, "big.bin", big)
	for _, tt := range []struct {
		name string
		key  string
		body []byte
	}{
		{"one read and one write, the read damaged once", "small.bin", small},
		{"ranged reads into a multipart upload, one damaged once", "big.bin", big},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.key == "big.bin" {
				// Parts streamed on are not kept to be read back: only a
				// CRC of the source's, combined from theirs, checks them
				// (without one the stream is counted unverified, as
				// internal/cli's aStreamItsSourceCannotCheckIsReported
				// holds).
				srv.Require(t, s3test.DefaultChecksums)
			}
			eng := engine.New(engine.Config{Concurrency: 8})
			// The source through the proxy, the destination straight:
			// two endpoints, so the bytes pass through the client.
			p, sc := proxied(t, srv, eng, faultproxy.Config{CorruptRate: 1, Match: onlyFirst(isObjectGet(tt.key))})
			dc := s3Client(t, srv, eng)
			sum, r := runOne(t, eng, engine.Job{Src: bucketAt(t, sc, "s3://"+src+"/"+tt.key), Dst: bucketAt(t, dc, "s3://"+dst+"/"+tt.key)}, parted)
			if p.Stats().Faults[faultproxy.Corrupt] != 1 {
				t.Fatal("the proxy damaged nothing: the test tested nothing")
			}
			if r.Task.Op != engine.OpStream || r.Status != engine.StatusDone || r.Attempts != 2 || sum.Restarted != 1 {
				t.Fatalf("%s result %s after %d attempts (%v); want a stream done after 2", r.Task.Op, r.Status, r.Attempts, r.Err)
			}
			if got := s3test.GetObject(t, srv.Client(t), dst, tt.key); !bytes.Equal(got, tt.body) {
				t.Errorf("%s: %d bytes, not the source's %d", tt.key, len(got), len(tt.body))
			}
			if up := s3test.ListUploads(t, srv.Client(t), dst); len(up) != 0 {
				t.Errorf("multipart uploads left: %v", up)
			}
		})
	}
}

func TestAnObjectChangedSinceItsListingIsRestartedAsItIsNow(t *testing.T) {
	srv := s3test.Start(t)
	srv.Require(t, s3test.ConditionalGet, s3test.ConditionalCopy)
	old, changed := []byte("the version listed"), []byte("the version written since, longer")
	tests := []struct {
		name string
		op   engine.Op
		// reads selects the request that reads the source.
		reads func(*http.Request) bool
		job   func(t *testing.T, src, dst string, c *s3store.Client) (engine.Job, func() []byte)
	}{
		{"a server-side copy (CopyObject with If-Match)", engine.OpCopy,
			func(r *http.Request) bool {
				return r.Method == http.MethodPut && r.Header.Get("X-Amz-Copy-Source") != ""
			},
			func(t *testing.T, src, dst string, c *s3store.Client) (engine.Job, func() []byte) {
				return engine.Job{Src: bucketAt(t, c, "s3://"+src+"/k"), Dst: bucketAt(t, c, "s3://"+dst+"/k")},
					func() []byte { return s3test.GetObject(t, srv.Client(t), dst, "k") }
			}},
		{"a download (GetObject with If-Match)", engine.OpDownload, isObjectGet("k"),
			func(t *testing.T, src, _ string, c *s3store.Client) (engine.Job, func() []byte) {
				dir := t.TempDir()
				return engine.Job{Src: bucketAt(t, c, "s3://"+src+"/k"), Dst: localAt(t, dir, false)},
					func() []byte { b, _ := os.ReadFile(filepath.Join(dir, "k")); return b }
			}},
		{"a stream between endpoints (GetObject with If-Match)", engine.OpStream, isObjectGet("k"),
			func(t *testing.T, src, dst string, c *s3store.Client) (engine.Job, func() []byte) {
				return engine.Job{Src: bucketAt(t, c, "s3://"+src+"/k"), Dst: bucketAt(t, s3Client(t, srv, engine.New(engine.Config{})), "s3://"+dst+"/k")},
					func() []byte { return s3test.GetObject(t, srv.Client(t), dst, "k") }
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, dst := srv.NewBucket(t), srv.NewBucket(t)
			admin := srv.Client(t)
			s3test.PutObject(t, admin, src, "k", old)
			eng := engine.New(engine.Config{Concurrency: 4})
			// Another writer replaces the source after the listing, as the
			// first read of it arrives: the read asks for the ETag listed.
			var once sync.Once
			_, c := proxied(t, srv, eng, faultproxy.Config{Hook: func(w http.ResponseWriter, r *http.Request, next http.Handler) {
				if tt.reads(r) {
					once.Do(func() { s3test.PutObject(t, admin, src, "k", changed) })
				}
				next.ServeHTTP(w, r)
			}})
			job, read := tt.job(t, src, dst, c)
			sum, r := runOne(t, eng, job, engine.Options{})
			if r.Task.Op != tt.op || r.Status != engine.StatusDone || r.Attempts != 2 || sum.Restarted != 1 {
				t.Fatalf("%s result %s after %d attempts (%v); want a %s done after 2", r.Task.Op, r.Status, r.Attempts, r.Err, tt.op)
			}
			if got := read(); !bytes.Equal(got, changed) {
				t.Errorf("the destination holds %q, want the source as it is now", got)
			}
			if r.Task.Size != int64(len(changed)) || sum.Bytes != int64(len(changed)) {
				t.Errorf("the result's size %d and the summary's bytes %d; want the new version's %d", r.Task.Size, sum.Bytes, len(changed))
			}
		})
	}
}

func TestAnAttemptThatLeftAnUploadIsNotRestarted(t *testing.T) {
	srv := s3test.Start(t)
	// The damaged part is found by the source's CRC, and the upload left
	// by listing it.
	srv.Require(t, s3test.DefaultChecksums, s3test.MultipartUploadListing)
	src, dst := srv.NewBucket(t), srv.NewBucket(t)
	s3test.PutObject(t, srv.Client(t), src, "big.bin", stamped(11*mib+3))
	eng := engine.New(engine.Config{Concurrency: 8})
	// A part read damaged once fails the stream; the destination then
	// refuses to abort its upload.
	_, sc := proxied(t, srv, eng, faultproxy.Config{CorruptRate: 1, Match: onlyFirst(isObjectGet("big.bin"))})
	_, dc := proxied(t, srv, eng, faultproxy.Config{Hook: func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		if r.Method == http.MethodDelete && r.URL.Query().Has("uploadId") {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
			return
		}
		next.ServeHTTP(w, r)
	}})
	sum, r := runOne(t, eng, engine.Job{Src: bucketAt(t, sc, "s3://"+src+"/big.bin"), Dst: bucketAt(t, dc, "s3://"+dst+"/big.bin")}, parted)
	if r.Status != engine.StatusFailed || r.Attempts != 1 || sum.Restarted != 0 {
		t.Fatalf("result %s after %d attempts; want failed after 1: a restart would bury the upload left behind", r.Status, r.Attempts)
	}
	up := s3test.ListUploads(t, srv.Client(t), dst)
	if msg := r.Err.Error(); len(up) != 1 || !strings.Contains(msg, "checksum mismatch") || !strings.Contains(msg, "(and abort upload ") {
		t.Errorf("error %q with uploads %v left; want the mismatch and the upload that could not be aborted", msg, up)
	}
	if !errors.Is(r.Err, store.ErrChecksumMismatch) {
		t.Errorf("error %v does not wrap the cause", r.Err)
	}
}

func TestRestartsAreBounded(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	s3test.PutObject(t, srv.Client(t), bucket, "k.bin", stamped(1*mib))
	for _, tt := range []struct {
		name     string
		restarts int
		want     int // attempts
	}{
		{"no restarts: the first failure is the object's", -1, 1},
		{"one restart", 1, 2},
		{"the default: two restarts", 0, 1 + engine.DefaultRestarts},
		{"five restarts", 5, 6},
	} {
		t.Run(tt.name, func(t *testing.T) {
			eng := engine.New(engine.Config{Concurrency: 4})
			p, c := proxied(t, srv, eng, faultproxy.Config{CorruptRate: 1, Match: isObjectGet("k.bin")})
			_, r := runOne(t, eng, engine.Job{Src: bucketAt(t, c, "s3://"+bucket+"/k.bin"), Dst: localAt(t, t.TempDir(), false)},
				engine.Options{Restarts: tt.restarts})
			if r.Status != engine.StatusFailed || r.Attempts != tt.want {
				t.Errorf("result %s after %d attempts; want failed after %d", r.Status, r.Attempts, tt.want)
			}
			if got := p.Stats().Faults[faultproxy.Corrupt]; got != int64(tt.want) {
				t.Errorf("%d reads of the object, want one per attempt: %d", got, tt.want)
			}
		})
	}
}

func TestAFailureAFreshAttemptCannotFixIsNotRestarted(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	s3test.PutObject(t, srv.Client(t), bucket, "src/big.bin", stamped(11*mib))
	eng := engine.New(engine.Config{Concurrency: 8})
	var creates atomic.Int32
	// Part 2 is denied, as a policy on the key would deny it.
	_, c := proxied(t, srv, eng, faultproxy.Config{Hook: func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		if r.Method == http.MethodPost && r.URL.Query().Has("uploads") {
			creates.Add(1)
		}
		if r.Method == http.MethodGet && r.Header.Get("Range") != "" && !strings.HasPrefix(r.Header.Get("Range"), "bytes=0-") {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
			return
		}
		next.ServeHTTP(w, r)
	}})
	dir := t.TempDir()
	sum, r := runOne(t, eng, engine.Job{Src: bucketAt(t, c, "s3://"+bucket+"/src/big.bin"), Dst: localAt(t, dir, false)}, parted)
	if r.Status != engine.StatusFailed || r.Attempts != 1 || sum.Restarted != 0 {
		t.Errorf("result %s after %d attempts, summary %+v; want failed after 1, none restarted", r.Status, r.Attempts, sum)
	}
	if !errors.Is(r.Err, store.ErrAccessDenied) || strings.Contains(r.Err.Error(), "then gave up") {
		t.Errorf("error %v; want access denied, and no word of a restart", r.Err)
	}
	if files := testfs.Read(t, dir); len(files) != 0 {
		t.Errorf("files left in the destination: %v", files)
	}
}

// rewriting is a local source whose file key is rewritten in place, same
// size, new content, while it is read: in the middle of each of the first
// times reads of it (forever when times < 0), as when another program
// saves the file during a run. The files, their reader and its checks are
// localstore's own.
type rewriting struct {
	*localstore.Store
	key   string
	times int
	mu    sync.Mutex
	done  int
}

// rewrites reports whether a read should rewrite the file now, and counts
// it.
func (s *rewriting) rewrites() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.times >= 0 && s.done >= s.times {
		return false
	}
	s.done++
	return true
}

func (s *rewriting) Get(ctx context.Context, key string, off, length int64, ifMatch string) (io.ReadCloser, error) {
	rc, err := s.Store.Get(ctx, key, off, length, ifMatch)
	if err != nil || key != s.key || !s.rewrites() {
		return rc, err
	}
	return &rewritingBody{fileBody: rc.(fileBody), path: filepath.Join(s.Root(), filepath.FromSlash(key))}, nil
}

// fileBody is what a local store's Get returns.
type fileBody interface {
	io.ReadSeekCloser
	io.ReaderAt
	store.ChangeChecker
}

// rewritingBody rewrites its file after the first bytes it hands over,
// by Read or by ReadAt, whichever the upload uses.
type rewritingBody struct {
	fileBody
	path string
	done bool
}

func (b *rewritingBody) Read(p []byte) (int, error) {
	n, err := b.fileBody.Read(p)
	if err == nil && n > 0 {
		err = b.rewrite()
	}
	return n, err
}

func (b *rewritingBody) ReadAt(p []byte, off int64) (int, error) {
	if b.done || len(p) < 2 {
		return b.fileBody.ReadAt(p, off)
	}
	n, err := b.fileBody.ReadAt(p[:len(p)/2], off)
	if err == nil {
		err = b.rewrite()
	}
	if err != nil {
		return n, err
	}
	m, err := b.fileBody.ReadAt(p[n:], off+int64(n))
	return n + m, err
}

func (b *rewritingBody) rewrite() error {
	if b.done {
		return nil
	}
	b.done = true
	fi, err := os.Stat(b.path)
	if err != nil {
		return err
	}
	old, err := os.ReadFile(b.path)
	if err != nil {
		return err
	}
	if err := os.WriteFile(b.path, bytes.ToUpper(old), 0o644); err != nil {
		return err
	}
	// As the write itself does, unless it falls in the same tick of the
	// file system's clock.
	return os.Chtimes(b.path, fi.ModTime(), fi.ModTime().Add(time.Second))
}

func TestALocalFileRewrittenWhileUploadedIsRestarted(t *testing.T) {
	srv := s3test.Start(t)
	body := strings.Repeat("a", 6*mib+1) // below the threshold of parted: one PutObject
	tests := []struct {
		name  string
		times int
		opts  engine.Options
	}{
		{"rewritten once, in one request: uploaded as it is now", 1, engine.Options{}},
		{"rewritten once, in parts: uploaded as it is now", 1, parted},
		{"rewritten on every read: fails after the bound, uploads nothing", -1, engine.Options{}},
		{"rewritten on every read, in parts: fails after the bound, leaves no upload", -1, parted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bucket := srv.NewBucket(t)
			dir := t.TempDir()
			testfs.Write(t, dir, map[string]string{"f.txt": body})
			src := localFile(t, filepath.Join(dir, "f.txt"))
			src.Store = &rewriting{Store: src.Store.(*localstore.Store), key: "f.txt", times: tt.times}
			eng := engine.New(engine.Config{Concurrency: 8})
			c := s3Client(t, srv, eng)
			sum, r := runOne(t, eng, engine.Job{Src: src, Dst: bucketAt(t, c, "s3://"+bucket+"/f.txt")}, tt.opts)
			admin := srv.Client(t)
			if up := s3test.ListUploads(t, admin, bucket); len(up) != 0 {
				t.Errorf("multipart uploads left: %v", up)
			}
			if tt.times > 0 {
				if r.Status != engine.StatusDone || r.Attempts != 2 || sum.Restarted != 1 {
					t.Fatalf("result %s after %d attempts (%v); want done after 2", r.Status, r.Attempts, r.Err)
				}
				if got := s3test.GetObject(t, admin, bucket, "f.txt"); string(got) != strings.ToUpper(body) {
					t.Errorf("f.txt holds %.20q..., want the file as it was rewritten", got)
				}
				return
			}
			if r.Status != engine.StatusFailed || r.Attempts != 3 {
				t.Errorf("result %s after %d attempts; want failed after 3", r.Status, r.Attempts)
			}
			if msg := r.Err.Error(); !strings.Contains(msg, "the file changed while it was read") || !strings.Contains(msg, "restarted 2 times") {
				t.Errorf("error %q; want that the file changed while it was read, after 2 restarts", msg)
			}
			if keys := s3test.ListKeys(t, admin, bucket, ""); len(keys) != 0 {
				t.Errorf("objects in the bucket: %v", keys)
			}
		})
	}
}

func TestARunStopsRestartingWhenRestartsSaveNothing(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	const n = 12
	for i := range n {
		s3test.PutObject(t, srv.Client(t), bucket, fmt.Sprintf("p/%02d", i), stamped(64<<10))
	}
	var log bytes.Buffer
	eng := engine.New(engine.Config{Concurrency: 4, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	// Every body is damaged on the way, as a broken proxy would: no
	// restart can help.
	p, c := proxied(t, srv, eng, faultproxy.Config{CorruptRate: 1, Match: func(r *http.Request) bool {
		return r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/p/")
	}})
	dir := t.TempDir()
	// One object at a time, so that which ones were restarted is certain.
	sum, err := eng.Run(t.Context(), engine.Job{Src: bucketAt(t, c, "s3://"+bucket+"/p/"), Dst: localAt(t, dir, false), Recursive: true},
		engine.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != n || sum.Restarted != 10 {
		t.Errorf("summary %+v; want %d failed, the first 10 of them restarted", sum, n)
	}
	if got, want := p.Stats().Faults[faultproxy.Corrupt], int64(10*3+(n-10)); got != want {
		t.Errorf("%d reads, want %d: 3 for each of the first 10 objects, 1 for each after", got, want)
	}
	if got := strings.Count(log.String(), "no more objects are restarted"); got != 1 {
		t.Errorf("the log says %d times that restarts stopped, want once:\n%s", got, log.String())
	}
	if files := testfs.Read(t, dir); len(files) != 0 {
		t.Errorf("files left in the destination: %v", files)
	}
}
