package engine_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/engine/manifest"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store/localstore"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// Copy a prefix from one bucket to another, server-side. One Engine holds
// the budgets of the whole process; its Throttled method is how the client
// tells it of a 503 SlowDown. Credentials, region and endpoint come from
// the environment, as for the AWS CLI.
func Example() {
	ctx := context.Background()
	eng := engine.New(engine.Config{})
	client, err := s3store.NewClient(ctx, s3store.Config{Concurrency: eng.MaxConcurrency(), OnThrottle: eng.Throttled})
	if err != nil {
		log.Fatal(err)
	}
	src, _ := s3url.Parse("s3://source-bucket/logs/2026/")
	dst, _ := s3url.Parse("s3://archive-bucket/logs/2026/")
	job := engine.Job{
		Src:       engine.Endpoint{Store: client.Bucket(src.Bucket), Loc: src},
		Dst:       engine.Endpoint{Store: client.Bucket(dst.Bucket), Loc: dst},
		Recursive: true,
	}
	sum, err := eng.Run(ctx, job, engine.Options{})
	if err != nil {
		log.Fatal(err) // the run stopped: a *engine.FatalError, *engine.StoppedError, ...
	}
	fmt.Printf("copied %d objects (%d bytes), %d failed\n", sum.Objects, sum.Bytes, sum.Failed)
}

