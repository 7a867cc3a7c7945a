package cli

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"golang.org/x/sync/errgroup"

	"github.com/s3bulk/s3bulk/internal/batchops"
	"github.com/s3bulk/s3bulk/internal/batchops/fakecontrol"
	"github.com/s3bulk/s3bulk/internal/s3test"
)

func TestCpEngineChoice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newBatchEnv(t, fakecontrol.Options{})
	e.seed(t, map[string]string{"a/1.json": "1", "a/2.json": "22"})
	local := t.TempDir()

	t.Run("auto picks this machine for a small copy and says why", func(t *testing.T) {
		r := e.run(ctx, "cp", "--engine", "auto", "--recursive", "s3://"+e.src, "s3://"+e.dst+"/auto/")
		if r.code != ExitOK {
			t.Fatalf("exit %d:\n%s", r.code, r.err)
		}
		for _, want := range []string{"engine auto: 2 objects, 3 bytes", "estimate: local", "estimate: batchops", "engine auto: choosing local"} {
			if !strings.Contains(r.err, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.err)
			}
		}
		if got := s3test.ListKeys(t, e.sdk, e.dst, "auto/a/"); len(got) != 2 {
			t.Errorf("copied %v, want 2 objects", got)
		}
	})
	t.Run("batchops runs a job that copies whole keys", func(t *testing.T) {
		r := e.run(ctx, "cp", "--engine", "batchops", "--role-arn", batchRole,
			"--control-endpoint-url", e.fake.URL, "--account-id", e.fake.AccountID(), "--poll-interval", "1ms",
			"--recursive", "s3://"+e.src, "s3://"+e.dst+"/job/")
		if r.code != ExitOK {
			t.Fatalf("exit %d:\n%s", r.code, r.err)
		}
		if got := string(s3test.GetObject(t, e.sdk, e.dst, "job/a/2.json")); got != "22" {
			t.Errorf("job/a/2.json = %q, want %q", got, "22")
		}
	})
	for _, tt := range []struct {
		name, want string
		args       []string
	}{
		{"batchops without a role is a usage error", "--role-arn", []string{"cp", "--engine", "batchops", "--recursive", "s3://" + e.src, "s3://" + e.dst + "/x/"}},
		{"batchops from a local source is a usage error", "local", []string{"cp", "--engine", "batchops", "--role-arn", batchRole, "--recursive", local, "s3://" + e.dst + "/x/"}},
		{"an unknown engine is a usage error", "want local", []string{"cp", "--engine", "cloud", "--recursive", "s3://" + e.src, "s3://" + e.dst + "/x/"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.run(ctx, tt.args...)
			if r.code != ExitUsage || !strings.Contains(r.err, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", r.code, r.err, ExitUsage, tt.want)
			}
		})
	}
}

