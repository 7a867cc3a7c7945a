package engine_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
)

// TestAProgramOutsideTheModuleUsesTheEngine builds testdata/outside, a
// module of its own that may import only s3bulk's public packages, and runs
// it against the embedded server: it copies a prefix between buckets
// (whole, then filtered as aws s3 filters),
// uploads a directory, syncs with deletes, reruns a copy that its journal
// (engine/journal) says is done, and reads the progress of each.
// If the API needed an internal package, the program would not compile.
// It builds offline: every module comes from the module cache.
func TestAProgramOutsideTheModuleUsesTheEngine(t *testing.T) {
	srv := s3test.Start(t)
	client := srv.Client(t)
	src, dst := srv.NewBucket(t), srv.NewBucket(t)
	s3test.PutObject(t, client, src, "logs/a.txt", []byte("alpha"))
	s3test.PutObject(t, client, src, "logs/b/c.txt", []byte("gamma!"))
	s3test.PutObject(t, client, src, "other/x.txt", []byte("not copied"))
	s3test.PutObject(t, client, dst, "sync/stale.txt", []byte("the source lacks it"))
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{"d.txt": "delta", "e/f.txt": "foxtrot"})

	mod := outsideModule(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	args := []string{"run"}
	if raceEnabled {
		args = append(args, "-race") // what this test binary compiled is in the build cache
	}
	cmd := exec.CommandContext(ctx, goTool(), append(args, ".", src, dst, dir)...)
	cmd.Dir = mod
	cmd.Env = append(outsideEnv(), srv.Env()...)
	cmd.Env = append(cmd.Env, "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go run the outside module: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	want := []string{
		"copy: copy copy/a.txt done",
		"copy: copy copy/b/c.txt done",
		"copy: 2 objects, 0 deleted, 0 failed; progress 2/2 done, 11 bytes, plan complete true",
		"filtered: copy filtered/b/c.txt done",
		"filtered: 1 objects, 0 deleted, 0 failed; progress 1/1 done, 6 bytes, plan complete true",
		"upload: upload upload/d.txt done",
		"upload: upload upload/e/f.txt done",
		"upload: 2 objects, 0 deleted, 0 failed; progress 2/2 done, 12 bytes, plan complete true",
		"sync: copy sync/a.txt done",
		"sync: copy sync/b/c.txt done",
		"sync: delete sync/stale.txt done",
		"sync: 3 objects, 1 deleted, 0 failed; progress 3/3 done, 11 bytes, plan complete true",
		"journal: copy resume/a.txt done",
		"journal: copy resume/b/c.txt done",
		"journal: 2 objects, 0 deleted, 0 failed; progress 2/2 done, 11 bytes, plan complete true",
		"rerun: skip resume/a.txt skipped",
		"rerun: skip resume/b/c.txt skipped",
		"rerun: 0 objects, 0 deleted, 0 failed; progress 0/2 done, 0 bytes, plan complete true",
		"missing key: NoMatchError true",
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSpace(stdout.String()), "\n")); diff != "" {
		t.Errorf("the program's output (-want +got):\n%s\nstderr:\n%s", diff, stderr.String())
	}
	// What the buckets hold, read with a client of the test's own.
	wantKeys := []string{"copy/a.txt", "copy/b/c.txt", "filtered/b/c.txt", "resume/a.txt", "resume/b/c.txt", "sync/a.txt", "sync/b/c.txt", "upload/d.txt", "upload/e/f.txt"}
	if diff := cmp.Diff(wantKeys, s3test.ListKeys(t, client, dst, "")); diff != "" {
		t.Errorf("destination keys (-want +got):\n%s", diff)
	}
	for key, body := range map[string]string{"copy/b/c.txt": "gamma!", "sync/a.txt": "alpha", "upload/e/f.txt": "foxtrot"} {
		if got := string(s3test.GetObject(t, client, dst, key)); got != body {
			t.Errorf("%s holds %q, want %q", key, got, body)
		}
	}
}

// outsideModule copies testdata/outside to a temporary directory, its
// replace directive pointing at this checkout, with this module's go.sum
// (the outside module needs no module this one does not).
func outsideModule(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"go.mod", "main.go"} {
		b, err := os.ReadFile(filepath.Join("testdata", "outside", name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "go.mod" {
			b = bytes.ReplaceAll(b, []byte("=> ../../.."), []byte("=> "+root))
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// goTool is the go command that runs this test.
func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); runtime.GOROOT() != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "go"
}

// outsideEnv is this process's environment without the AWS settings a
// developer may have (the server's replace them) or a go.work.
func outsideEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") && !strings.HasPrefix(kv, "GOFLAGS=") && !strings.HasPrefix(kv, "GOWORK=") {
			env = append(env, kv)
		}
	}
	return env
}
