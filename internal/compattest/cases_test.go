package compattest

import (
	"slices"

	"github.com/s3bulk/s3bulk/internal/s3test"
)

// Bodies name their origin, so a key's body says which source it came
// from: "src:KEY" for a source object, "dst:KEY" for an object already in
// the destination, "loc:PATH" for a local file. "dst:old:KEY" is a stale
// destination object (another size, so every tool's sync replaces it).

// tagged makes objects whose bodies are tag followed by their key.
func tagged(tag string, keys ...string) []obj {
	out := make([]obj, len(keys))
	for i, k := range keys {
		out[i] = obj{k, tag + k}
	}
	return out
}

func src(keys ...string) []obj   { return tagged("src:", keys...) }
func dst(keys ...string) []obj   { return tagged("dst:", keys...) }
func stale(keys ...string) []obj { return tagged("dst:old:", keys...) }

func loc(paths ...string) []lfile {
	out := make([]lfile, len(paths))
	for i, p := range paths {
		out[i] = lfile{p, "loc:" + p}
	}
	return out
}

func empty(key string) obj { return obj{key, ""} }

// objects is what a bucket seeded with objs holds.
func objects(objs []obj) map[string]string {
	m := map[string]string{}
	for _, o := range objs {
		m[o.key] = o.body
	}
	return m
}

// files is what a local directory seeded with fs holds.
func files(fs []lfile) map[string]string {
	m := map[string]string{}
	for _, f := range fs {
		m[f.path] = f.body
	}
	return m
}

