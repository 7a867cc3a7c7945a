package batchops

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/batchops/fakecontrol"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// recorder is an Observer that keeps what it is told.
type recorder struct {
	mu       sync.Mutex
	notes    []string
	plans    []PlanRecord
	excluded []ExcludedRecord
	created  []string
	tasks    []TaskResult
	ends     []Job
}

func (r *recorder) add(f func()) { r.mu.Lock(); defer r.mu.Unlock(); f() }

func (r *recorder) Note(m string)    { r.add(func() { r.notes = append(r.notes, m) }) }
func (r *recorder) Warning(m string) { r.Note(m) }
func (r *recorder) Plan(p PlanRecord) {
	r.add(func() { r.plans = append(r.plans, p) })
}
func (r *recorder) GeneratorPlan(GeneratorPlanRecord, GeneratorText) {}
func (r *recorder) Excluded(x ExcludedRecord)                        { r.add(func() { r.excluded = append(r.excluded, x) }) }
func (r *recorder) JobCreated(c JobCreatedRecord) {
	r.add(func() { r.created = append(r.created, c.JobID) })
}
func (r *recorder) Progress(Job)     {}
func (r *recorder) StopProgress(Job) {}
func (r *recorder) Task(_ Job, t TaskResult) error {
	r.add(func() { r.tasks = append(r.tasks, t) })
	return nil
}
func (r *recorder) Summary(j Job) { r.add(func() { r.ends = append(r.ends, j) }) }

func (e *env) runner(rec *recorder, results *[]engine.Result) *Runner {
	var mu sync.Mutex
	return &Runner{
		Store:    func(b string) store.Store { return e.s3.Bucket(b) },
		Jobs:     func(context.Context, string) (*Client, error) { return e.jobs, nil },
		Observer: rec,
		Poll:     time.Millisecond,
		Local: engine.Options{Observer: func(r engine.Result) {
			mu.Lock()
			defer mu.Unlock()
			*results = append(*results, r)
		}},
	}
}

func (e *env) copyOptions(t *testing.T, src, dst string) CopyOptions {
	t.Helper()
	s, d := locs(t, src, dst)
	p := CopyPlan{Src: s, Dst: d, ReportScope: ReportAllTasks,
		Manifest: s3url.Location{Bucket: e.dst, Key: "_batch/manifest/test.csv"},
		Report:   s3url.Location{Bucket: e.dst, Key: "_batch/report"}}
	spec := e.spec(Manifest{})
	spec.DestPrefix = p.DestPrefix()
	return CopyOptions{Plan: p, Spec: spec, Wait: true}
}

// The job and the local fallback name every object alike, s3url's way
// under JobDest: the job by TargetKeyPrefix, the fallback through the
// engine. The objects a job cannot copy go through one engine run.
func TestCopyRoutesOversizeObjectsToOneLocalRunNamedAsTheJobNamesItsCopies(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, fakecontrol.Options{}, ClientOptions{AccountID: "123456789012"})
	big := strings.Repeat("x", 2000)
	e.put(t, e.src, map[string]string{
		"logs/a.txt": "1", "logs/x/big-1.bin": big, "logs/y/b.txt": "22", "logs/y/z/big 2.bin": big, "other/big.bin": big,
	})
	rec := &recorder{}
	var results []engine.Result
	o := e.copyOptions(t, "s3://"+e.src+"/logs/", "s3://"+e.dst+"/copy/")
	o.Plan.MaxSize = 1000
	if err := e.runner(rec, &results).Copy(ctx, o); err != nil {
		t.Fatal(err)
	}
	want := []string{"copy/logs/a.txt", "copy/logs/x/big-1.bin", "copy/logs/y/b.txt", "copy/logs/y/z/big 2.bin"}
	if got := s3test.ListKeys(t, e.sdk, e.dst, "copy/"); !slices.Equal(got, want) {
		t.Errorf("destination = %q, want %q", got, want)
	}
	var local []string
	for _, r := range results {
		if r.Status != engine.StatusDone {
			t.Errorf("local %s: %s %v", r.Task.Src, r.Status, r.Err)
		}
		local = append(local, r.Task.DstKey)
	}
	slices.Sort(local)
	if !slices.Equal(local, []string{"copy/logs/x/big-1.bin", "copy/logs/y/z/big 2.bin"}) {
		t.Errorf("copied locally %q, want the two big objects", local)
	}
	if len(rec.plans) != 1 || rec.plans[0].Objects != 2 || rec.plans[0].Oversize != 2 || rec.plans[0].OversizeAction != ActionLocalCopy {
		t.Errorf("plan = %+v", rec.plans)
	}
	if len(rec.ends) != 1 || rec.ends[0].Succeeded != 2 {
		t.Errorf("job ended %+v, want 2 tasks succeeded", rec.ends)
	}
}

