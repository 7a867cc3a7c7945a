package transfer_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store/s3store"
	"github.com/s3bulk/s3bulk/transfer"
)

// A caller renders a run through the request's options and the Runner's
// Ended, and gets a plan instead of a run with Plan: Run calls the engine
// itself, whoever carries the copy out.
func TestRunnerRendersThroughTheCallersOptionsAndHooks(t *testing.T) {
	ctx := context.Background()
	srv, err := s3test.Shared()
	if err != nil {
		t.Fatal(err)
	}
	sdk := srv.SDK()
	client, err := s3store.NewClient(ctx, s3store.Config{
		EndpointURL: srv.Endpoint, Region: srv.Region, AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, ChecksumWhenRequired: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		engine string
		plan   bool
		// want is the objects copied, ended or planned, and seen.
		copied, ended, planned, observed int
	}{
		{name: "a local run ends once and is observed", engine: transfer.Local, copied: 2, ended: 1, observed: 2},
		{name: "auto measures the caller's progress and ends once", engine: transfer.Auto, copied: 2, ended: 1, observed: 2},
		{name: "a plan is passed task by task, nothing run", engine: transfer.Local, plan: true, planned: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, dst := newBucket(ctx, sdk), newBucket(ctx, sdk)
			defer removeBuckets(sdk, src, dst)
			for _, k := range []string{"a.txt", "logs/b.txt"} {
				if _, err := sdk.PutObject(ctx, &s3.PutObjectInput{Bucket: &src, Key: aws.String(k)}); err != nil {
					t.Fatal(err)
				}
			}
			from, _ := s3url.Parse("s3://" + src + "/")
			to, _ := s3url.Parse("s3://" + dst + "/")
			choice := transfer.DefaultChoice()
			choice.Engine = tt.engine
			var observed atomic.Int64 // the Observer is called from the workers
			prog := &engine.Progress{}
			q := transfer.Request{
				Choice: choice,
				Job: engine.Job{
					Src:       engine.Endpoint{Store: client.Bucket(src), Loc: from},
					Dst:       engine.Endpoint{Store: client.Bucket(dst), Loc: to},
					Recursive: true,
				},
				Options: engine.Options{Progress: prog, Observer: func(engine.Result) { observed.Add(1) }},
			}
			var ended []engine.Summary
			planned := 0
			r := &transfer.Runner{Ended: func(sum engine.Summary, _ error) { ended = append(ended, sum) }}
			if tt.plan {
				r.Plan = func(engine.Task) error { planned++; return nil }
			}
			sum, err := r.Run(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			out, err := sdk.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &dst})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(out.Contents); got != tt.copied {
				t.Errorf("copied %d objects, want %d", got, tt.copied)
			}
			if len(ended) != tt.ended || tt.ended > 0 && (ended[0].Objects != sum.Objects || sum.Objects != int64(tt.copied)) {
				t.Errorf("Ended with %+v, want %d call(s) with the summary Run returns (%d objects)", ended, tt.ended, sum.Objects)
			}
			if planned != tt.planned || observed.Load() != int64(tt.observed) {
				t.Errorf("%d tasks planned and %d results observed, want %d and %d", planned, observed.Load(), tt.planned, tt.observed)
			}
			if got := prog.Snapshot().Done; got != int64(tt.copied) {
				t.Errorf("the caller's Progress counts %d done, want %d", got, tt.copied)
			}
		})
	}
}