func join[T any](parts ...[]T) []T {
	var out []T
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// tree is the source most cases start from: three levels, two kinds of
// file at each.
var tree = src(
	"dir/a.json",
	"dir/b.txt",
	"dir/sub/c.json",
	"dir/sub/d.tmp",
	"dir/sub/deep/h.tmp",
	"top.json",
)

// oddNames are names that break naive URL, shell and pattern handling.
var oddNames = []string{
	"odd/with space.txt",
	"odd/ünïcödé-日本.txt",
	"odd/plus+sign.txt",
	"odd/percent%20x.txt",
	"odd/equals=sign.txt",
	"odd/hash#tag.txt",
	"odd/[bracket].txt",
}

// odd are oddNames as keys, and one key more.
var odd = src(append(slices.Clip(oddNames), "odd/semi;colon.txt")...)

var oddLocal = loc(oddNames...)

// localTree is tree as files.
var localTree = loc(
	"dir/a.json",
	"dir/b.txt",
	"dir/sub/c.json",
	"dir/sub/d.tmp",
	"dir/sub/deep/h.tmp",
)

// markers is a tree with zero-byte folder markers, as consoles make them.
var markers = join(
	[]obj{empty("dir/"), empty("dir/sub/"), empty("dir/none/")},
	src("dir/a.json", "dir/sub/c.json"),
)

// syncData is a sync source; syncDst the destination it meets: one object
// the same (same size, not older), one stale, one the source lacks.
var (
	syncData = src("data/same.json", "data/stale.txt", "data/new/n.json", "data/x.tmp")
	syncDst  = join(dst("data/same.json", "data/gone.txt", "data/keep.tmp"), stale("data/stale.txt"))
	syncLoc  = loc("data/same.json", "data/stale.txt", "data/new/n.json", "data/x.tmp")
	// syncLocDst is syncDst as local files, newer than the objects.
	syncLocDst = []lfile{
		{"data/same.json", "dst:data/same.json"},
		{"data/gone.txt", "dst:data/gone.txt"},
		{"data/keep.tmp", "dst:data/keep.tmp"},
		{"data/stale.txt", "dst:old:data/stale.txt"},
	}
)

var cases = []tcase{
	// Single objects.
	{name: "single/key-to-key", src: tree, cmd: []string{"cp", "@src/dir/a.json", "@dst/p/x.json"}, verdict: asBoth},
	{name: "single/key-to-prefix", src: tree, cmd: []string{"cp", "@src/dir/a.json", "@dst/p/"}, verdict: asBoth},
	{name: "single/key-to-bucket", src: tree, cmd: []string{"cp", "@src/dir/a.json", "@dst"}, verdict: asBoth},
	{name: "single/key-to-bucket-slash", src: tree, cmd: []string{"cp", "@src/dir/a.json", "@dst/"}, verdict: asBoth},
	{name: "single/download-into-dir", src: tree, cmd: []string{"cp", "@src/dir/sub/c.json", "@local/"}, verdict: asBoth},
	{name: "single/download-to-name", src: tree, cmd: []string{"cp", "@src/dir/sub/c.json", "@local/named.json"}, verdict: asBoth},
	{name: "single/download-into-existing-dir-bare", src: tree, loc: []lfile{{"out/", ""}}, cmd: []string{"cp", "@src/dir/a.json", "@local/out"}, verdict: asBoth},
	{name: "single/upload-to-prefix", loc: localTree, cmd: []string{"cp", "@local/dir/b.txt", "@dst/p/"}, verdict: asBoth},
	{name: "single/upload-to-key", loc: localTree, cmd: []string{"cp", "@local/dir/b.txt", "@dst/p/renamed.txt"}, verdict: asBoth},
	{name: "single/upload-to-bucket", loc: localTree, cmd: []string{"cp", "@local/dir/b.txt", "@dst"}, verdict: asBoth},
	{name: "single/missing-key", src: tree, cmd: []string{"cp", "@src/dir/nope.json", "@dst/p/"}, verdict: asBoth},
	{name: "single/missing-local-file", cmd: []string{"cp", "@local/nope.txt", "@dst/p/"}, verdict: asBoth},
	{name: "single/prefix-without-recursive", src: tree, cmd: []string{"cp", "@src/dir/", "@dst/p/"}, verdict: asBoth},
	{name: "single/empty-object", src: join(tree, []obj{empty("dir/zero.txt")}), cmd: []string{"cp", "@src/dir/zero.txt", "@dst/p/"}, verdict: asBoth},
	{name: "single/empty-object-download", src: []obj{empty("dir/zero.txt")}, cmd: []string{"cp", "@src/dir/zero.txt", "@local/"}, verdict: asBoth,
		elsewhere: []elsewhere{brokenEmptyRange("zero.txt")}},
	{name: "single/mv", src: tree, cmd: []string{"mv", "@src/dir/a.json", "@dst/p/"}, verdict: asBoth},
	{name: "single/mv-download", src: tree, cmd: []string{"mv", "@src/dir/a.json", "@local/"}, verdict: asBoth},
	{name: "single/rm", src: tree, cmd: []string{"rm", "@src/dir/a.json"}, verdict: asBoth},
	{name: "single/rm-missing-key", src: tree, cmd: []string{"rm", "@src/dir/nope.json"}, verdict: asBoth},
	{name: "single/rm-prefix-without-recursive", src: tree, cmd: []string{"rm", "@src/dir/"}, verdict: asBoth,
		elsewhere: []elsewhere{{unless: prefixDelete, peers: map[string]func(*outcome){"aws": succeeds}, verdict: asS5cmd,
			why: "aws's DeleteObject of dir/ succeeds there, deleting nothing, and aws exits 0 (as on S3); s3bulk refuses a prefix without --recursive, as s5cmd does"}}},

	// Every trailing-slash spelling of a recursive copy.
	{name: "slash/src-slash-dst-slash", src: tree, cmd: []string{"cp", "--recursive", "@src/dir/", "@dst/p/"}, verdict: asBoth},
	{name: "slash/src-bare-dst-slash", src: tree, cmd: []string{"cp", "--recursive", "@src/dir", "@dst/p/"}, verdict: asBoth},
	{name: "slash/src-slash-dst-bare", src: tree, cmd: []string{"cp", "--recursive", "@src/dir/", "@dst/p"}, verdict: asAWS,
		note: "--recursive is aws's form and takes p as a prefix; s5cmd's wildcard form wants p/"},
	{name: "slash/src-bare-dst-bare", src: tree, cmd: []string{"cp", "--recursive", "@src/dir", "@dst/p"}, verdict: asAWS,
		note: "--recursive is aws's form and takes p as a prefix; s5cmd's wildcard form wants p/"},
	{name: "slash/to-bucket", src: tree, cmd: []string{"cp", "--recursive", "@src/dir/", "@dst"}, verdict: asBoth},
	{name: "slash/whole-bucket", src: tree, cmd: []string{"cp", "--recursive", "@src", "@dst/p/"}, verdict: asBoth},
	{name: "slash/whole-bucket-slash", src: tree, cmd: []string{"cp", "--recursive", "@src/", "@dst/p/"}, verdict: asBoth},
	{name: "slash/sibling-prefix", src: join(tree, src("dirx/y.json", "dir.json")), cmd: []string{"cp", "--recursive", "@src/dir", "@dst/p/"}, verdict: asBoth},
	{name: "slash/upload-dir-slash", loc: localTree, cmd: []string{"cp", "--recursive", "@local/dir/", "@dst/p/"}, verdict: asBoth},
	{name: "slash/upload-dir-bare", loc: localTree, cmd: []string{"cp", "--recursive", "@local/dir", "@dst/p/"}, verdict: asBoth},
	{name: "slash/download-to-dir-bare", src: tree, cmd: []string{"cp", "--recursive", "@src/dir/", "@local/out"}, verdict: asBoth},
	{name: "slash/download-to-dir-slash", src: tree, cmd: []string{"cp", "--recursive", "@src/dir/", "@local/out/"}, verdict: asBoth},

	// --recursive.
	{name: "recursive/empty-prefix", src: tree, cmd: []string{"cp", "--recursive", "@src/none/", "@dst/p/"}, verdict: asAWS,
		stderr: `s3://[^ ]+/none/`, note: "aws exits 0 for a prefix with nothing under it (s3bulk warns); s5cmd exits 1"},
	{name: "recursive/rm", src: tree, cmd: []string{"rm", "--recursive", "@src/dir/"}, verdict: asBoth},
	{name: "recursive/mv", src: tree, cmd: []string{"mv", "--recursive", "@src/dir/", "@dst/p/"}, verdict: asBoth},
	{name: "recursive/mv-download", src: tree, cmd: []string{"mv", "--recursive", "@src/dir/sub/", "@local/"}, verdict: asBoth},
	{name: "recursive/mv-upload", loc: localTree, cmd: []string{"mv", "--recursive", "@local/dir/", "@dst/p/"}, verdict: deliberate,
		want: &outcome{Dst: map[string]string{"p/a.json": "loc:dir/a.json", "p/b.txt": "loc:dir/b.txt", "p/sub/c.json": "loc:dir/sub/c.json", "p/sub/d.tmp": "loc:dir/sub/d.tmp", "p/sub/deep/h.tmp": "loc:dir/sub/deep/h.tmp"},
			Local: map[string]string{"dir/": ""}},
		note: "a local tree goes with its last file, as a prefix does: the emptied directories below dir/ are removed; aws and s5cmd leave them"},

	// Wildcards in paths: s5cmd's. aws has none.
	{name: "wild/star-takes-the-tree", src: tree, cmd: []string{"cp", "@src/dir/*", "@dst/p/"}, aws: na, verdict: asS5cmd},
	{name: "wild/star-crosses-slash", src: tree, cmd: []string{"cp", "@src/dir/*.json", "@dst/p/"}, aws: na, verdict: asS5cmd},
	{name: "wild/star-mid-path", src: tree, cmd: []string{"cp", "@src/dir/*/c.json", "@dst/p/"}, aws: na, verdict: asS5cmd},
	{name: "wild/star-deep", src: tree, cmd: []string{"cp", "@src/dir/sub/deep/*", "@dst/p/"}, aws: na, verdict: asS5cmd},
	{name: "wild/star-in-name", src: tree, cmd: []string{"cp", "@src/dir/sub/*.t*p", "@dst/p/"}, aws: na, verdict: asS5cmd},
	{name: "wild/star-bucket-root", src: src("a/x.json", "b/c/y.json"), cmd: []string{"cp", "@src/*", "@dst/p/"}, aws: na, verdict: asS5cmd},
	{name: "wild/double-star", src: tree, cmd: []string{"cp", "@src/dir/**.tmp", "@dst/p/"}, aws: na, verdict: asS5cmd},
	{name: "wild/double-star-mid-path", src: tree, cmd: []string{"cp", "@src/dir/**/c.json", "@dst/p/"}, aws: na, verdict: asS5cmd},
	{name: "wild/question", src: tree, cmd: []string{"cp", "@src/dir/?.json", "@dst/p/"}, aws: na, verdict: asS5cmd},
	{name: "wild/question-and-slash", src: tree, cmd: []string{"cp", "@src/dir?a.json", "@dst/p/"}, aws: na, verdict: asS5cmd},
	{name: "wild/no-match", src: tree, cmd: []string{"cp", "@src/dir/*.csv", "@dst/p/"}, aws: na, verdict: asS5cmd,
		stderr: `no object matches s3://[^ ]+/dir/\*\.csv`},
	{name: "wild/no-match-rm", src: tree, cmd: []string{"rm", "@src/dir/*.csv"}, aws: na, verdict: asS5cmd},
	{name: "wild/download", src: tree, cmd: []string{"cp", "@src/dir/*.json", "@local/"}, aws: na, verdict: asS5cmd},
	{name: "wild/mv", src: tree, cmd: []string{"mv", "@src/dir/*", "@dst/p/"}, aws: na, verdict: asS5cmd},
	{name: "wild/rm", src: tree, cmd: []string{"rm", "@src/dir/*.tmp"}, aws: na, verdict: asS5cmd},
	// A local wildcard globs one directory level per '*', as s5cmd (and a
	// shell) does, and takes a directory it names whole.
	{name: "wild/local-star-one-level", loc: localTree, cmd: []string{"cp", "@local/dir/*.tmp", "@dst/p/"}, aws: na, verdict: asS5cmd},
	{name: "wild/local-star-skips-subdirectories", loc: localTree, cmd: []string{"cp", "@local/dir/*.json", "@dst/p/"}, aws: na, verdict: asS5cmd},
	{name: "wild/local-star-mid-path", loc: localTree, cmd: []string{"cp", "@local/dir/*/c.json", "@dst/p/"}, aws: na, verdict: asS5cmd},
	{name: "wild/local-star-names-a-directory", loc: localTree, cmd: []string{"cp", "@local/dir/s*", "@dst/p/"}, aws: na, verdict: asS5cmd},
	{name: "wild/local-question", loc: localTree, cmd: []string{"cp", "@local/dir/?.json", "@dst/p/"}, aws: na, verdict: asS5cmd},
	{name: "wild/local-double-star", loc: localTree, cmd: []string{"cp", "@local/dir/**.tmp", "@dst/p/"}, aws: na, verdict: deliberate,
		want: &outcome{Dst: map[string]string{"p/sub/d.tmp": "loc:dir/sub/d.tmp", "p/sub/deep/h.tmp": "loc:dir/sub/deep/h.tmp"}, Local: files(localTree)},
		note: "'**' crosses directory levels in a local path, as '*' does in an S3 key; s5cmd's filepath.Glob reads '**' as '*' and finds no *.tmp in dir/"},
	{name: "wild/local-source", loc: localTree, cmd: []string{"cp", "@local/dir/*", "@dst/p/"}, aws: na, verdict: asS5cmd},
	{name: "wild/local-odd-names", loc: oddLocal, cmd: []string{"cp", "@local/odd/*", "@dst/p/"}, aws: na, verdict: asS5cmd},
	{name: "wild/mv-download", src: tree, cmd: []string{"mv", "@src/dir/sub/*", "@local/"}, aws: na, verdict: asS5cmd},
	{name: "wild/dst-not-a-prefix", src: tree, cmd: []string{"cp", "@src/dir/*", "@dst/p"}, aws: na, verdict: asS5cmd},
	{name: "wild/literal-star-cp", src: src("lit/a*b.txt", "lit/aXb.txt"), cmd: []string{"cp", "@src/lit/a*b.txt", "@dst/p/"}, aws: na, verdict: asS5cmd},
	{name: "wild/literal-question-cp", src: src("lit/q?.txt", "lit/qa.txt"), cmd: []string{"cp", "@src/lit/q?.txt", "@dst/p/"}, aws: na, verdict: asS5cmd,
		needs: []s3test.Capability{s3test.OddKeys}},
	{name: "wild/literal-star-rm-raw", src: src("lit/a*b.txt", "lit/aXb.txt"), cmd: []string{"rm", "--raw", "@src/lit/a*b.txt"},
		aws: []string{"rm", "@src/lit/a*b.txt"}, verdict: asBoth},
	{name: "wild/literal-star-rm-refused", src: src("lit/a*b.txt", "lit/aXb.txt"), cmd: []string{"rm", "@src/lit/a*b.txt"}, verdict: deliberate,
		want:   &outcome{Exit: 1, Src: map[string]string{"lit/a*b.txt": "src:lit/a*b.txt", "lit/aXb.txt": "src:lit/aXb.txt"}},
		stderr: `--raw`, code: 2, note: "the pattern also names a key: aws deletes that key, s5cmd every match; s3bulk asks which with --raw"},
	{name: "wild/literal-question-mv-refused", src: src("lit/q?.txt", "lit/qa.txt"), cmd: []string{"mv", "@src/lit/q?.txt", "@dst/p/"}, verdict: deliberate,
		want:   &outcome{Exit: 1, Src: map[string]string{"lit/q?.txt": "src:lit/q?.txt", "lit/qa.txt": "src:lit/qa.txt"}},
		stderr: `--raw`, code: 2, note: "the pattern also names a key: aws moves that key, s5cmd every match; s3bulk asks which with --raw",
		needs: []s3test.Capability{s3test.OddKeys}},

	// Filters: aws's.
	{name: "filter/exclude-dir-star-rm", src: tree, cmd: []string{"rm", "--recursive", "--exclude", "sub/*", "@src/dir/"}, verdict: asBoth},
	{name: "filter/exclude-dir-star-cp", src: tree, cmd: []string{"cp", "--recursive", "--exclude", "sub/*", "@src/dir/", "@dst/p/"}, verdict: asBoth},
	{name: "filter/exclude-all-include-json", src: tree, cmd: []string{"cp", "--recursive", "--exclude", "*", "--include", "*.json", "@src/dir/", "@dst/p/"}, verdict: asAWS},
	{name: "filter/include-then-exclude-all", src: tree, cmd: []string{"cp", "--recursive", "--include", "*.json", "--exclude", "*", "@src/dir/", "@dst/p/"}, verdict: asBoth},
	{name: "filter/later-include-wins", src: tree, cmd: []string{"cp", "--recursive", "--exclude", "*.tmp", "--include", "sub/deep/*", "@src/dir/", "@dst/p/"}, verdict: asAWS},
	{name: "filter/include-alone", src: tree, cmd: []string{"cp", "--recursive", "--include", "*.tmp", "@src/dir/", "@dst/p/"}, verdict: asS5cmd,
		note: "a first --include selects: as s5cmd; aws copies everything"},
	{name: "filter/rm-include-alone", src: tree, cmd: []string{"rm", "--recursive", "--include", "*.tmp", "@src/dir/"}, verdict: asS5cmd,
		note: "a first --include selects: as s5cmd; aws deletes everything"},
	{name: "filter/class", src: join(tree, src("dir/c.json")), cmd: []string{"cp", "--recursive", "--exclude", "[ab].json", "@src/dir/", "@dst/p/"}, verdict: asAWS},
	{name: "filter/negated-class", src: join(tree, src("dir/c.json")), cmd: []string{"cp", "--recursive", "--exclude", "[!a].json", "@src/dir/", "@dst/p/"}, verdict: asAWS},
	{name: "filter/slash-in-pattern", src: tree, cmd: []string{"cp", "--recursive", "--exclude", "sub/deep/*", "@src/dir/", "@dst/p/"}, verdict: asBoth},
	{name: "filter/question", src: tree, cmd: []string{"cp", "--recursive", "--exclude", "?.json", "@src/dir/", "@dst/p/"}, verdict: asBoth},
	{name: "filter/question-crosses-slash", src: tree, cmd: []string{"cp", "--recursive", "--exclude", "sub?c.json", "@src/dir/", "@dst/p/"}, verdict: asBoth},
	{name: "filter/class-range", src: join(tree, src("dir/c.json")), cmd: []string{"cp", "--recursive", "--exclude", "[a-b]*", "@src/dir/", "@dst/p/"}, verdict: asAWS},
	{name: "filter/pattern-names-the-source-prefix", src: tree, cmd: []string{"cp", "--recursive", "--exclude", "dir/sub/*", "@src/dir/", "@dst/p/"}, verdict: asBoth},
	{name: "filter/mv-exclude", src: tree, cmd: []string{"mv", "--recursive", "--exclude", "*.tmp", "@src/dir/", "@dst/p/"}, verdict: asBoth},
	{name: "filter/rm-exclude-ext", src: tree, cmd: []string{"rm", "--recursive", "--exclude", "*.json", "@src/dir/"}, verdict: asBoth},
	{name: "filter/rm-exclude-all-include", src: tree, cmd: []string{"rm", "--recursive", "--exclude", "*", "--include", "*.tmp", "@src/dir/"}, verdict: asAWS},
	{name: "filter/upload-exclude-dir", loc: localTree, cmd: []string{"cp", "--recursive", "--exclude", "sub/*", "@local/dir/", "@dst/p/"}, verdict: asBoth},
	{name: "filter/download-exclude-all-include", src: tree, cmd: []string{"cp", "--recursive", "--exclude", "*", "--include", "*.tmp", "@src/dir/", "@local/"}, verdict: asAWS},
	{name: "filter/sync-delete-exclude-dir", src: syncData, dst: join(syncDst, dst("data/new/old.json", "data/new/deep/old.json")),
		cmd: []string{"sync", "--delete", "--exclude", "new/*", "@src/data/", "@dst/data/"}, verdict: asAWS},
	{name: "filter/sync-delete-exclude-protects", src: syncData, dst: syncDst,
		cmd: []string{"sync", "--delete", "--exclude", "*.tmp", "@src/data/", "@dst/data/"}, verdict: asBoth},
	{name: "filter/sync-delete-include-alone", src: syncData, dst: syncDst,
		cmd: []string{"sync", "--delete", "--include", "*.json", "@src/data/", "@dst/data/"}, verdict: asS5cmd,
		note: "a first --include selects, and what it leaves out is never deleted"},
	{name: "filter/sync-download-delete-exclude", src: syncData, loc: syncLocDst, locNew: true,
		cmd: []string{"sync", "--delete", "--exclude", "*.tmp", "@src/data/", "@local/data/"}, verdict: asS5cmd,
		note: "an excluded local file is kept; same.json as sync/download"},
	{name: "filter/empty-pattern", src: tree, cmd: []string{"cp", "--recursive", "--exclude", "", "@src/dir/", "@dst/p/"}, verdict: deliberate,
		want: &outcome{Exit: 1, Src: objects(tree)}, code: 2, note: "an empty pattern is a mistake, not a filter that leaves nothing out"},
	{name: "filter/wildcard-source-exclude", src: tree, cmd: []string{"cp", "--exclude", "*.tmp", "@src/dir/*", "@dst/p/"}, aws: na, verdict: asS5cmd},

	// Odd keys.
	{name: "odd/recursive-copy", src: odd, cmd: []string{"cp", "--recursive", "@src/odd/", "@dst/p/"}, verdict: asBoth,
		needs: []s3test.Capability{s3test.OddKeys}, elsewhere: []elsewhere{plusForSpace("p/with space.txt")}},
	{name: "odd/recursive-download", src: odd, cmd: []string{"cp", "--recursive", "@src/odd/", "@local/"}, verdict: asBoth},
	{name: "odd/recursive-upload", loc: oddLocal, cmd: []string{"cp", "--recursive", "@local/odd/", "@dst/p/"}, verdict: asBoth},
	{name: "odd/space", src: odd, cmd: []string{"cp", "@src/odd/with space.txt", "@dst/p/"}, verdict: asBoth,
		elsewhere: []elsewhere{plusForSpace("p/with space.txt")}},
	{name: "odd/unicode", src: odd, cmd: []string{"cp", "@src/odd/ünïcödé-日本.txt", "@local/"}, verdict: asBoth},
	{name: "odd/plus", src: odd, cmd: []string{"cp", "@src/odd/plus+sign.txt", "@dst/p/"}, verdict: asBoth, needs: []s3test.Capability{s3test.OddKeys}},
	{name: "odd/percent", src: odd, cmd: []string{"cp", "@src/odd/percent%20x.txt", "@dst/p/"}, verdict: asBoth},
	{name: "odd/equals", src: odd, cmd: []string{"mv", "@src/odd/equals=sign.txt", "@dst/p/"}, verdict: asBoth, needs: []s3test.Capability{s3test.OddKeys}},
	{name: "odd/hash", src: odd, cmd: []string{"rm", "@src/odd/hash#tag.txt"}, verdict: asBoth},
	{name: "odd/bracket", src: odd, cmd: []string{"cp", "@src/odd/[bracket].txt", "@dst/p/"}, verdict: asBoth},
	{name: "odd/sync-upload", loc: oddLocal, cmd: []string{"sync", "@local/odd/", "@dst/p/"}, verdict: asBoth},
	{name: "odd/ls", src: odd, cmd: []string{"ls", "@src/odd/"}, verdict: asBoth},

	// Folder markers: skipped by cp, mv, sync; deleted by rm.
	{name: "marker/cp-recursive", src: markers, cmd: []string{"cp", "--recursive", "@src/dir/", "@dst/p/"}, verdict: asBoth, stderr: `folder marker`},
	{name: "marker/download", src: markers, cmd: []string{"cp", "--recursive", "@src/dir/", "@local/"}, verdict: asBoth},
	{name: "marker/sync", src: markers, cmd: []string{"sync", "@src/dir/", "@dst/p/"}, verdict: asBoth},
	{name: "marker/sync-download", src: markers, cmd: []string{"sync", "@src/dir/", "@local/"}, verdict: asBoth},
	{name: "marker/sync-delete", src: markers, dst: join([]obj{empty("p/"), empty("p/old/")}, dst("p/gone.txt")),
		cmd: []string{"sync", "--delete", "@src/dir/", "@dst/p/"}, verdict: asBoth},
	{name: "marker/mv", src: markers, cmd: []string{"mv", "--recursive", "@src/dir/", "@dst/p/"}, verdict: asBoth},
	{name: "marker/rm", src: markers, cmd: []string{"rm", "--recursive", "@src/dir/"}, verdict: asAWS,
		note: "rm deletes markers as aws does; s5cmd's wildcard leaves them"},
	{name: "marker/rm-wildcard", src: markers, cmd: []string{"rm", "@src/dir/*"}, aws: na, verdict: deliberate,
		want: &outcome{},
		note: "rm deletes the markers a wildcard matches, as rm --recursive does (and aws); s5cmd's wildcard passes over them"},
	{name: "marker/wildcard", src: markers, cmd: []string{"cp", "@src/dir/*", "@dst/p/"}, aws: na, verdict: asS5cmd},

	// Empty objects and files.
	{name: "empty/recursive-download", src: join(tree, []obj{empty("dir/zero.txt"), empty("dir/sub/zero.json")}), cmd: []string{"cp", "--recursive", "@src/dir/", "@local/"}, verdict: asBoth,
		elsewhere: []elsewhere{brokenEmptyRange("zero.txt", "sub/zero.json")}},
	{name: "empty/sync-upload", loc: []lfile{{"d/zero.txt", ""}, {"d/one.txt", "1"}}, cmd: []string{"sync", "@local/d/", "@dst/p/"}, verdict: asBoth},

	// sync in three directions, with and without --delete.
	{name: "sync/s3-to-s3", src: syncData, dst: syncDst, cmd: []string{"sync", "@src/data/", "@dst/data/"}, verdict: asBoth},
	{name: "sync/s3-to-s3-delete", src: syncData, dst: syncDst, cmd: []string{"sync", "--delete", "@src/data/", "@dst/data/"}, verdict: asBoth},
	{name: "sync/upload", loc: syncLoc, dst: syncDst, cmd: []string{"sync", "@local/data/", "@dst/data/"}, verdict: asBoth},
	{name: "sync/upload-delete", loc: syncLoc, dst: syncDst, cmd: []string{"sync", "--delete", "@local/data/", "@dst/data/"}, verdict: asBoth},
	{name: "sync/download", src: syncData, loc: syncLocDst, locNew: true, cmd: []string{"sync", "@src/data/", "@local/data/"}, verdict: asS5cmd,
		note: "a local file newer than the object, of the same size, is up to date; aws downloads it again (docs/compat.md)"},
	{name: "sync/download-delete", src: syncData, loc: syncLocDst, locNew: true, cmd: []string{"sync", "--delete", "@src/data/", "@local/data/"}, verdict: asS5cmd,
		note: "as sync/download"},
	{name: "sync/download-older-local", src: syncData, loc: []lfile{{"data/same.json", "dst:data/same.json"}}, cmd: []string{"sync", "@src/data/", "@local/data/"}, verdict: asS5cmd,
		note: "a local file older than the object is replaced even at the same size; aws keeps it (docs/compat.md)"},
	{name: "sync/into-empty", src: syncData, cmd: []string{"sync", "@src/data/", "@dst/copy/"}, verdict: asBoth},
	{name: "sync/delete-from-empty-dir", loc: []lfile{{"empty/", ""}}, dst: syncDst, cmd: []string{"sync", "--delete", "@local/empty/", "@dst/data/"}, verdict: deliberate,
		want:   &outcome{Exit: 1, Dst: map[string]string{"data/same.json": "dst:data/same.json", "data/gone.txt": "dst:data/gone.txt", "data/keep.tmp": "dst:data/keep.tmp", "data/stale.txt": "dst:old:data/stale.txt"}, Local: map[string]string{"empty/": ""}},
		stderr: `--allow-empty-source`, code: 2, note: "an empty source would empty the destination: s3bulk refuses without --allow-empty-source"},
	{name: "sync/delete-from-empty-prefix", src: tree, dst: syncDst, cmd: []string{"sync", "--delete", "@src/none/", "@dst/data/"}, verdict: deliberate,
		want:   &outcome{Exit: 1, Src: objects(tree), Dst: objects(syncDst)},
		stderr: `--allow-empty-source`, code: 2, note: "an empty source would empty the destination: s3bulk refuses without --allow-empty-source; s5cmd prints an error, exits 0 and deletes everything"},
	{name: "sync/wildcard-source", src: syncData, dst: syncDst, cmd: []string{"sync", "@src/data/*", "@dst/data/"}, aws: na, verdict: deliberate,
		want: &outcome{Exit: 1, Src: objects(syncData), Dst: objects(syncDst)}, code: 2,
		note: "a sync source is a prefix or a directory; --include/--exclude say which objects"},
	{name: "sync/delete-from-empty-dir-allowed", loc: []lfile{{"empty/", ""}}, dst: syncDst, cmd: []string{"sync", "--delete", "--allow-empty-source", "@local/empty/", "@dst/data/"},
		aws: []string{"sync", "--delete", "@local/empty/", "@dst/data/"}, s5: []string{"sync", "--delete", "@local/empty/", "@dst/data/"}, verdict: asBoth},

	// ls: aws's layout.
	{name: "ls/prefix", src: tree, cmd: []string{"ls", "@src/dir/"}, verdict: asBoth},
	{name: "ls/prefix-bare", src: tree, cmd: []string{"ls", "@src/dir"}, verdict: asBoth},
	{name: "ls/bucket", src: tree, cmd: []string{"ls", "@src"}, verdict: asBoth},
	{name: "ls/key", src: tree, cmd: []string{"ls", "@src/dir/a.json"}, verdict: asAWS,
		note: "aws prints the name relative to the prefix, s5cmd the whole key"},
	{name: "ls/recursive", src: tree, cmd: []string{"ls", "--recursive", "@src/dir/"}, verdict: asAWS},
	{name: "ls/wildcard", src: tree, cmd: []string{"ls", "@src/dir/*.json"}, aws: na, verdict: deliberate,
		want: &outcome{Src: objects(tree), Ls: []string{dateMask + "         14 dir/a.json", dateMask + "         18 dir/sub/c.json"}},
		note: "a wildcard lists whole keys, as ls --recursive prints them; s5cmd prints them relative to the part before the wildcard"},
	{name: "ls/empty-bucket", cmd: []string{"ls", "@dst"}, verdict: asBoth},
	{name: "ls/missing-key", src: tree, cmd: []string{"ls", "@src/dir/nope.json"}, verdict: asBoth, stderr: `no object matches s3://[^ ]+/dir/nope\.json`},
	{name: "ls/missing-prefix", src: tree, cmd: []string{"ls", "@src/none/"}, verdict: asBoth},
	{name: "ls/summarize", src: tree, cmd: []string{"ls", "--recursive", "--human-readable", "--summarize", "@src/dir/"}, s5: na, verdict: asAWS},
	{name: "ls/markers", src: markers, cmd: []string{"ls", "@src/dir/"}, verdict: asAWS,
		note: "aws prints the marker dir/ itself as an object with an empty name; s5cmd as a DIR",
		elsewhere: []elsewhere{{unless: markersAsPrefixes,
			peers: map[string]func(*outcome){
				"aws": lists("                           PRE sub/", dateMask+"          0 ", dateMask+"         14 a.json",
					dateMask+"          0 ", dateMask+"          0 "),
				"s5cmd": lists("                           PRE sub/", "                           PRE dir/", dateMask+"         14 a.json",
					"                           PRE none/", "                           PRE sub/"),
			},
			verdict: deliberate,
			want: &outcome{Src: objects(markers), Ls: []string{"                           PRE sub/", dateMask + "          0 ",
				dateMask + "         14 a.json", dateMask + "          0 none/", dateMask + "          0 sub/"}},
			why: "the markers dir/none/ and dir/sub/ come as objects, not prefixes: aws prints each by the name after its last '/', an empty one; " +
				"s5cmd as a DIR; s3bulk by its name under the prefix, none/ and sub/, which says what they are"}}},
}

// plusForSpace is a copy on a server that reads '+' in x-amz-copy-source as
// a '+': s5cmd, which spells a space so, fails to copy keys (dst names)
// with a space; aws and s3bulk, which spell it %20, copy them.
func plusForSpace(keys ...string) elsewhere {
	return elsewhere{unless: plusInCopySource, peers: map[string]func(*outcome){"s5cmd": without(keys...)}, verdict: asAWS,
		why: "s5cmd spells a space in a copy source '+', which the server reads as a '+': NoSuchKey"}
}

// brokenEmptyRange is a download on a server that answers a ranged GET of
// an empty object with a length it does not send: s5cmd, whose downloads
// are ranged, fails the empty files (local paths) with "unexpected EOF";
// aws and s3bulk read them.
func brokenEmptyRange(paths ...string) elsewhere {
	return elsewhere{unless: emptyRange, peers: map[string]func(*outcome){"s5cmd": without(paths...)}, verdict: asAWS,
		why: "s5cmd reads an empty object with a ranged GET, which the server answers with bytes it never sends"}
}
