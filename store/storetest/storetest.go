package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sync/errgroup"

	"github.com/s3bulk/s3bulk/store"
)

// Caps are the optional behaviours a store claims. The suite checks each claim
// both ways: a store that says it has no ETags must report none, so the engine
// can trust the claim when it decides whether a conditional read is possible.
type Caps struct {
	// ETags: Head and List report ETags, and Get honours ifMatch.
	ETags bool
	// Metadata: the Metadata given to Put (content headers and user metadata)
	// comes back from Head.
	Metadata bool
}

// Run runs the conformance suite. newStore is called once per subtest and must
// return a store that is empty; it registers its own cleanup on t. When the
// store implements store.RandomWriter, the temp-file contract is checked too.
func Run(t *testing.T, newStore func(t *testing.T) store.Store, caps Caps) {
	t.Helper()
	t.Logf("store capabilities: ETags=%t Metadata=%t", caps.ETags, caps.Metadata)
	tests := []subtest{
		{"put then head and get return the exact bytes", testRoundTrip},
		{"an empty object round trips", testEmptyObject},
		{"get reads the requested byte range", testRanges},
		{"head and get of a missing key are not found", testMissing},
		{"a key that is only a prefix of other keys is not found", testPrefixIsNotAnObject},
		{"delete then head is not found", testDelete},
		{"deleting a missing key is not an error", testDeleteMissing},
		{"deleting the last key under a prefix makes the prefix vanish", testDeleteLastUnderPrefix},
		{"put overwrites an existing object", testOverwrite},
		{"a put whose body fails leaves nothing under the key", testFailedPutLeavesNothing},
		{"a put whose body fails keeps the previous object", testFailedPutKeepsOld},
		{"a put whose body is shorter than its size fails", testShortBody},
		{"list returns keys under a prefix in byte order with sizes", testListOrder},
		{"list with a delimiter rolls up common prefixes", testListDelimiter},
		{"list of more than 1000 keys is complete", testListPagination},
		{"keys with spaces, unicode and reserved characters round trip", testOddKeys},
		{"an error from the list callback stops the listing", testListCallbackError},
		{"cancelling the context stops a listing", testListCancel},
		{"url names the key", testURL},
	}
	if caps.ETags {
		tests = append(tests,
			subtest{"head and list report the same etag", testETagReported},
			subtest{"get with a stale etag fails with precondition failed", testIfMatch})
	} else {
		tests = append(tests, subtest{"a store without etags reports none", testNoETags})
	}
	if caps.Metadata {
		tests = append(tests, subtest{"metadata given to put comes back from head", testMetadata})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newStore(t)) })
	}
	t.Run("random writer", func(t *testing.T) {
		if _, ok := newStore(t).(store.RandomWriter); !ok {
			t.Log("store does not implement store.RandomWriter; its contract does not apply")
			return
		}
		rw := []struct {
			name string
			run  func(t *testing.T, s store.Store, w store.RandomWriter)
		}{
			{"a temp file is invisible until commit", testTempInvisibleUntilCommit},
			{"abort leaves nothing behind", testTempAbort},
			{"abort after commit keeps the object", testTempAbortAfterCommit},
			{"a temp file replaces an existing object only at commit", testTempReplaces},
		}
		for _, tc := range rw {
			t.Run(tc.name, func(t *testing.T) {
				s := newStore(t)
				tc.run(t, s, s.(store.RandomWriter))
			})
		}
	})
}

type subtest struct {
	name string
	run  func(t *testing.T, s store.Store)
}

// listed is the part of a listed object the suite compares exactly.
type listed struct {
	Key      string
	Size     int64
	IsPrefix bool
}

func put(t *testing.T, s store.Store, key, body string) {
	t.Helper()
	if err := s.Put(t.Context(), key, strings.NewReader(body), int64(len(body)), store.Metadata{}); err != nil {
		t.Fatalf("put %q: %v", key, err)
	}
}

