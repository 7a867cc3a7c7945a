// Command outside copies a prefix between buckets, uploads a directory,
// syncs with deletes, resumes a copy from its journal and watches the
// progress of each, through s3bulk's public API only. Endpoint and credentials come from the environment
// (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, ...), as for the AWS CLI.
//
//	outside SRC-BUCKET DST-BUCKET DIR
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/engine/journal"
	"github.com/s3bulk/s3bulk/filter"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store/s3store"
)

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "outside:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) != 3 {
		return errors.New("usage: outside SRC-BUCKET DST-BUCKET DIR")
	}
	srcBucket, dstBucket, dir := args[0], args[1], args[2]

	// One engine: one budget of requests for the whole program, and the
	// client's throttles shrink it.
	eng := engine.New(engine.Config{Concurrency: 16, MaxBufferBytes: 64 << 20})
	// Retries wait at most 5s: the backoff is the program's to set.
	client, err := s3store.NewClient(ctx, s3store.Config{
		Concurrency: eng.MaxConcurrency(), OnThrottle: eng.Throttled, Backoff: s3store.Backoff{Max: 5 * time.Second},
	})
	if err != nil {
		return err
	}
	bucket := func(u string) engine.Endpoint {
		loc, err := s3url.Parse(u)
		if err != nil {
			panic(err)
		}
		return engine.Endpoint{Store: client.Bucket(loc.Bucket), Loc: loc}
	}

	// 1. A prefix, bucket to bucket (server-side).
	if err := report(ctx, eng, "copy", engine.Job{
		Src: bucket("s3://" + srcBucket + "/logs/"), Dst: bucket("s3://" + dstBucket + "/copy/"), Recursive: true,
	}); err != nil {
		return err
	}

	// 1b. The same prefix, kept to what aws s3's filters keep (package
	// filter): "--exclude '*' --include 'b/*'".
	keep, err := filter.New(filter.Options{Base: "logs/", Rules: []filter.Rule{filter.Exclude("*"), filter.Include("b/*")}})
	if err != nil {
		return err
	}
	if err := report(ctx, eng, "filtered", engine.Job{
		Src: bucket("s3://" + srcBucket + "/logs/"), Dst: bucket("s3://" + dstBucket + "/filtered/"), Recursive: true,
	}, engine.Options{Filter: keep.Keep}); err != nil {
		return err
	}

	// 2. A directory, uploaded.
	loc, err := s3url.Parse(dir + "/")
	if err != nil {
		return err
	}
	local, err := engine.LocalSource(loc, engine.LocalOptions{Recursive: true})
	if err != nil {
		return err
	}
	if err := report(ctx, eng, "upload", engine.Job{Src: local, Dst: bucket("s3://" + dstBucket + "/upload/"), Recursive: true}); err != nil {
		return err
	}

	// 3. A sync with deletes: what the source lacks goes.
	if err := report(ctx, eng, "sync", engine.Job{
		Src: bucket("s3://" + srcBucket + "/logs/"), Dst: bucket("s3://" + dstBucket + "/sync/"),
		Sync: &engine.SyncOptions{Delete: true},
	}); err != nil {
		return err
	}

	// 4. A resumable copy: the journal records what is done, and a rerun
	// of the same job skips it.
	jdir, err := os.MkdirTemp("", "outside-journal")
	if err != nil {
		return err
	}
	defer os.RemoveAll(jdir)
	resume := engine.Job{Src: bucket("s3://" + srcBucket + "/logs/"), Dst: bucket("s3://" + dstBucket + "/resume/"), Recursive: true}
	for _, name := range []string{"journal", "rerun"} {
		j, err := journal.Open(jdir+string(os.PathSeparator)+"copy.journal", journal.Fingerprint("copy", srcBucket, dstBucket))
		if err != nil {
			return err
		}
		err = report(ctx, eng, name, resume, engine.Options{Journal: j})
		if cerr := j.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}

	// A missing prefix's single key is a typed error, not a message to parse.
	_, err = eng.Run(ctx, engine.Job{Src: bucket("s3://" + srcBucket + "/no-such-key"), Dst: bucket("s3://" + dstBucket + "/x")}, engine.Options{})
	var nm *engine.NoMatchError
	fmt.Printf("missing key: NoMatchError %t\n", errors.As(err, &nm))
	return nil
}

// report runs job and prints, in a stable order, each result the observer
// saw and the final progress counters.
func report(ctx context.Context, eng *engine.Engine, name string, job engine.Job, opts ...engine.Options) error {
	var mu sync.Mutex
	var lines []string
	var o engine.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	p := &engine.Progress{}
	o.Progress = p
	o.Observer = func(r engine.Result) {
		key := r.Task.DstKey
		if r.Task.Op == engine.OpDelete {
			key = r.Task.SrcKey
		}
		mu.Lock()
		lines = append(lines, fmt.Sprintf("%s: %s %s %s", name, r.Task.Op, key, r.Status))
		mu.Unlock()
	}
	sum, err := eng.Run(ctx, job, o)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	s := p.Snapshot()
	fmt.Printf("%s: %d objects, %d deleted, %d failed; progress %d/%d done, %d bytes, plan complete %t\n",
		name, sum.Objects, sum.Deleted, sum.Failed, s.Done, s.Planned, s.Bytes, s.PlanComplete)
	return nil
}
