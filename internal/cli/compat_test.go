package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
)

// These tests pin the points of docs/compat.md where s3bulk used to select
// other objects than the AWS CLI and s5cmd: wildcards are s5cmd's, filters
// the AWS CLI's, nothing selected is an error, folder markers are skipped
// and ls prints what aws s3 ls prints.

// tree is a source with a subtree, as in the cases of docs/compat.md.
var tree = map[string]string{
	"dir/a.json":         "a",
	"dir/b.tmp":          "bb",
	"dir/sub/c.json":     "ccc",
	"dir/sub/deep/h.tmp": "hhhh",
	"other/x.json":       "x",
}

func seedTree(t *testing.T, srv *s3test.Server, files map[string]string) string {
	t.Helper()
	bucket := srv.NewBucket(t)
	c := srv.Client(t)
	for k, v := range files {
		s3test.PutObject(t, c, bucket, k, []byte(v))
	}
	return bucket
}

func TestWildcardsAreS5cmds(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	src := seedTree(t, srv, tree)
	S := "s3://" + src

	tests := []struct {
		name string
		src  string
		want []string // destination keys below p/
	}{
		{"a star at the end copies the whole tree below", S + "/dir/*", []string{"a.json", "b.tmp", "sub/c.json", "sub/deep/h.tmp"}},
		{"a star before a suffix matches at every depth", S + "/dir/*.json", []string{"a.json", "sub/c.json"}},
		{"a double star is a star", S + "/dir/**", []string{"a.json", "b.tmp", "sub/c.json", "sub/deep/h.tmp"}},
		{"a question mark matches a slash", S + "/dir?sub?c.json", []string{"dir/sub/c.json"}},
		{"a star at the bucket root copies every key", S + "/*", []string{"dir/a.json", "dir/b.tmp", "dir/sub/c.json", "dir/sub/deep/h.tmp", "other/x.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := srv.NewBucket(t)
			mustRun(t, srv, "cp", tt.src, "s3://"+dst+"/p/")
			if diff := cmp.Diff(tt.want, s3test.ListKeys(t, srv.Client(t), dst, "p/"), cmp.Transformer("trim", func(k string) string { return strings.TrimPrefix(k, "p/") })); diff != "" {
				t.Errorf("copied (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("mv with a star moves the whole tree", func(t *testing.T) {
		from := seedTree(t, srv, tree)
		dst := srv.NewBucket(t)
		mustRun(t, srv, "mv", "s3://"+from+"/dir/*", "s3://"+dst+"/")
		if diff := cmp.Diff([]string{"other/x.json"}, s3test.ListKeys(t, srv.Client(t), from, "")); diff != "" {
			t.Errorf("left in the source (-want +got):\n%s", diff)
		}
		if n := len(s3test.ListKeys(t, srv.Client(t), dst, "")); n != 4 {
			t.Errorf("%d objects moved, want 4", n)
		}
	})

	t.Run("a local wildcard globs one directory level, as s5cmd's; a double star crosses them", func(t *testing.T) {
		local := t.TempDir()
		testfs.Write(t, local, tree)
		for _, c := range []struct {
			pattern string
			want    []string
		}{
			{"/*.json", []string{"a.json"}},
			{"/**.json", []string{"a.json", "sub/c.json"}},
		} {
			dst := srv.NewBucket(t)
			mustRun(t, srv, "cp", filepath.Join(local, "dir")+c.pattern, "s3://"+dst+"/")
			if diff := cmp.Diff(c.want, s3test.ListKeys(t, srv.Client(t), dst, "")); diff != "" {
				t.Errorf("dir%s uploaded (-want +got):\n%s", c.pattern, diff)
			}
		}
	})

	t.Run("a wildcard source needs a destination that is a prefix", func(t *testing.T) {
		dst := srv.NewBucket(t)
		_, errOut, code := runCLI(t, srv, "cp", S+"/dir/*", "s3://"+dst+"/p")
		if code != ExitUsage || !strings.Contains(errOut, "ending in '/'") {
			t.Errorf("exit %d, stderr %q; want %d and a hint", code, errOut, ExitUsage)
		}
		if n := len(s3test.ListKeys(t, srv.Client(t), dst, "")); n != 0 {
			t.Errorf("%d objects written", n)
		}
		mustRun(t, srv, "cp", S+"/dir/*.json", "s3://"+dst)        // a bucket is a directory
		mustRun(t, srv, "cp", S+"/dir/*.json", t.TempDir()+"/new") // and so is a local path
	})

	t.Run("a wildcard that matches nothing exits 1 with one line", func(t *testing.T) {
		for _, args := range [][]string{
			{"cp", S + "/dir/*.xyz", t.TempDir() + "/"},
			{"mv", S + "/dir/*.xyz", "s3://" + src + "/moved/"},
			{"rm", S + "/dir/*.xyz"},
		} {
			out, errOut, code := runCLI(t, srv, args...)
			lines := errorLines(errOut)
			if code != ExitPartial || len(lines) != 1 || lines[0] != "s3bulk: no object matches "+S+"/dir/*.xyz" || out != "" {
				t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
			}
		}
	})
}

func TestLiteralWildcardKeysNeedRaw(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	files := map[string]string{"k/a*b": "literal", "k/axb": "x", "k/a/b": "slash", "k/a?": "q", "k/ab": "ab"}
	for _, tt := range []struct {
		verb string
		key  string
	}{{"rm", "k/a*b"}, {"mv", "k/a?"}} {
		t.Run(tt.verb+" refuses a pattern that is also a key", func(t *testing.T) {
			bucket := seedTree(t, srv, files)
			args := []string{tt.verb, "s3://" + bucket + "/" + tt.key}
			if tt.verb == "mv" {
				args = append(args, "s3://"+bucket+"/moved/")
			}
			_, errOut, code := runCLI(t, srv, args...)
			if code != ExitUsage || !strings.Contains(errOut, "--raw") {
				t.Errorf("exit %d, stderr %q; want %d and a hint to use --raw", code, errOut, ExitUsage)
			}
			// Compared as sets: the listing's order is the server's (s3rver's
			// is not S3's byte order).
			if diff := cmp.Diff(keys(files), slices.Sorted(slices.Values(s3test.ListKeys(t, srv.Client(t), bucket, "")))); diff != "" {
				t.Errorf("refused, yet the bucket changed (-want +got):\n%s", diff)
			}
			if tt.verb == "mv" {
				srv.Require(t, s3test.OddKeys) // a CopyObject from "k/a?"
			}
			raw := append([]string{args[0], "--raw"}, args[1:]...)
			mustRun(t, srv, raw...)
			left := slices.Sorted(slices.Values(s3test.ListKeys(t, srv.Client(t), bucket, "k/")))
			want := keys(files)
			want = slicesDelete(want, tt.key)
			if diff := cmp.Diff(want, left); diff != "" {
				t.Errorf("--raw: left (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("a pattern that names no key is a pattern", func(t *testing.T) {
		bucket := seedTree(t, srv, files)
		mustRun(t, srv, "rm", "s3://"+bucket+"/k/a*")
		if left := s3test.ListKeys(t, srv.Client(t), bucket, ""); len(left) != 0 {
			t.Errorf("left %v, want every match deleted", left)
		}
	})
}

func slicesDelete(s []string, v string) []string {
	out := s[:0]
	for _, x := range s {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}

func TestFiltersAreAWSs(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	t.Run("rm keeps an excluded subtree at every depth", func(t *testing.T) {
		bucket := seedTree(t, srv, tree)
		mustRun(t, srv, "rm", "--recursive", "--exclude", "sub/*", "s3://"+bucket+"/dir/")
		want := []string{"dir/sub/c.json", "dir/sub/deep/h.tmp", "other/x.json"}
		if diff := cmp.Diff(want, s3test.ListKeys(t, srv.Client(t), bucket, "")); diff != "" {
			t.Errorf("left (-want +got):\n%s", diff)
		}
	})
	t.Run("sync --delete never deletes an excluded destination object", func(t *testing.T) {
		bucket := seedTree(t, srv, map[string]string{"sub/deep/old.tmp": "dest only", "sub/x": "dest only", "gone.txt": "dest only"})
		local := t.TempDir()
		testfs.Write(t, local, map[string]string{"a.json": "a"})
		mustRun(t, srv, "sync", "--delete", "--exclude", "sub/*", local, "s3://"+bucket+"/")
		want := []string{"a.json", "sub/deep/old.tmp", "sub/x"}
		if diff := cmp.Diff(want, s3test.ListKeys(t, srv.Client(t), bucket, "")); diff != "" {
			t.Errorf("bucket (-want +got):\n%s", diff)
		}
	})
	for _, tt := range []struct {
		name  string
		flags []string
		want  []string
	}{
		{"exclude everything then include copies the includes", []string{"--exclude", "*", "--include", "*.json"}, []string{"a.json", "sub/c.json"}},
		{"a class selects one character", []string{"--exclude", "[ab].*"}, []string{"sub/c.json", "sub/deep/h.tmp"}},
		{"a negated class", []string{"--exclude", "sub/[!c]*"}, []string{"a.json", "b.tmp", "sub/c.json"}},
		{"an include first selects", []string{"--include", "*.tmp"}, []string{"b.tmp", "sub/deep/h.tmp"}},
		{"a later include re-adds", []string{"--exclude", "sub/*", "--include", "*.tmp"}, []string{"a.json", "b.tmp", "sub/deep/h.tmp"}},
	} {
		t.Run("cp "+tt.name, func(t *testing.T) {
			src := seedTree(t, srv, tree)
			dir := t.TempDir()
			mustRun(t, srv, append(append([]string{"cp", "--recursive"}, tt.flags...), "s3://"+src+"/dir/", dir)...)
			if diff := cmp.Diff(tt.want, keys(testfs.Read(t, dir))); diff != "" {
				t.Errorf("downloaded (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNothingSelected(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	bucket := seedTree(t, srv, tree)
	S := "s3://" + bucket
	t.Run("ls of a missing key or prefix exits 1", func(t *testing.T) {
		for _, u := range []string{S + "/nope", S + "/nope/", S + "/dir/a.jsonx"} {
			for _, flags := range [][]string{nil, {"--recursive"}, {"--json"}} {
				out, errOut, code := runCLI(t, srv, append(append([]string{"ls"}, flags...), u)...)
				if code != ExitPartial || out != "" || !strings.Contains(errOut, "no object matches "+u) {
					t.Errorf("ls %v %s: exit %d, stdout %q, stderr %q", flags, u, code, out, errOut)
				}
			}
		}
		for _, u := range []string{S + "/dir/a.json", S + "/dir", S + "/di", S} {
			mustRun(t, srv, "ls", u)
		}
		mustRun(t, srv, "ls", "s3://"+srv.NewBucket(t)) // an empty bucket is no error
	})
	t.Run("cp --recursive of an empty prefix exits 0 with a warning", func(t *testing.T) {
		dst := srv.NewBucket(t)
		_, errOut, code := runCLI(t, srv, "cp", "--recursive", S+"/empty/", "s3://"+dst+"/")
		if code != ExitOK || !strings.Contains(errOut, "warning: no object under "+S+"/empty/") {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
	})
	t.Run("sync --delete from an empty source refuses", func(t *testing.T) {
		dst := seedTree(t, srv, tree)
		empty := t.TempDir()
		_, errOut, code := runCLI(t, srv, "sync", "--delete", empty, "s3://"+dst+"/dir/")
		if code != ExitUsage || !strings.Contains(errOut, "--allow-empty-source") || len(errorLines(errOut)) != 1 {
			t.Errorf("exit %d, stderr %q; want %d and a hint", code, errOut, ExitUsage)
		}
		if n := len(s3test.ListKeys(t, srv.Client(t), dst, "")); n != len(tree) {
			t.Errorf("%d objects left, want all %d", n, len(tree))
		}
		_, _, code = runCLI(t, srv, "--dry-run", "sync", "--delete", empty, "s3://"+dst+"/dir/")
		if code != ExitUsage {
			t.Errorf("a dry run: exit %d, want %d", code, ExitUsage)
		}
		mustRun(t, srv, "sync", "--delete", "--allow-empty-source", empty, "s3://"+dst+"/dir/")
		if diff := cmp.Diff([]string{"other/x.json"}, s3test.ListKeys(t, srv.Client(t), dst, "")); diff != "" {
			t.Errorf("--allow-empty-source: left (-want +got):\n%s", diff)
		}
		// An empty source over an empty destination has nothing to refuse.
		mustRun(t, srv, "sync", "--delete", empty, "s3://"+dst+"/dir/")
	})
}

func TestFolderMarkersAreSkipped(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	// dir/ is the marker of the prefix copied itself: left out silently.
	files := map[string]string{"dir/": "", "dir/a.json": "a", "dir/sub/": "", "dir/sub/b.json": "b", "dir/empty/": ""}
	t.Run("cp --recursive to S3 and to a directory", func(t *testing.T) {
		src := seedTree(t, srv, files)
		dst := srv.NewBucket(t)
		_, errOut, code := runCLI(t, srv, "cp", "--recursive", "s3://"+src+"/dir/", "s3://"+dst+"/p/")
		if code != ExitOK || !strings.Contains(errOut, "2 skipped") || !strings.Contains(errOut, "0 failed") {
			t.Errorf("exit %d, stderr %q; want 0 with 2 skipped", code, errOut)
		}
		if diff := cmp.Diff([]string{"p/a.json", "p/sub/b.json"}, s3test.ListKeys(t, srv.Client(t), dst, "")); diff != "" {
			t.Errorf("copied (-want +got):\n%s", diff)
		}
		local := t.TempDir()
		_, errOut, code = runCLI(t, srv, "cp", "--recursive", "s3://"+src+"/dir/", local)
		if code != ExitOK || !strings.Contains(errOut, "2 skipped") {
			t.Errorf("download: exit %d, stderr %q", code, errOut)
		}
		if diff := cmp.Diff([]string{"a.json", "sub/b.json"}, keys(testfs.Read(t, local))); diff != "" {
			t.Errorf("downloaded (-want +got):\n%s", diff)
		}
		if _, err := os.Stat(filepath.Join(local, "empty")); err == nil {
			t.Errorf("a folder marker became a directory")
		}
	})
	t.Run("mv leaves the markers in place", func(t *testing.T) {
		src := seedTree(t, srv, files)
		dst := srv.NewBucket(t)
		mustRun(t, srv, "mv", "s3://"+src+"/dir/*", "s3://"+dst+"/")
		if diff := cmp.Diff([]string{"dir/", "dir/empty/", "dir/sub/"}, s3test.ListKeys(t, srv.Client(t), src, "")); diff != "" {
			t.Errorf("left (-want +got):\n%s", diff)
		}
	})
	t.Run("sync skips source markers and never deletes destination ones", func(t *testing.T) {
		src := seedTree(t, srv, files)
		dst := seedTree(t, srv, map[string]string{"p/old.json": "o", "p/keep/": "", "p/sub/": ""})
		_, errOut, code := runCLI(t, srv, "sync", "--delete", "s3://"+src+"/dir/", "s3://"+dst+"/p/")
		if code != ExitOK {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
		want := []string{"p/a.json", "p/keep/", "p/sub/", "p/sub/b.json"}
		if diff := cmp.Diff(want, s3test.ListKeys(t, srv.Client(t), dst, "")); diff != "" {
			t.Errorf("destination (-want +got):\n%s", diff)
		}
		local := t.TempDir()
		_, errOut, code = runCLI(t, srv, "sync", "s3://"+src+"/dir/", local)
		if code != ExitOK {
			t.Errorf("download: exit %d, stderr %q", code, errOut)
		}
		if diff := cmp.Diff([]string{"a.json", "sub/b.json"}, keys(testfs.Read(t, local))); diff != "" {
			t.Errorf("downloaded (-want +got):\n%s", diff)
		}
	})
	t.Run("a source of markers only is empty to sync --delete", func(t *testing.T) {
		src := seedTree(t, srv, map[string]string{"dir/m/": ""})
		dst := seedTree(t, srv, map[string]string{"x": "x"})
		_, _, code := runCLI(t, srv, "sync", "--delete", "s3://"+src+"/dir/", "s3://"+dst+"/")
		if code != ExitUsage {
			t.Errorf("exit %d, want %d", code, ExitUsage)
		}
	})
}

var (
	lsObjectLine = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [ \d]{10} (.*)$`)
	lsBucketLine = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (\S+)$`)
)

func TestLsLooksLikeAWS(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	bucket := seedTree(t, srv, map[string]string{
		"dir/a.json": "a", "dir/sub/c.json": strings.Repeat("c", 1536), "dir/zz/d": "", "dir/ab": "ab", "top": "t",
	})
	S := "s3://" + bucket
	names := func(t *testing.T, out string) (pre, objs []string) {
		t.Helper()
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if rest, ok := strings.CutPrefix(l, strings.Repeat(" ", 27)+"PRE "); ok {
				if len(objs) > 0 {
					t.Errorf("PRE line %q after an object line", l)
				}
				pre = append(pre, rest)
				continue
			}
			m := lsObjectLine.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("line %q is not an aws s3 ls line", l)
			}
			objs = append(objs, m[1])
		}
		return pre, objs
	}
	for _, tt := range []struct {
		name      string
		args      []string
		pre, objs []string
	}{
		{"one level names things relative to the prefix", []string{S + "/dir/"}, []string{"sub/", "zz/"}, []string{"a.json", "ab"}},
		{"a prefix without a slash lists the level it is in", []string{S + "/dir/a"}, nil, []string{"a.json", "ab"}},
		{"a name prefix lists the prefixes it starts", []string{S + "/di"}, []string{"dir/"}, nil},
		{"the bucket root", []string{S}, []string{"dir/"}, []string{"top"}},
		{"recursive prints full keys", []string{"--recursive", S + "/dir/"}, nil, []string{"dir/a.json", "dir/ab", "dir/sub/c.json", "dir/zz/d"}},
		{"a wildcard prints full keys", []string{S + "/dir/*.json"}, nil, []string{"dir/a.json", "dir/sub/c.json"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pre, objs := names(t, mustRun(t, srv, append([]string{"ls"}, tt.args...)...))
			if diff := cmp.Diff(tt.pre, pre); diff != "" {
				t.Errorf("PRE lines (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.objs, objs); diff != "" {
				t.Errorf("object lines (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("sizes are right-aligned in ten columns", func(t *testing.T) {
		out := mustRun(t, srv, "ls", S+"/dir/sub/")
		if want := "       1536 c.json\n"; !strings.HasSuffix(out, want) || len(out) != 19+len(want) {
			t.Errorf("line %q, want it to end in %q after the date", out, want)
		}
	})
	t.Run("human-readable and summarize are aws's", func(t *testing.T) {
		out := mustRun(t, srv, "ls", "--recursive", "--human-readable", "--summarize", S+"/dir/")
		for _, want := range []string{"    1 Byte dir/a.json\n", "   2 Bytes dir/ab\n", "   1.5 KiB dir/sub/c.json\n", "   0 Bytes dir/zz/d\n",
			"\nTotal Objects: 4\n   Total Size: 1.5 KiB\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		out = mustRun(t, srv, "ls", "--summarize", S+"/dir/")
		if !strings.HasSuffix(out, "\nTotal Objects: 2\n   Total Size: 3\n") {
			t.Errorf("one-level summary counts the objects of the level:\n%s", out)
		}
	})
	t.Run("the bucket list is date and name", func(t *testing.T) {
		found := false
		for _, l := range strings.Split(strings.TrimSpace(mustRun(t, srv, "ls")), "\n") {
			m := lsBucketLine.FindStringSubmatch(l)
			if m == nil {
				t.Errorf("line %q is not an aws s3 ls bucket line", l)
				continue
			}
			found = found || m[1] == bucket
		}
		if !found {
			t.Errorf("bucket %s not listed", bucket)
		}
	})
}