func TestCopyWithoutFallbackExcludesAndFails(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, fakecontrol.Options{}, ClientOptions{AccountID: "123456789012"})
	e.put(t, e.src, map[string]string{"a": "1", "b/big": strings.Repeat("x", 2000)})
	rec := &recorder{}
	var results []engine.Result
	o := e.copyOptions(t, "s3://"+e.src, "s3://"+e.dst)
	o.Plan.MaxSize, o.NoLocalFallback = 1000, true
	err := e.runner(rec, &results).Copy(ctx, o)
	var pe *PartialError
	if !errors.As(err, &pe) || pe.Failed != 1 {
		t.Fatalf("Copy = %v, want 1 object failed", err)
	}
	if len(results) != 0 || len(rec.excluded) != 1 || rec.excluded[0].Src != "s3://"+e.src+"/b/big" {
		t.Errorf("local results %d, excluded %+v; want none copied, b/big excluded", len(results), rec.excluded)
	}
}

func TestCommonDir(t *testing.T) {
	tests := []struct {
		keys []string
		want string
	}{
		{[]string{"a/b/c", "a/b/d"}, "a/b/"},
		{[]string{"a/b/c", "a/bc/d"}, "a/"},
		{[]string{"x", "y"}, ""},
		{[]string{"logs/x/1", "logs/y/z/2", "logs/x/3"}, "logs/"},
	}
	for _, tt := range tests {
		var routed []routedObject
		for _, k := range tt.keys {
			routed = append(routed, routedObject{obj: store.Object{Key: k}})
		}
		if got := commonDir(routed); got != tt.want {
			t.Errorf("commonDir(%q) = %q, want %q", tt.keys, got, tt.want)
		}
	}
}

func TestCopyOfAWildcardMatchingNothingIsNothingToCopy(t *testing.T) {
	e := newEnv(t, fakecontrol.Options{}, ClientOptions{AccountID: "123456789012"})
	e.put(t, e.src, map[string]string{"a.txt": "1"})
	var results []engine.Result
	err := e.runner(&recorder{}, &results).Copy(context.Background(), e.copyOptions(t, "s3://"+e.src+"/*.json", "s3://"+e.dst))
	if !errors.Is(err, ErrNothingToCopy) {
		t.Errorf("Copy = %v, want ErrNothingToCopy", err)
	}
	if keys := s3test.ListKeys(t, e.sdk, e.dst, ""); len(keys) != 0 {
		t.Errorf("destination holds %q, want nothing", keys)
	}
}

// The fallback copies an object only while it is the one the plan listed,
// as a job's task copies the object of its manifest line.
func TestTheLocalFallbackSkipsAnObjectChangedSinceItWasListed(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, fakecontrol.Options{}, ClientOptions{AccountID: "123456789012"})
	e.put(t, e.src, map[string]string{"d/x": "changed", "d/y": "same"})
	y, _, err := e.s3.Bucket(e.src).Head(ctx, "d/y")
	if err != nil {
		t.Fatal(err)
	}
	for _, routed := range [][]routedObject{
		{{obj: store.Object{Key: "d/x", ETag: "0123456789abcdef0123456789abcdef"}}},           // one object: a HEAD
		{{obj: store.Object{Key: "d/x", ETag: "0123456789abcdef0123456789abcdef"}}, {obj: y}}, // a listing
	} {
		rec := &recorder{}
		var results []engine.Result
		dst := s3url.Location{Bucket: e.dst, Key: "c/"}
		if failed := e.runner(rec, &results).copyLocally(ctx, e.src, dst, routed, nil, Written{}); failed != 1 {
			t.Errorf("%d objects: %d failed, want 1 (the changed one)", len(routed), failed)
		}
		if !slices.ContainsFunc(rec.notes, func(n string) bool { return strings.Contains(n, "d/x: changed since it was listed") }) {
			t.Errorf("%d objects: notes %q do not name the changed object", len(routed), rec.notes)
		}
		want := []string{}
		if len(routed) == 2 {
			want = []string{"c/d/y"}
		}
		if got := s3test.ListKeys(t, e.sdk, e.dst, "c/"); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%d objects: destination %q, want %q", len(routed), got, want)
		}
	}
}
