package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
)

func planTasks(t *testing.T, out string) []engine.Task {
	t.Helper()
	var tasks []engine.Task
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var task engine.Task
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&task); err != nil {
			t.Fatalf("plan line %q: %v", line, err)
		}
		task.ModTime = task.ModTime.UTC()
		tasks = append(tasks, task)
	}
	return tasks
}

func TestPlanPrintsTasksAndTouchesNothing(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	seedKeys(t, srv, bucket, "site/old.html", "site/same.css")
	local := t.TempDir()
	testfs.Write(t, local, map[string]string{"same.css": "body of site/same.css", "new.html": "new"})

	out := mustRun(t, srv, "plan", "sync", "--delete", "--size-only", local, "s3://"+bucket+"/site/")
	got := planTasks(t, out)
	for i := range got {
		if got[i].ModTime.IsZero() {
			t.Errorf("task %d has no modification time", i)
		}
	}
	want := []engine.Task{
		{Op: engine.OpUpload, Src: filepath.Join(local, "new.html"), Dst: "s3://" + bucket + "/site/new.html", SrcKey: "new.html", DstKey: "site/new.html", Size: 3, Reason: "missing at the destination"},
		{Op: engine.OpDelete, Src: "s3://" + bucket + "/site/old.html", SrcKey: "site/old.html", Size: 21, Reason: "only at the destination"},
	}
	opts := cmp.Options{
		cmp.FilterPath(func(p cmp.Path) bool {
			return p.Last().String() == ".ModTime" || p.Last().String() == ".ETag"
		}, cmp.Ignore()),
	}
	if diff := cmp.Diff(want, got, opts); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	keys := s3test.ListKeys(t, srv.Client(t), bucket, "")
	if diff := cmp.Diff([]string{"site/old.html", "site/same.css"}, keys); diff != "" {
		t.Errorf("planning changed the bucket (-want +got):\n%s", diff)
	}

	t.Run("a plan of a download makes no directory", func(t *testing.T) {
		down := filepath.Join(t.TempDir(), "new")
		out := mustRun(t, srv, "plan", "cp", "--recursive", "s3://"+bucket+"/site/", down)
		if n := len(planTasks(t, out)); n != 2 {
			t.Errorf("%d tasks, want 2:\n%s", n, out)
		}
		if _, err := os.Stat(down); !os.IsNotExist(err) {
			t.Errorf("plan made the destination (stat: %v)", err)
		}
	})
	t.Run("a plan of rm lists the deletes", func(t *testing.T) {
		out := mustRun(t, srv, "plan", "rm", "--recursive", "s3://"+bucket+"/")
		if n := len(planTasks(t, out)); n != 2 {
			t.Errorf("%d tasks, want 2:\n%s", n, out)
		}
		if n := len(s3test.ListKeys(t, srv.Client(t), bucket, "")); n != 2 {
			t.Errorf("%d objects left, want 2", n)
		}
	})
	t.Run("a plan of a move says it deletes the sources", func(t *testing.T) {
		out := mustRun(t, srv, "plan", "mv", "s3://"+bucket+"/site/old.html", "s3://"+bucket+"/moved.html")
		got := planTasks(t, out)
		if len(got) != 1 || !got[0].DeleteSource || got[0].Op != engine.OpCopy {
			t.Errorf("plan = %+v, want one copy deleting its source", got)
		}
	})
	t.Run("a plan over the limit of deletes fails", func(t *testing.T) {
		// The source is not empty: an empty one is refused before the limit.
		site := t.TempDir()
		testfs.Write(t, site, map[string]string{"new.html": "n"})
		_, errOut, code := runCLI(t, srv, "plan", "sync", "--delete", "--max-delete", "1", site, "s3://"+bucket+"/site/")
		if code != ExitFatal || !strings.Contains(errOut, "refusing to delete 2 objects") {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
	})
}