func get(t *testing.T, s store.Store, key string, off, length int64) string {
	t.Helper()
	rc, err := s.Get(t.Context(), key, off, length, "")
	if err != nil {
		t.Fatalf("get %q [%d,%d): %v", key, off, length, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("read %q: %v", key, err)
	}
	if err := rc.Close(); err != nil {
		t.Fatalf("close %q: %v", key, err)
	}
	return string(b)
}

func list(t *testing.T, s store.Store, prefix, delim string) []store.Object {
	t.Helper()
	var got []store.Object
	err := s.List(t.Context(), prefix, delim, func(o store.Object) error {
		got = append(got, o)
		return nil
	})
	if err != nil {
		t.Fatalf("list prefix %q delimiter %q: %v", prefix, delim, err)
	}
	return got
}

func summarize(objs []store.Object) []listed {
	out := make([]listed, 0, len(objs))
	for _, o := range objs {
		out = append(out, listed{Key: o.Key, Size: o.Size, IsPrefix: o.IsPrefix})
	}
	return out
}

// model is the reference listing: what S3 returns for keys (with their sizes),
// a prefix and a delimiter.
func model(objects map[string]int64, prefix, delim string) []listed {
	keys := make([]string, 0, len(objects))
	for k := range objects {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys) // Go compares strings bytewise, which is S3's order
	out := []listed{}
	for _, k := range keys {
		if delim != "" {
			if i := strings.Index(k[len(prefix):], delim); i >= 0 {
				cp := k[:len(prefix)+i+len(delim)]
				if len(out) == 0 || out[len(out)-1].Key != cp {
					out = append(out, listed{Key: cp, IsPrefix: true})
				}
				continue
			}
		}
		out = append(out, listed{Key: k, Size: objects[k]})
	}
	return out
}

func putAll(t *testing.T, s store.Store, objects map[string]string) {
	t.Helper()
	g, ctx := errgroup.WithContext(t.Context())
	g.SetLimit(8)
	for k, v := range objects {
		g.Go(func() error {
			if err := s.Put(ctx, k, strings.NewReader(v), int64(len(v)), store.Metadata{}); err != nil {
				return fmt.Errorf("put %q: %w", k, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}

func wantNotFound(t *testing.T, s store.Store, key string) {
	t.Helper()
	if o, _, err := s.Head(t.Context(), key); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("head %q = %+v, %v; want an error wrapping store.ErrNotFound", key, o, err)
	}
}

// wantGetNotFound checks that a Get of key fails with store.ErrNotFound.
func wantGetNotFound(t *testing.T, s store.Store, key string) {
	t.Helper()
	rc, err := s.Get(t.Context(), key, 0, -1, "")
	if err == nil {
		rc.Close()
	}
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("get %s: %v; want an error wrapping store.ErrNotFound", key, err)
	}
}

func testRoundTrip(t *testing.T, s store.Store) {
	// Every byte value, so no layer may treat the body as text.
	body := make([]byte, 3*256+7)
	for i := range body {
		body[i] = byte(i * 7)
	}
	before := time.Now()
	if err := s.Put(t.Context(), "dir/obj.bin", bytes.NewReader(body), int64(len(body)), store.Metadata{}); err != nil {
		t.Fatal(err)
	}
	o, _, err := s.Head(t.Context(), "dir/obj.bin")
	if err != nil {
		t.Fatal(err)
	}
	if o.Key != "dir/obj.bin" || o.Size != int64(len(body)) || o.IsPrefix {
		t.Errorf("head = %+v; want key dir/obj.bin, size %d, not a prefix", o, len(body))
	}
	// Generous bounds: S3 rounds to seconds and a remote clock may be skewed;
	// this still catches a zero time or a time-zone mix-up.
	if d := o.ModTime.Sub(before); d < -10*time.Minute || d > 10*time.Minute {
		t.Errorf("head mod time %v is %v away from the time of the put", o.ModTime, d)
	}
	if got := get(t, s, "dir/obj.bin", 0, -1); got != string(body) {
		t.Errorf("get returned %d bytes that differ from the %d put", len(got), len(body))
	}
}

func testEmptyObject(t *testing.T, s store.Store) {
	put(t, s, "empty", "")
	o, _, err := s.Head(t.Context(), "empty")
	if err != nil {
		t.Fatal(err)
	}
	if o.Size != 0 {
		t.Errorf("head size = %d; want 0", o.Size)
	}
	if got := get(t, s, "empty", 0, -1); got != "" {
		t.Errorf("get = %q; want empty", got)
	}
	if diff := cmp.Diff([]listed{{Key: "empty"}}, summarize(list(t, s, "", ""))); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
}

func testRanges(t *testing.T, s store.Store) {
	const body = "0123456789abcdefghij"
	put(t, s, "r", body)
	tests := []struct {
		name        string
		off, length int64
		want        string
	}{
		{"the whole object when length is negative", 0, -1, body},
		{"from an offset to the end", 5, -1, body[5:]},
		{"a range in the middle", 3, 4, "3456"},
		{"the first byte", 0, 1, "0"},
		{"the last byte", 19, 1, "j"},
		{"the last bytes to the end", 18, -1, "ij"},
		{"a range reaching past the end, cut at the end", 15, 100, body[15:]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := get(t, s, "r", tc.off, tc.length); got != tc.want {
				t.Errorf("get [%d,+%d) = %q; want %q", tc.off, tc.length, got, tc.want)
			}
		})
	}
}

func testMissing(t *testing.T, s store.Store) {
	put(t, s, "present", "x")
	wantNotFound(t, s, "absent")
	wantNotFound(t, s, "present/child")
	wantGetNotFound(t, s, "absent")
}

func testPrefixIsNotAnObject(t *testing.T, s store.Store) {
	put(t, s, "dir/sub/file", "x")
	wantNotFound(t, s, "dir")
	wantNotFound(t, s, "dir/sub")
	wantGetNotFound(t, s, "dir/sub")
	// Deleting what is only a prefix deletes nothing.
	if err := s.Delete(t.Context(), "dir/sub"); err != nil {
		t.Errorf("delete dir/sub: %v; want nil", err)
	}
	if got := get(t, s, "dir/sub/file", 0, -1); got != "x" {
		t.Errorf("after deleting the prefix, get dir/sub/file = %q; want %q", got, "x")
	}
}

func testDelete(t *testing.T, s store.Store) {
	put(t, s, "a/b", "x")
	put(t, s, "a/c", "y")
	if err := s.Delete(t.Context(), "a/b"); err != nil {
		t.Fatal(err)
	}
	wantNotFound(t, s, "a/b")
	if diff := cmp.Diff([]listed{{Key: "a/c", Size: 1}}, summarize(list(t, s, "", ""))); diff != "" {
		t.Errorf("list after delete (-want +got):\n%s", diff)
	}
}

func testDeleteMissing(t *testing.T, s store.Store) {
	put(t, s, "file", "x")
	for _, k := range []string{"never-there", "deep/never/there", "file/child"} {
		if err := s.Delete(t.Context(), k); err != nil {
			t.Errorf("delete %q: %v; want nil", k, err)
		}
	}
}

func testDeleteLastUnderPrefix(t *testing.T, s store.Store) {
	put(t, s, "deep/er/still/k", "x")
	put(t, s, "top", "y")
	if err := s.Delete(t.Context(), "deep/er/still/k"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]listed{{Key: "top", Size: 1}}, summarize(list(t, s, "", "/"))); diff != "" {
		t.Errorf("delimited list after delete (-want +got):\n%s", diff)
	}
	// The prefix is free for an object of the same name.
	put(t, s, "deep", "z")
	if got := get(t, s, "deep", 0, -1); got != "z" {
		t.Errorf("get deep = %q; want %q", got, "z")
	}
}

func testOverwrite(t *testing.T, s store.Store) {
	put(t, s, "k", "first")
	put(t, s, "k", "a much longer second body")
	if got := get(t, s, "k", 0, -1); got != "a much longer second body" {
		t.Errorf("after a longer overwrite get = %q", got)
	}
	put(t, s, "k", "3rd")
	if got := get(t, s, "k", 0, -1); got != "3rd" {
		t.Errorf("after a shorter overwrite get = %q; want %q (no stale tail)", got, "3rd")
	}
	o, _, err := s.Head(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	if o.Size != 3 {
		t.Errorf("head size = %d; want 3", o.Size)
	}
}

var errBroken = errors.New("storetest: source broke mid-way")

// brokenReader yields n bytes, then fails: a source that dies mid-transfer.
type brokenReader struct{ n int }

func (r *brokenReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, errBroken
	}
	n := min(len(p), r.n)
	for i := range n {
		p[i] = 'b'
	}
	r.n -= n
	return n, nil
}

func testFailedPutLeavesNothing(t *testing.T, s store.Store) {
	err := s.Put(t.Context(), "dir/partial", &brokenReader{n: 4096}, 64<<10, store.Metadata{})
	if err == nil {
		t.Fatal("put with a failing body succeeded")
	}
	wantNotFound(t, s, "dir/partial")
	if got := summarize(list(t, s, "", "")); len(got) != 0 {
		t.Errorf("list after a failed put = %+v; want nothing", got)
	}
}

func testFailedPutKeepsOld(t *testing.T, s store.Store) {
	put(t, s, "k", "old")
	if err := s.Put(t.Context(), "k", &brokenReader{n: 4096}, 64<<10, store.Metadata{}); err == nil {
		t.Fatal("put with a failing body succeeded")
	}
	if got := get(t, s, "k", 0, -1); got != "old" {
		t.Errorf("get after a failed overwrite = %q; want %q", got, "old")
	}
}

func testShortBody(t *testing.T, s store.Store) {
	if err := s.Put(t.Context(), "short", strings.NewReader("12345"), 10, store.Metadata{}); err == nil {
		t.Error("put of 5 bytes declared as 10 succeeded")
	}
	wantNotFound(t, s, "short")
}

// treeKeys never makes one key the "directory" of another, and puts keys
// around '/' in byte order: '-' and '.' sort before '/', '0' after it.
var treeKeys = map[string]string{
	"A":                "1",
	"_":                "22",
	"a-b":              "333",
	"a.b":              "4444",
	"a/b":              "55555",
	"a/c/d":            "666666",
	"a/c/e f":          "7777777",
	"a0":               "88888888",
	"b/x":              "999999999",
	"logs/2025-12.txt": "10",
	"logs/2026-01.txt": "11",
	"logs/2026-02/x":   "12",
	"logs/20260":       "13",
	"~":                "",
}

func sizes(objects map[string]string) map[string]int64 {
	m := make(map[string]int64, len(objects))
	for k, v := range objects {
		m[k] = int64(len(v))
	}
	return m
}

var treePrefixes = []string{"", "a", "a/", "a/c", "a/c/", "a-", "b", "b/x", "logs/", "logs/2026-", "logs/2026", "zzz", "A"}

func testListOrder(t *testing.T, s store.Store) {
	putAll(t, s, treeKeys)
	for _, prefix := range treePrefixes {
		t.Run(fmt.Sprintf("prefix %q", prefix), func(t *testing.T) {
			got := list(t, s, prefix, "")
			if diff := cmp.Diff(model(sizes(treeKeys), prefix, ""), summarize(got)); diff != "" {
				t.Errorf("list (-want +got):\n%s", diff)
			}
			for _, o := range got {
				if o.ModTime.IsZero() {
					t.Errorf("listed %q has no mod time", o.Key)
				}
			}
		})
	}
}

func testListDelimiter(t *testing.T, s store.Store) {
	putAll(t, s, treeKeys)
	for _, prefix := range treePrefixes {
		t.Run(fmt.Sprintf("prefix %q", prefix), func(t *testing.T) {
			got := summarize(list(t, s, prefix, "/"))
			if diff := cmp.Diff(model(sizes(treeKeys), prefix, "/"), got); diff != "" {
				t.Errorf("list with delimiter (-want +got):\n%s", diff)
			}
		})
	}
}

func testListPagination(t *testing.T, s store.Store) {
	// One more than S3's page size, in one "directory" each, so the plain
	// listing and the delimited one (1001 common prefixes) both span pages.
	const n = 1001
	objects := make(map[string]string, n)
	for i := range n {
		objects[fmt.Sprintf("page/%04d/k", i)] = "x"
	}
	putAll(t, s, objects)
	if diff := cmp.Diff(model(sizes(objects), "", ""), summarize(list(t, s, "", ""))); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(model(sizes(objects), "page/", "/"), summarize(list(t, s, "page/", "/"))); diff != "" {
		t.Errorf("delimited list (-want +got):\n%s", diff)
	}
}

func testOddKeys(t *testing.T, s store.Store) {
	keys := []string{
		"with space.txt",
		"  leading and trailing spaces  ",
		"ünïcödé/файл.txt",
		"日本語/ファイル",
		"emoji-🚀",
		"plus+sign",
		"percent%20encoded%2F",
		"equals=sign&amp",
		"question?mark#hash",
		"tilde~and'quote\"",
		"semi;colon,comma",
		"brackets[and]{braces}",
	}
	objects := make(map[string]string, len(keys))
	for i, k := range keys {
		objects[k] = fmt.Sprintf("body %d of %q", i, k)
	}
	putAll(t, s, objects)
	for _, k := range keys {
		if got := get(t, s, k, 0, -1); got != objects[k] {
			t.Errorf("get %q = %q; want %q", k, got, objects[k])
		}
		o, _, err := s.Head(t.Context(), k)
		if err != nil {
			t.Errorf("head %q: %v", k, err)
		} else if o.Key != k {
			t.Errorf("head %q returned key %q", k, o.Key)
		}
	}
	if diff := cmp.Diff(model(sizes(objects), "", ""), summarize(list(t, s, "", ""))); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	for _, k := range keys {
		if err := s.Delete(t.Context(), k); err != nil {
			t.Errorf("delete %q: %v", k, err)
		}
	}
	if got := list(t, s, "", ""); len(got) != 0 {
		t.Errorf("list after deleting every key = %+v; want nothing", summarize(got))
	}
}

func testListCallbackError(t *testing.T, s store.Store) {
	putAll(t, s, treeKeys)
	stop := errors.New("storetest: stop")
	calls := 0
	err := s.List(t.Context(), "", "", func(store.Object) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) {
		t.Errorf("list returned %v; want the callback's error", err)
	}
	if calls != 1 {
		t.Errorf("callback called %d times after returning an error; want 1", calls)
	}
}

func testListCancel(t *testing.T, s store.Store) {
	putAll(t, s, treeKeys)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	calls := 0
	err := s.List(ctx, "", "", func(store.Object) error {
		calls++
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("list after cancel returned %v after %d calls; want an error wrapping context.Canceled", err, calls)
	}
}

func testURL(t *testing.T, s store.Store) {
	for _, k := range []string{"k", "dir/sub/k.txt"} {
		u := s.URL(k)
		if !strings.HasSuffix(filepath.ToSlash(u), k) {
			t.Errorf("URL(%q) = %q; want it to end with the key", k, u)
		}
	}
}

func testNoETags(t *testing.T, s store.Store) {
	put(t, s, "k", "x")
	o, _, err := s.Head(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	if o.ETag != "" {
		t.Errorf("head ETag = %q; the store claims no ETags (Caps.ETags false)", o.ETag)
	}
	for _, o := range list(t, s, "", "") {
		if o.ETag != "" {
			t.Errorf("listed %q with ETag %q; the store claims no ETags", o.Key, o.ETag)
		}
	}
}

func testETagReported(t *testing.T, s store.Store) {
	put(t, s, "k", "x")
	o, _, err := s.Head(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	if o.ETag == "" || strings.ContainsRune(o.ETag, '"') {
		t.Errorf("head ETag = %q; want a non-empty ETag without quotes", o.ETag)
	}
	objs := list(t, s, "", "")
	if len(objs) != 1 || objs[0].ETag != o.ETag {
		t.Errorf("list = %+v; want one object with head's ETag %q", objs, o.ETag)
	}
}

func testIfMatch(t *testing.T, s store.Store) {
	put(t, s, "k", "version one")
	old, _, err := s.Head(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, "k", "version two, longer")
	cur, _, err := s.Head(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	if cur.ETag == old.ETag {
		t.Fatalf("ETag %q did not change when the body did", cur.ETag)
	}
	for _, r := range []struct{ off, length int64 }{{0, -1}, {2, 3}} {
		rc, err := s.Get(t.Context(), "k", r.off, r.length, old.ETag)
		if err == nil {
			rc.Close()
		}
		if !errors.Is(err, store.ErrPreconditionFailed) {
			t.Errorf("get [%d,+%d) with the stale ETag: %v; want an error wrapping store.ErrPreconditionFailed", r.off, r.length, err)
		}
	}
	rc, err := s.Get(t.Context(), "k", 0, -1, cur.ETag)
	if err != nil {
		t.Fatalf("get with the current ETag: %v", err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "version two, longer" {
		t.Errorf("get with the current ETag = %q", b)
	}
}

func testMetadata(t *testing.T, s store.Store) {
	want := store.Metadata{
		ContentType:        "text/x-storetest",
		ContentLanguage:    "en",
		CacheControl:       "max-age=60",
		ContentDisposition: `attachment; filename="m.txt"`,
		User:               map[string]string{"origin": "storetest", "n": "1"},
	}
	if err := s.Put(t.Context(), "m.txt", strings.NewReader("m"), 1, want); err != nil {
		t.Fatal(err)
	}
	_, got, err := s.Head(t.Context(), "m.txt")
	if err != nil {
		t.Fatal(err)
	}
	// Stores may add what they default (a storage class); compare what was set.
	got = store.Metadata{
		ContentType:        got.ContentType,
		ContentLanguage:    got.ContentLanguage,
		CacheControl:       got.CacheControl,
		ContentDisposition: got.ContentDisposition,
		User:               got.User,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("head metadata (-want +got):\n%s", diff)
	}
}

// writeParts writes body into w as parts of partSize from one goroutine each,
// last part first, the way parallel ranged downloads finish out of order.
func writeParts(t *testing.T, w io.WriterAt, body []byte, partSize int) {
	t.Helper()
	var g errgroup.Group
	for off := (len(body) - 1) / partSize * partSize; off >= 0; off -= partSize {
		end := min(off+partSize, len(body))
		g.Go(func() error {
			_, err := w.WriteAt(body[off:end], int64(off))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatalf("write parts: %v", err)
	}
}

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*31 + i>>8)
	}
	return b
}

func testTempInvisibleUntilCommit(t *testing.T, s store.Store, w store.RandomWriter) {
	body := pattern(64<<10 + 123)
	tf, err := w.CreateTemp(t.Context(), "dl/big.bin", int64(len(body)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tf.Abort() })
	writeParts(t, tf, body, 8<<10)
	wantNotFound(t, s, "dl/big.bin")
	if got := list(t, s, "", ""); len(got) != 0 {
		t.Errorf("list before commit = %+v; want nothing", summarize(got))
	}
	if got := list(t, s, "", "/"); len(got) != 0 {
		t.Errorf("delimited list before commit = %+v; want nothing", summarize(got))
	}
	if err := tf.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := get(t, s, "dl/big.bin", 0, -1); got != string(body) {
		t.Errorf("get after commit returned %d bytes that differ from the %d written", len(got), len(body))
	}
	want := []listed{{Key: "dl/big.bin", Size: int64(len(body))}}
	if diff := cmp.Diff(want, summarize(list(t, s, "", ""))); diff != "" {
		t.Errorf("list after commit (-want +got):\n%s", diff)
	}
}

func testTempAbort(t *testing.T, s store.Store, w store.RandomWriter) {
	tf, err := w.CreateTemp(t.Context(), "dl/aborted", 1000)
	if err != nil {
		t.Fatal(err)
	}
	writeParts(t, tf, pattern(1000), 100)
	if err := tf.Abort(); err != nil {
		t.Fatalf("abort: %v", err)
	}
	if err := tf.Abort(); err != nil {
		t.Errorf("second abort: %v; want nil", err)
	}
	if err := tf.Commit(); err == nil {
		t.Error("commit after abort succeeded")
	}
	wantNotFound(t, s, "dl/aborted")
	if got := list(t, s, "", "/"); len(got) != 0 {
		t.Errorf("list after abort = %+v; want nothing", summarize(got))
	}
}

func testTempAbortAfterCommit(t *testing.T, s store.Store, w store.RandomWriter) {
	tf, err := w.CreateTemp(t.Context(), "k", 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tf.WriteAt([]byte("abc"), 0); err != nil {
		t.Fatal(err)
	}
	if err := tf.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := tf.Abort(); err != nil {
		t.Errorf("abort after commit: %v; want nil", err)
	}
	if got := get(t, s, "k", 0, -1); got != "abc" {
		t.Errorf("get after commit and abort = %q; want %q", got, "abc")
	}
}

func testTempReplaces(t *testing.T, s store.Store, w store.RandomWriter) {
	put(t, s, "k", "old body")
	tf, err := w.CreateTemp(t.Context(), "k", 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tf.Abort() })
	if _, err := tf.WriteAt([]byte("new"), 0); err != nil {
		t.Fatal(err)
	}
	if got := get(t, s, "k", 0, -1); got != "old body" {
		t.Errorf("get before commit = %q; want the old body", got)
	}
	if err := tf.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := get(t, s, "k", 0, -1); got != "new" {
		t.Errorf("get after commit = %q; want %q", got, "new")
	}
}
