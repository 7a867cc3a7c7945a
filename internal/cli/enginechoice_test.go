package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/s3bulk/s3bulk/internal/batchops/fakecontrol"
	"github.com/s3bulk/s3bulk/internal/s3test"
)

func TestCpEngineChoice(t *testing.T) {
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
