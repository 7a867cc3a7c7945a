package engine_test

// The engine's S3 paths against the embedded server (internal/s3test):
// server-side copies whole and in parts, uploads and downloads in parts,
// syncs with deletes, moves and removes in batches.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/sync/errgroup"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store"
)

const mib = 1 << 20

// parted makes objects from 5 MiB move in parts of 5 MiB.
var parted = engine.Options{PartSize: 5 * mib, MultipartThreshold: 5 * mib}

// s3Client is a client of srv wired to eng, as a program would make it.
func s3Client(t *testing.T, srv *s3test.Server, eng *engine.Engine) *s3store.Client {
	t.Helper()
	c, err := s3store.NewClient(t.Context(), s3store.Config{
		EndpointURL: srv.Endpoint, Region: srv.Region, AccessKey: srv.AccessKey, SecretKey: srv.SecretKey,
		Concurrency: eng.MaxConcurrency(), OnThrottle: eng.Throttled,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func bucketAt(t *testing.T, c *s3store.Client, u string) engine.Endpoint {
	t.Helper()
	loc, err := s3url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return engine.Endpoint{Store: c.Bucket(loc.Bucket), Loc: loc}
}

func localAt(t *testing.T, dir string, src bool) engine.Endpoint {
	t.Helper()
	loc, err := s3url.Parse(dir + "/")
	if err != nil {
		t.Fatal(err)
	}
	open := engine.LocalDestination
	if src {
		open = engine.LocalSource
	}
	ep, err := open(loc, engine.LocalOptions{Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// stamped is n bytes in which every 8-byte word holds its own offset, so a
// part in the wrong place shows.
func stamped(n int) []byte {
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		copy(b[i:], fmt.Sprintf("%08x", i/8))
	}
	return b
}

// bucketHolds checks the keys and bodies under prefix in bucket.
func bucketHolds(t *testing.T, srv *s3test.Server, bucket, prefix string, want map[string][]byte) {
	t.Helper()
	client := srv.Client(t)
	var wantKeys []string
	for k := range want {
		wantKeys = append(wantKeys, prefix+k)
	}
	got := s3test.ListKeys(t, client, bucket, prefix)
	if diff := cmp.Diff(sorted(wantKeys), got); diff != "" {
		t.Fatalf("keys under s3://%s/%s (-want +got):\n%s", bucket, prefix, diff)
	}
	for k, body := range want {
		if b := s3test.GetObject(t, client, bucket, prefix+k); !bytes.Equal(b, body) {
			t.Errorf("s3://%s/%s%s: %d bytes, not the %d written", bucket, prefix, k, len(b), len(body))
		}
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}

func TestTheEngineMovesObjectsOnAnS3Server(t *testing.T) {
	srv := s3test.Start(t)
	objects := map[string][]byte{"a.txt": []byte("alpha"), "dir/b.bin": stamped(11*mib + 3), "dir/sub/c": {}}

	t.Run("a prefix copied bucket to bucket, a big object in parts, server-side", func(t *testing.T) {
		srv.Require(t, s3test.PartCopy) // the 3-part copy is UploadPartCopy
		src, dst := srv.NewBucket(t), srv.NewBucket(t)
		for k, b := range objects {
			s3test.PutObject(t, srv.Client(t), src, "p/"+k, b)
		}
		eng := engine.New(engine.Config{Concurrency: 16})
		c := s3Client(t, srv, eng)
		var col collector
		opts := parted
		opts.Observer = col.observe
		sum, err := eng.Run(t.Context(), engine.Job{Src: bucketAt(t, c, "s3://"+src+"/p/"), Dst: bucketAt(t, c, "s3://"+dst+"/q/"), Recursive: true}, opts)
		if err != nil || sum.Objects != 3 || sum.Failed != 0 {
			t.Fatalf("run: %+v, %v", sum, err)
		}
		for _, r := range col.results {
			if r.Task.Op != engine.OpCopy {
				t.Errorf("%s: %s, want a server-side copy", r.Task.DstKey, r.Task.Op)
			}
			if r.Task.DstKey == "q/dir/b.bin" && r.Parts != 3 {
				t.Errorf("the 11 MiB object was copied in %d parts, want 3", r.Parts)
			}
		}
		bucketHolds(t, srv, dst, "q/", objects)
	})

	t.Run("a directory uploaded, a big file in parts", func(t *testing.T) {
		dst := srv.NewBucket(t)
		dir := t.TempDir()
		files := map[string]string{}
		for k, b := range objects {
			files[k] = string(b)
		}
		testfs.Write(t, dir, files)
		eng := engine.New(engine.Config{})
		c := s3Client(t, srv, eng)
		sum, err := eng.Run(t.Context(), engine.Job{Src: localAt(t, dir, true), Dst: bucketAt(t, c, "s3://"+dst+"/up/"), Recursive: true}, parted)
		if err != nil || sum.Objects != 3 || sum.Failed != 0 {
			t.Fatalf("run: %+v, %v", sum, err)
		}
		bucketHolds(t, srv, dst, "up/", objects)
		if up := s3test.ListUploads(t, srv.Client(t), dst); len(up) != 0 {
			t.Errorf("multipart uploads left: %v", up)
		}
	})

	t.Run("a prefix downloaded, a big object in ranged parts", func(t *testing.T) {
		src := srv.NewBucket(t)
		for k, b := range objects {
			s3test.PutObject(t, srv.Client(t), src, "p/"+k, b)
		}
		dir := filepath.Join(t.TempDir(), "not-yet")
		eng := engine.New(engine.Config{})
		c := s3Client(t, srv, eng)
		sum, err := eng.Run(t.Context(), engine.Job{Src: bucketAt(t, c, "s3://"+src+"/p/"), Dst: localAt(t, dir, false), Recursive: true}, parted)
		if err != nil || sum.Objects != 3 || sum.Failed != 0 {
			t.Fatalf("run: %+v, %v", sum, err)
		}
		want := map[string]string{}
		for k, b := range objects {
			want[k] = string(b)
		}
		if diff := cmp.Diff(want, testfs.Read(t, dir)); diff != "" {
			t.Errorf("files (-want +got):\n%.2000s", diff)
		}
	})

	t.Run("a sync with deletes, bucket to bucket", func(t *testing.T) {
		src, dst := srv.NewBucket(t), srv.NewBucket(t)
		client := srv.Client(t)
		s3test.PutObject(t, client, src, "s/same", []byte("same"))
		s3test.PutObject(t, client, src, "s/new", []byte("new"))
		s3test.PutObject(t, client, dst, "d/same", []byte("same")) // written later: unchanged
		s3test.PutObject(t, client, dst, "d/stale", []byte("stale"))
		eng := engine.New(engine.Config{})
		c := s3Client(t, srv, eng)
		job := engine.Job{Src: bucketAt(t, c, "s3://"+src+"/s/"), Dst: bucketAt(t, c, "s3://"+dst+"/d/"), Sync: &engine.SyncOptions{Delete: true}}
		var col collector
		sum, err := eng.Run(t.Context(), job, engine.Options{Observer: col.observe})
		if err != nil || sum.Failed != 0 {
			t.Fatalf("run: %+v, %v", sum, err)
		}
		if diff := cmp.Diff([]string{"copy d/new done", "delete d/stale done"}, col.ops()); diff != "" {
			t.Errorf("results (-want +got):\n%s", diff)
		}
		bucketHolds(t, srv, dst, "d/", map[string][]byte{"same": []byte("same"), "new": []byte("new")})
		// Again: nothing to do.
		sum, err = eng.Run(t.Context(), job, engine.Options{})
		if err != nil || sum.Objects != 0 {
			t.Errorf("second sync: %+v, %v; want nothing done", sum, err)
		}
	})

	t.Run("a move deletes each source after its copy", func(t *testing.T) {
		b := srv.NewBucket(t)
		for k, body := range objects {
			s3test.PutObject(t, srv.Client(t), b, "from/"+k, body)
		}
		eng := engine.New(engine.Config{})
		c := s3Client(t, srv, eng)
		sum, err := eng.Run(t.Context(), engine.Job{Src: bucketAt(t, c, "s3://"+b+"/from/"), Dst: bucketAt(t, c, "s3://"+b+"/to/"), Recursive: true, Move: true}, parted)
		if err != nil || sum.Objects != 3 || sum.Failed != 0 {
			t.Fatalf("run: %+v, %v", sum, err)
		}
		bucketHolds(t, srv, b, "to/", objects)
		bucketHolds(t, srv, b, "from/", nil)
	})

	t.Run("a remove deletes a prefix in batches", func(t *testing.T) {
		srv.Require(t, s3test.Listing) // 1,001 keys list in two pages
		b := srv.NewBucket(t)
		client := srv.Client(t)
		var seed errgroup.Group
		seed.SetLimit(16)
		for i := range 1001 {
			seed.Go(func() error {
				_, err := client.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String(b), Key: aws.String(fmt.Sprintf("rm/%04d", i)), Body: bytes.NewReader(nil)})
				return err
			})
		}
		if err := seed.Wait(); err != nil {
			t.Fatal(err)
		}
		s3test.PutObject(t, client, b, "keep", []byte("k"))
		var requests atomic.Int64
		eng := engine.New(engine.Config{})
		c, err := s3store.NewClient(t.Context(), s3store.Config{
			EndpointURL: srv.Endpoint, Region: srv.Region, AccessKey: srv.AccessKey, SecretKey: srv.SecretKey,
			OnThrottle: eng.Throttled,
			OnRequest: func(op string) {
				if op == "DeleteObjects" || op == "DeleteObject" {
					requests.Add(1)
				}
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := eng.Run(t.Context(), engine.Job{Src: bucketAt(t, c, "s3://"+b+"/rm/"), Recursive: true, Remove: true}, engine.Options{})
		if err != nil || sum.Deleted != 1001 || sum.Failed != 0 {
			t.Fatalf("run: %+v, %v", sum, err)
		}
		if n := requests.Load(); n != 2 {
			t.Errorf("%d delete requests for 1,001 keys, want 2 batches", n)
		}
		bucketHolds(t, srv, b, "", map[string][]byte{"keep": []byte("k")})
	})
}

// gate holds every UploadPart that reaches the destination until as many
// as it expects are in flight together after it came (or the last part of
// the run has come), and records the most ever in flight: counting, not
// sleeping, shows the limit of part uploads. Parts beyond the limit would
// arrive while a full house is held, and raise the peak.
type gate struct {
	*s3store.Store
	expect, total int

	mu             sync.Mutex
	cond           *sync.Cond
	cur, peak, got int
	gen            int // full houses so far
}

func (g *gate) UploadPart(ctx context.Context, key, uploadID string, number int32, body io.ReadSeeker, size int64) (store.Part, error) {
	g.mu.Lock()
	g.cur++
	g.got++
	g.peak = max(g.peak, g.cur)
	mine := g.gen
	if g.cur >= g.expect || g.got == g.total {
		g.gen++
		g.cond.Broadcast()
	}
	// A limit below expect never makes a full house: the peak then tells.
	stuck := time.AfterFunc(30*time.Second, func() { g.mu.Lock(); g.gen++; g.cond.Broadcast(); g.mu.Unlock() })
	for g.gen == mine {
		g.cond.Wait()
	}
	stuck.Stop()
	g.mu.Unlock()
	p, err := g.Store.UploadPart(ctx, key, uploadID, number, body, size)
	g.mu.Lock()
	g.cur--
	g.mu.Unlock()
	return p, err
}

func TestPartUploadsInFlightStayWithinTheirLimit(t *testing.T) {
	srv := s3test.Start(t)
	dir := t.TempDir()
	body := stamped(10*mib + 1) // parts of 5 MiB, 5 MiB and 1 byte
	testfs.Write(t, dir, map[string]string{"f0.bin": string(body), "f1.bin": string(body)})
	tests := []struct {
		name   string
		cfg    engine.Config
		expect int
	}{
		// All 6 parts could be in flight (Concurrency 256); fixed at 2,
		// two at a time.
		{"fixed at 2", engine.Config{PartStreams: 2}, 2},
		// Measured: from 4, and 6 parts are too few to end the first
		// window of 8, so 4 it stays.
		{"measured", engine.Config{}, engine.DefaultPartStreams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := srv.NewBucket(t)
			eng := engine.New(tt.cfg)
			c := s3Client(t, srv, eng)
			g := &gate{Store: c.Bucket(b), expect: tt.expect, total: 6}
			g.cond = sync.NewCond(&g.mu)
			loc, _ := s3url.Parse("s3://" + b + "/up/")
			sum, err := eng.Run(t.Context(), engine.Job{Src: localAt(t, dir, true), Dst: engine.Endpoint{Store: g, Loc: loc}, Recursive: true}, parted)
			if err != nil || sum.Objects != 2 || sum.Failed != 0 {
				t.Fatalf("run: %+v, %v", sum, err)
			}
			if g.got != 6 {
				t.Fatalf("%d parts uploaded, want 6", g.got)
			}
			if g.peak != tt.expect {
				t.Errorf("at most %d part uploads in flight, want %d", g.peak, tt.expect)
			}
		})
	}
}
