package batchops

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/s3url"

	"github.com/s3bulk/s3bulk/store"
)

// ErrNothingToRetry reports a job whose completion report lists no failed
// task.
var ErrNothingToRetry = errors.New("no failed tasks to retry")

// RetrySpec turns the failed tasks of job j into the manifest and spec of
// a new job that copies them again, to the same place, with the same role,
// storage class, report location and priority. The manifest goes to key of
// dst (a store of bucket), streamed from the report as PutManifest streams
// a listing; the report is read twice, once to find the source bucket and
// count the failures, once to write the manifest.
func RetrySpec(ctx context.Context, open Opener, j Job, dst store.Store, bucket, key string) (CopySpec, error) {
	if !j.Done() {
		return CopySpec{}, fmt.Errorf("retry job %s: the job is %s; retry it when it has ended", j.ID, j.Status)
	}
	if j.Copy == nil {
		return CopySpec{}, fmt.Errorf("retry job %s: not a copy job", j.ID)
	}
	if !j.Report.Enabled {
		return CopySpec{}, fmt.Errorf("retry job %s: the job has no completion report to take the failed keys from", j.ID)
	}
	var src string
	var failed, versioned int64
	_, err := ReadReport(ctx, open, j.Report.Bucket, j.Report.Prefix, j.ID, func(r TaskResult) error {
		if r.Status != TaskFailed {
			return nil
		}
		if src != "" && r.Bucket != src {
			return fmt.Errorf("retry job %s: its report names two source buckets, %s and %s", j.ID, src, r.Bucket)
		}
		src = r.Bucket
		failed++
		if r.VersionID != "" {
			versioned++
		}
		return nil
	})
	if err != nil {
		return CopySpec{}, err
	}
	if failed == 0 {
		return CopySpec{}, fmt.Errorf("retry job %s: %w", j.ID, ErrNothingToRetry)
	}
	if versioned != 0 && versioned != failed {
		return CopySpec{}, fmt.Errorf("retry job %s: %d of its %d failed tasks name a version, and a manifest gives versions for all objects or none", j.ID, versioned, failed)
	}
	rows := listerFunc(func(ctx context.Context, _, _ string, fn func(store.Object) error) error {
		_, err := ReadReport(ctx, open, j.Report.Bucket, j.Report.Prefix, j.ID, func(r TaskResult) error {
			if r.Status != TaskFailed {
				return nil
			}
			return fn(store.Object{Key: r.Key, VersionID: r.VersionID})
		})
		return err
	})
	// MaxSize: a failed task's object was under the limit when it was
	// listed; if it grew since, the new job fails it again and says why.
	// A versioned job's retry copies the same versions.
	m, err := PutManifest(ctx, rows, ManifestOptions{Bucket: src, MaxSize: 1 << 62, Versioned: versioned > 0}, dst, bucket, key, 0)
	if err != nil {
		return CopySpec{}, err
	}
	return CopySpec{
		Manifest: m, RoleArn: j.RoleArn,
		DestBucket: j.Copy.DestBucket, DestPrefix: j.Copy.DestPrefix, StorageClass: j.Copy.StorageClass,
		Report: j.Report, Priority: j.Priority,
		Description: TruncateDescription("s3bulk retry of job " + j.ID + ": " + j.Description),
	}, nil
}

type listerFunc func(ctx context.Context, prefix, delimiter string, fn func(store.Object) error) error

func (f listerFunc) List(ctx context.Context, prefix, delimiter string, fn func(store.Object) error) error {
	return f(ctx, prefix, delimiter, fn)
}

// Default places for the manifest and the report, under the destination
// bucket as report 1 did (_batch/report/).
const (
	DefaultManifestPrefix = "_batch/manifest/"
	DefaultReportPrefix   = "_batch/report"
)