// Upload a local directory to a prefix. LocalSource roots the store at the
// directory, so keys are the paths below it; files of 8 MiB or more go up
// in parts, on the same budget of requests as the small ones.
func ExampleLocalSource() {
	ctx := context.Background()
	eng := engine.New(engine.Config{MaxBufferBytes: 256 << 20})
	client, err := s3store.NewClient(ctx, s3store.Config{Concurrency: eng.MaxConcurrency(), OnThrottle: eng.Throttled})
	if err != nil {
		log.Fatal(err)
	}
	dir, _ := s3url.Parse("./photos/")
	src, err := engine.LocalSource(dir, engine.LocalOptions{Recursive: true})
	if err != nil {
		log.Fatal(err) // a missing directory is a *engine.NoMatchError
	}
	to, _ := s3url.Parse("s3://my-bucket/photos/")
	dst := engine.Endpoint{Store: client.Bucket(to.Bucket), Loc: to}
	sum, err := eng.Run(ctx, engine.Job{Src: src, Dst: dst, Recursive: true}, engine.Options{
		Observer: func(r engine.Result) {
			if r.Err != nil {
				fmt.Println(r.Err) // one line per failed object
			}
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("uploaded %d files, %d failed\n", sum.Objects, sum.Failed)
}

// Sync a directory to another, deleting what the source lacks. Deletes run
// only after every copy has ended, and never touch a name the source's
// listing had to skip (an unreadable directory, a symlink not followed).
func ExampleSyncOptions() {
	root, _ := os.MkdirTemp("", "sync-example-")
	defer os.RemoveAll(root)
	write(root, "src/a.txt", "new a")
	write(root, "src/b/c.txt", "c")
	write(root, "dst/a.txt", "old") // differs in size: copied again
	write(root, "dst/stale.txt", "stale")

	from, _ := s3url.Parse(filepath.Join(root, "src") + "/")
	to, _ := s3url.Parse(filepath.Join(root, "dst") + "/")
	src, _ := engine.LocalSource(from, engine.LocalOptions{Recursive: true})
	dst, _ := engine.LocalDestination(to, engine.LocalOptions{Recursive: true})

	var lines []string
	eng := engine.New(engine.Config{})
	sum, err := eng.Run(context.Background(), engine.Job{Src: src, Dst: dst, Sync: &engine.SyncOptions{Delete: true}}, engine.Options{
		Workers: 1, // one at a time, for a stable order here
		Observer: func(r engine.Result) {
			key := r.Task.DstKey
			if r.Task.Op == engine.OpDelete {
				key = r.Task.SrcKey
			}
			lines = append(lines, fmt.Sprintf("%s %s: %s", r.Task.Op, key, r.Status))
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.Join(lines, "\n"))
	fmt.Printf("%d copied, %d deleted\n", sum.Copied(), sum.Deleted)
	// Output:
	// stream a.txt: done
	// stream b/c.txt: done
	// delete stale.txt: done
	// 2 copied, 1 deleted
}

// Observe a run: Progress holds counters that any goroutine may read while
// the run goes on (a progress bar polls Snapshot), and the Observer sees
// each object as it ends.
func ExampleProgress() {
	root, _ := os.MkdirTemp("", "progress-example-")
	defer os.RemoveAll(root)
	for i := range 5 {
		write(root, fmt.Sprintf("src/f%d.txt", i), strings.Repeat("x", 100))
	}
	from, _ := s3url.Parse(filepath.Join(root, "src") + "/")
	to, _ := s3url.Parse(filepath.Join(root, "dst") + "/")
	src, _ := engine.LocalSource(from, engine.LocalOptions{Recursive: true})
	dst, _ := engine.LocalDestination(to, engine.LocalOptions{Recursive: true})

	p := &engine.Progress{}
	done := make(chan struct{})
	go func() { // what a progress bar does, every 100 ms or so
		defer close(done)
		_ = p.Snapshot() // Done, Bytes, RemainingBytes, Limit, InFlight...
	}()
	_, err := engine.New(engine.Config{}).Run(context.Background(), engine.Job{Src: src, Dst: dst, Recursive: true}, engine.Options{Progress: p})
	<-done
	if err != nil {
		log.Fatal(err)
	}
	s := p.Snapshot()
	fmt.Printf("%d of %d objects, %d bytes, %d to go, plan complete: %t\n", s.Done, s.Planned, s.Bytes, s.RemainingBytes, s.PlanComplete)
	// Output: 5 of 5 objects, 500 bytes, 0 to go, plan complete: true
}

// PutStream writes a stream of unknown length, here into a local
// directory; into an S3 bucket, a stream longer than one part becomes a
// multipart upload with bounded memory.
func ExampleEngine_PutStream() {
	dir, _ := os.MkdirTemp("", "putstream-")
	defer os.RemoveAll(dir)
	st, _ := localstore.New(dir, localstore.Options{})
	dst := engine.Endpoint{Store: st, Loc: s3url.Location{Local: true}}

	res, err := engine.New(engine.Config{}).PutStream(context.Background(), strings.NewReader("hello, world\n"), "-", dst, "greeting.txt", engine.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := os.ReadFile(filepath.Join(dir, "greeting.txt"))
	fmt.Printf("%s: %d bytes, %d parts: %s", res.Status, res.Task.Size, res.Parts, b)
	// Output: done: 13 bytes, 0 parts: hello, world
}

func write(root, name, body string) {
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		log.Fatal(err)
	}
}

// Plan a copy of a key list, look at the plan, then execute the tasks
// kept: the stages of a run (sources -> plan -> execute -> observe) one by
// one. Run is Execute of Plan; a dry run is Plan alone, reported.
func ExampleEngine_Execute() {
	root, _ := os.MkdirTemp("", "execute-example-")
	defer os.RemoveAll(root)
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		write(root, "src/"+name, "body of "+name)
	}
	from, _ := s3url.Parse(filepath.Join(root, "src") + "/")
	to, _ := s3url.Parse(filepath.Join(root, "dst") + "/")
	src, _ := engine.LocalSource(from, engine.LocalOptions{Recursive: true})
	dst, _ := engine.LocalDestination(to, engine.LocalOptions{Recursive: true})

	// The source: a key list (a file, or "-" for this reader), keys
	// relative to the source's base.
	keys, err := manifest.OpenKeyList("-", strings.NewReader("c.txt\na.txt\nmissing.txt\n"), "", src.Base())
	if err != nil {
		log.Fatal(err)
	}
	defer keys.Close()

	ctx := context.Background()
	eng := engine.New(engine.Config{})
	job := engine.Job{Src: src, Dst: dst, Recursive: true, From: keys}
	var keep []engine.Task
	for t, err := range eng.Plan(ctx, job, engine.Options{}).Tasks {
		if err != nil {
			log.Fatal(err) // the plan stopped: a listing or a HEAD failed
		}
		if t.Op == engine.OpSkip {
			fmt.Printf("plan: skip %s: %s\n", t.SrcKey, t.Reason)
			continue
		}
		fmt.Println("plan:", t.Op, t.SrcKey)
		keep = append(keep, t)
	}
	sum, err := eng.Execute(ctx, engine.Plan{Job: job, Tasks: engine.Tasks(keep...)}, engine.Options{
		Workers:  1, // one at a time, for a stable order here
		Observer: func(r engine.Result) { fmt.Println("done:", r.Task.DstKey, r.Status) },
	})
	if err != nil {
		log.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(root, "dst", "c.txt"))
	fmt.Printf("%d copied, %d failed; c.txt: %s\n", sum.Copied(), sum.Failed, b)
	// Output:
	// plan: stream c.txt
	// plan: stream a.txt
	// plan: skip missing.txt: not found at the source
	// done: c.txt done
	// done: a.txt done
	// 2 copied, 0 failed; c.txt: body of c.txt
}