// seedMany puts n tiny objects under the source, 16 at a time.
func (e *batchEnv) seedMany(t *testing.T, n int) {
	t.Helper()
	var g errgroup.Group
	g.SetLimit(16)
	for i := range n {
		g.Go(func() error {
			_, err := e.sdk.PutObject(context.Background(), &s3.PutObjectInput{
				Bucket: aws.String(e.src), Key: aws.String(fmt.Sprintf("%d/%05d.json", i%13, i)),
				Body: strings.NewReader("{}"),
			})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}

func (e *batchEnv) jobFlags() []string {
	return []string{"--role-arn", batchRole, "--control-endpoint-url", e.fake.URL, "--account-id", e.fake.AccountID(), "--poll-interval", "1ms"}
}

var measured = regexp.MustCompile(`at ([0-9.]+) objects/s \(s3bulk measured here: (\d+) objects in `)

// TestCpEngineAutoPicksLocalAtS3bulksOwnRate copies 2,000 objects with
// auto: it measures s3bulk's own rate on the way and keeps copying here,
// saying why, unless the model says a job wins. (scripts/engine-auto.sh runs
// report 1's 5,000 objects and 100,000 against the embedded server.)
func TestCpEngineAutoPicksLocalAtS3bulksOwnRate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newBatchEnv(t, fakecontrol.Options{})
	const objects = 2000
	e.seedMany(t, objects)
	r := e.run(ctx, append([]string{"cp", "--engine", "auto", "--recursive", "--concurrency", "8", "--auto-window", "200",
		"s3://" + e.src, "s3://" + e.dst + "/auto/"}, e.jobFlags()...)...)
	if r.code != ExitOK {
		t.Fatalf("exit %d:\n%s", r.code, r.err)
	}
	m := measured.FindStringSubmatch(r.err)
	if m == nil {
		t.Fatalf("stderr does not give s3bulk's measured rate:\n%s", r.err)
	}
	rate, _ := strconv.ParseFloat(m[1], 64)
	a := batchops.JobAssumptions()
	a.LocalObjectsPerSec = rate
	if !regexp.MustCompile(`engine auto: (?:at least \d+ objects|2000 objects, 4000 bytes); \d+ started here`).MatchString(r.err) {
		t.Errorf("stderr does not count the objects:\n%s", r.err)
	}
	for _, want := range []string{"estimate: local", "estimate: batchops", "(report 1's job"} {
		if !strings.Contains(r.err, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.err)
		}
	}
	// The decision is the model's at the measured rate: for the ~800 objects
	// left a job's start-up alone outlasts any rate above 17 objects/s.
	left := regexp.MustCompile(`(?:at least )?(\d+) not yet`).FindStringSubmatch(r.err)
	if left == nil {
		t.Fatalf("stderr does not say how many objects were left to weigh:\n%s", r.err)
	}
	n, _ := strconv.ParseInt(left[1], 10, 64)
	if want := batchops.Choose(batchops.Workload{Objects: n}, a).Engine; want != batchops.EngineLocal || !strings.Contains(r.err, "engine auto: choosing local") {
		t.Errorf("at %.0f objects/s the model says %s for %d objects; stderr:\n%s", rate, want, n, r.err)
	}
	for _, objects := range []int64{100_000, 1_000_000, 10_000_000} {
		c := batchops.Choose(batchops.Workload{Objects: objects}, a)
		t.Logf("%d objects at %.0f objects/s measured here: %s (local %s, job %s)", objects, rate, c.Engine, c.Local.Time.Round(time.Second), c.BatchOps.Time.Round(time.Second))
	}
	if got := len(s3test.ListKeys(t, e.sdk, e.dst, "auto/")); got != objects {
		t.Errorf("copied %d objects, want %d", got, objects)
	}
	if ls := e.run(ctx, "batch", "ls"); ls.out != "" {
		t.Errorf("auto created a job:\n%s", ls.out)
	}
}

// TestCpEngineAutoHandsTheRestToAJob makes a job win (no start-up, a huge
// rate): auto stops giving objects to this machine, and the job copies
// every object after the last one started here.
func TestCpEngineAutoHandsTheRestToAJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newBatchEnv(t, fakecontrol.Options{})
	// The planner runs 2 x concurrency + 1,000 objects ahead of the
	// workers: those are copied here whatever auto decides.
	e.seedMany(t, 1300)
	r := e.run(ctx, append([]string{"cp", "--engine", "auto", "--recursive", "--concurrency", "8", "--auto-window", "20",
		"--job-startup", "0s", "--job-rate", "1000000", "s3://" + e.src, "s3://" + e.dst + "/"}, e.jobFlags()...)...)
	if r.code != ExitOK {
		t.Fatalf("exit %d:\n%s", r.code, r.err)
	}
	m := regexp.MustCompile(`engine auto: choosing batchops for the (?:at least )?(\d+) objects after "([^"]+)"; the (\d+) started here finish here`).FindStringSubmatch(r.err)
	if m == nil {
		t.Fatalf("stderr does not say auto handed over:\n%s", r.err)
	}
	rest, _ := strconv.Atoi(m[1])
	if !strings.Contains(r.err, "--job-startup/--job-rate") {
		t.Errorf("stderr does not say where the job's figures come from:\n%s", r.err)
	}
	id := jobID(t, r.out)
	done := regexp.MustCompile(`job ` + id + `: Complete, (\d+) of (\d+) tasks succeeded, 0 failed`).FindStringSubmatch(r.err)
	if done == nil || done[1] != done[2] {
		t.Fatalf("the job did not copy every object it was given:\n%s", r.err)
	}
	if n, _ := strconv.Atoi(done[1]); n < rest {
		t.Errorf("the job copied %d objects, fewer than the %d auto said were left", n, rest)
	}
	copied := map[string]bool{}
	for _, k := range s3test.ListKeys(t, e.sdk, e.dst, "") {
		copied[k] = true
	}
	var missing []string
	for _, k := range s3test.ListKeys(t, e.sdk, e.src, "") {
		if !copied[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d objects were copied by neither: %v", len(missing), missing[:min(len(missing), 5)])
	}
}

func TestCpEngineFlagsAJobCannotHonour(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newBatchEnv(t, fakecontrol.Options{})
	e.seed(t, map[string]string{"a/1.json": "new", "a/2.json": "new"})
	s3test.PutObject(t, e.sdk, e.dst, "nc/a/1.json", []byte("old"))
	t.Run("batchops refuses --no-clobber", func(t *testing.T) {
		r := e.run(ctx, append([]string{"cp", "--engine", "batchops", "--no-clobber", "--recursive", "s3://" + e.src, "s3://" + e.dst + "/nc/"}, e.jobFlags()...)...)
		if r.code != ExitUsage || !strings.Contains(r.err, "--no-clobber needs --engine local") {
			t.Errorf("exit %d, stderr %q; want a usage error about --no-clobber", r.code, r.err)
		}
	})
	t.Run("auto keeps --no-clobber by copying here", func(t *testing.T) {
		r := e.run(ctx, append([]string{"cp", "--engine", "auto", "--no-clobber", "--recursive", "s3://" + e.src, "s3://" + e.dst + "/nc/"}, e.jobFlags()...)...)
		if r.code != ExitOK || !strings.Contains(r.err, "engine auto: local: batchops cannot do this copy: --no-clobber") {
			t.Fatalf("exit %d, stderr:\n%s", r.code, r.err)
		}
		if got := string(s3test.GetObject(t, e.sdk, e.dst, "nc/a/1.json")); got != "old" {
			t.Errorf("nc/a/1.json = %q: --no-clobber was ignored", got)
		}
		if got := string(s3test.GetObject(t, e.sdk, e.dst, "nc/a/2.json")); got != "new" {
			t.Errorf("nc/a/2.json = %q, want it copied", got)
		}
	})
	t.Run("batchops without --recursive is the prefix error cp gives, and copies nothing", func(t *testing.T) {
		r := e.run(ctx, append([]string{"cp", "--engine", "batchops", "s3://" + e.src, "s3://" + e.dst + "/whole/"}, e.jobFlags()...)...)
		if r.code != ExitUsage || !strings.Contains(r.err, "is a prefix: use --recursive") {
			t.Errorf("exit %d, stderr %q; want the prefix usage error", r.code, r.err)
		}
		if got := s3test.ListKeys(t, e.sdk, e.dst, "whole/"); len(got) != 0 {
			t.Errorf("copied %v", got)
		}
		if ls := e.run(ctx, "batch", "ls"); ls.out != "" {
			t.Errorf("a job was created:\n%s", ls.out)
		}
	})
	t.Run("batchops of one object is refused", func(t *testing.T) {
		r := e.run(ctx, append([]string{"cp", "--engine", "batchops", "s3://" + e.src + "/a/1.json", "s3://" + e.dst + "/one/"}, e.jobFlags()...)...)
		if r.code != ExitUsage || !strings.Contains(r.err, "not one object") {
			t.Errorf("exit %d, stderr %q; want a usage error", r.code, r.err)
		}
	})
	t.Run("auto with --prefer cost keeps the copy here", func(t *testing.T) {
		r := e.run(ctx, append([]string{"cp", "--engine", "auto", "--prefer", "cost", "--recursive", "s3://" + e.src, "s3://" + e.dst + "/cost/"}, e.jobFlags()...)...)
		if r.code != ExitOK || !strings.Contains(r.err, "(prefer cost): local is cheaper") {
			t.Errorf("exit %d, stderr:\n%s", r.code, r.err)
		}
	})
	t.Run("an unknown --prefer is a usage error", func(t *testing.T) {
		r := e.run(ctx, "cp", "--engine", "auto", "--prefer", "speed", "--recursive", "s3://"+e.src, "s3://"+e.dst+"/x/")
		if r.code != ExitUsage || !strings.Contains(r.err, `--prefer "speed"`) {
			t.Errorf("exit %d, stderr %q", r.code, r.err)
		}
	})
}