// Retry copies the failed tasks of job id again with a new job (see
// RetrySpec), whose manifest goes under the destination bucket's
// DefaultManifestPrefix; with wait it follows the new job as Copy does.
func (r *Runner) Retry(ctx context.Context, jc *Client, id string, wait bool) error {
	j, err := jc.Describe(ctx, id)
	if err != nil {
		return err
	}
	var mb string
	if j.Copy != nil {
		mb = j.Copy.DestBucket
	}
	key := DefaultManifestPrefix + "retry-" + j.ID + ".csv"
	open := func(b string) (store.Store, error) { return r.Store(b), nil }
	spec, err := RetrySpec(ctx, open, j, r.Store(mb), mb, key)
	if errors.Is(err, ErrNothingToRetry) {
		r.Observer.Note(fmt.Sprintf("job %s: nothing to retry, every task succeeded", j.ID))
		return nil
	}
	if err != nil {
		return err
	}
	r.Observer.Note(fmt.Sprintf("plan: %d failed objects of job %s for a new job, manifest s3://%s/%s", spec.Manifest.Stats.Objects, j.ID, mb, key))
	newID, err := jc.Create(ctx, spec)
	if err != nil {
		return r.dropManifest(ctx, r.Store(mb), key, err)
	}
	r.Observer.JobCreated(JobCreatedRecord{Type: "job", JobID: newID, Region: jc.Region()})
	if !wait {
		return nil
	}
	return r.WaitAndReport(ctx, jc, newID, 0)
}

// RetryLocally copies the failed tasks of ended job id again from this
// machine, with one engine run (Runner.Local), to where the job wrote its
// copies (its TargetKeyPrefix + key) and in its storage class. The failed
// keys are held in memory while they are copied. A versioned job's
// failures are refused: the local engine copies current versions, not the
// versions its manifest pinned. The error is nil when every one was
// copied, a *PartialError otherwise.
func (r *Runner) RetryLocally(ctx context.Context, jc *Client, id string) error {
	j, err := jc.Describe(ctx, id)
	if err != nil {
		return err
	}
	switch {
	case !j.Done():
		return fmt.Errorf("retry job %s: the job is %s; retry it when it has ended", j.ID, j.Status)
	case j.Copy == nil:
		return fmt.Errorf("retry job %s: not a copy job", j.ID)
	case !j.Report.Enabled:
		return fmt.Errorf("retry job %s: the job has no completion report to take the failed keys from", j.ID)
	case j.Copy.DestPrefix != "" && !strings.HasSuffix(j.Copy.DestPrefix, "/"):
		return fmt.Errorf("retry job %s --engine local: its target key prefix %q does not end in '/', which s3bulk's naming cannot reproduce; retry it with a job", j.ID, j.Copy.DestPrefix)
	}
	var src string
	var routed []routedObject
	open := func(b string) (store.Store, error) { return r.Store(b), nil }
	_, err = ReadReport(ctx, open, j.Report.Bucket, j.Report.Prefix, j.ID, func(t TaskResult) error {
		switch {
		case t.Status != TaskFailed:
			return nil
		case t.VersionID != "":
			return fmt.Errorf("retry job %s --engine local: its manifest pinned versions (%s of s3://%s/%s), and the local engine copies current versions: retry it with a job: %w",
				j.ID, t.VersionID, t.Bucket, t.Key, ErrInvalidJob)
		case src != "" && t.Bucket != src:
			return fmt.Errorf("retry job %s: its report names two source buckets, %s and %s", j.ID, src, t.Bucket)
		}
		src = t.Bucket
		routed = append(routed, routedObject{obj: store.Object{Key: t.Key}})
		return nil
	})
	if err != nil {
		return err
	}
	if len(routed) == 0 {
		r.Observer.Note(fmt.Sprintf("job %s: nothing to retry, every task succeeded", j.ID))
		return nil
	}
	r.Observer.Note(fmt.Sprintf("plan: %d failed objects of job %s, copied from this machine to s3://%s/%s", len(routed), j.ID, j.Copy.DestBucket, j.Copy.DestPrefix))
	var meta *engine.MetadataOptions
	if j.Copy.StorageClass != "" {
		meta = &engine.MetadataOptions{Set: store.Metadata{StorageClass: j.Copy.StorageClass}}
	}
	failed := r.copyLocally(ctx, src, s3url.Location{Bucket: j.Copy.DestBucket, Key: j.Copy.DestPrefix}, routed, meta, j.Copy.Written)
	if err := ctx.Err(); err != nil {
		return err
	}
	return partial(failed)
}
