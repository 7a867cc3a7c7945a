package journal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/store"
)

const fp = "job-1"

var (
	mtime = time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)
	objA  = store.Object{Key: "src/a", Size: 10, ETag: "etag-a"}
	objB  = store.Object{Key: "src/b", Size: 20, ETag: "etag-b"}
	// a local file: no ETag, its modification time identifies the version.
	objL = store.Object{Key: "dir/local.txt", Size: 30, ModTime: mtime}
	big  = Upload{SrcKey: "src/big", DstKey: "dst/big", UploadID: "up-1", PartSize: 8 << 20, Size: 20 << 20, ETag: "etag-big"}
)

// write opens a new journal in a temp dir, runs fn on it and closes it.
func write(t testing.TB, fn func(w *Writer)) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "j", "job.journal")
	w, err := Open(path, fp)
	if err != nil {
		t.Fatal(err)
	}
	fn(w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestRoundTrip(t *testing.T) {
	path := write(t, func(w *Writer) {
		must(t, w.Done(objA, "dst/a"))
		must(t, w.Failed(objB, "dst/b", errors.New("copy: access denied")))
		must(t, w.Done(objL, "bucket/local.txt"))
		must(t, w.UploadStarted(big))
		must(t, w.PartDone("up-1", store.Part{Number: 1, ETag: "p1", Size: 8 << 20}))
		must(t, w.PartDone("up-1", store.Part{Number: 2, ETag: "p2", Size: 8 << 20}))
		done := big
		done.DstKey, done.UploadID = "dst/big2", "up-2"
		must(t, w.UploadStarted(done))
		must(t, w.PartDone("up-2", store.Part{Number: 1, ETag: "x", Size: 1}))
		must(t, w.UploadCompleted("dst/big2", "up-2"))
	})
	st, err := Load(path)
	must(t, err)

	changed := func(o store.Object, f func(*store.Object)) store.Object { f(&o); return o }
	tests := []struct {
		name string
		src  store.Object
		dst  string
		want bool
	}{
		{"an object recorded done is done", objA, "dst/a", true},
		{"a done object copied to another destination is not done", objA, "dst/other", false},
		{"a done object whose size changed is not done", changed(objA, func(o *store.Object) { o.Size++ }), "dst/a", false},
		{"a done object whose etag changed is not done", changed(objA, func(o *store.Object) { o.ETag = "new" }), "dst/a", false},
		{"a done object whose mtime alone changed is still done when it has an etag", changed(objA, func(o *store.Object) { o.ModTime = mtime }), "dst/a", true},
		{"a failed object is not done", objB, "dst/b", false},
		{"a local file with the same mtime is done", objL, "bucket/local.txt", true},
		{"a local file with another mtime is not done", changed(objL, func(o *store.Object) { o.ModTime = mtime.Add(time.Nanosecond) }), "bucket/local.txt", false},
		{"an object never recorded is not done", store.Object{Key: "src/z", Size: 1}, "dst/z", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := st.Done(tt.src, tt.dst); got != tt.want {
				t.Errorf("Done(%+v, %q) = %v, want %v", tt.src, tt.dst, got, tt.want)
			}
		})
	}

	t.Run("the open upload comes back with its parts", func(t *testing.T) {
		want := big
		want.Parts = map[int32]store.Part{1: {Number: 1, ETag: "p1", Size: 8 << 20}, 2: {Number: 2, ETag: "p2", Size: 8 << 20}}
		got, ok := st.Upload("dst/big")
		if !ok {
			t.Fatal("Upload(dst/big) not found")
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Upload(dst/big) (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]Upload{want}, st.Uploads()); diff != "" {
			t.Errorf("Uploads() (-want +got):\n%s", diff)
		}
	})
	t.Run("a completed upload is gone", func(t *testing.T) {
		if u, ok := st.Upload("dst/big2"); ok {
			t.Errorf("Upload(dst/big2) = %+v, want none", u)
		}
	})
	t.Run("the stats count the last record of each object", func(t *testing.T) {
		want := Stats{Records: 9, Done: 2, Failed: 1, Uploads: 1}
		if diff := cmp.Diff(want, st.Stats()); diff != "" {
			t.Errorf("Stats() (-want +got):\n%s", diff)
		}
	})
	t.Run("the fingerprint is the job's", func(t *testing.T) {
		if st.Fingerprint() != fp {
			t.Errorf("Fingerprint() = %q, want %q", st.Fingerprint(), fp)
		}
	})
	t.Run("reopening gives the same state", func(t *testing.T) {
		w, err := Open(path, fp)
		must(t, err)
		defer w.Close()
		if diff := cmp.Diff(st, w.State(), cmp.AllowUnexported(State{}, entry{})); diff != "" {
			t.Errorf("Open().State() differs from Load() (-load +open):\n%s", diff)
		}
	})
}

// versionOf is o as one version of it is listed.
func versionOf(o store.Object, id string) store.Object {
	o.VersionID = id
	return o
}

func TestLastRecordDecides(t *testing.T) {
	newer := objA
	newer.ETag = "etag-a2"
	tests := []struct {
		name string
		ops  func(w *Writer)
		src  store.Object
		want bool
	}{
		{"done then failed is not done", func(w *Writer) {
			must(t, w.Done(objA, "d"))
			must(t, w.Failed(objA, "d", errors.New("delete source: access denied")))
		}, objA, false},
		{"failed then done is done", func(w *Writer) {
			must(t, w.Failed(objA, "d", nil))
			must(t, w.Done(objA, "d"))
		}, objA, true},
		{"a source that changed and changed back is not done", func(w *Writer) {
			must(t, w.Done(objA, "d"))
			must(t, w.Done(newer, "d"))
		}, objA, false},
		{"the newer version of a source recopied is done", func(w *Writer) {
			must(t, w.Done(objA, "d"))
			must(t, w.Done(newer, "d"))
		}, newer, true},
		{"a version copied is done", func(w *Writer) {
			must(t, w.Done(versionOf(objA, "v1"), "d"))
		}, versionOf(objA, "v1"), true},
		{"another version with the same bytes is not", func(w *Writer) {
			must(t, w.Done(versionOf(objA, "v1"), "d"))
		}, versionOf(objA, "v2"), false},
		{"nor is the object copied without a version", func(w *Writer) {
			must(t, w.Done(versionOf(objA, "v1"), "d"))
		}, objA, false},
		{"a version's failure is its own", func(w *Writer) {
			must(t, w.Done(versionOf(objA, "v1"), "d"))
			must(t, w.Done(versionOf(objA, "v2"), "d"))
			must(t, w.Failed(versionOf(objA, "v2"), "d", nil))
		}, versionOf(objA, "v1"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := Load(write(t, tt.ops))
			must(t, err)
			if got := st.Done(tt.src, "d"); got != tt.want {
				t.Errorf("Done = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestUploadsSupersededAndAborted(t *testing.T) {
	second := big
	second.UploadID = "up-2"
	other := big
	other.DstKey, other.UploadID = "dst/other", "up-3"
	st, err := Load(write(t, func(w *Writer) {
		must(t, w.UploadStarted(big))
		must(t, w.UploadStarted(second))
		must(t, w.PartDone("up-2", store.Part{Number: 3, ETag: "e3", Size: 5}))
		must(t, w.UploadStarted(other))
		must(t, w.UploadAborted("dst/other", "up-3"))
		// A part that lands after its upload ended reopens nothing.
		must(t, w.PartDone("up-3", store.Part{Number: 1, ETag: "late", Size: 5}))
		must(t, w.PartDone("up-unknown", store.Part{Number: 1, ETag: "x", Size: 5}))
	}))
	must(t, err)
	t.Run("the latest upload to a key is the one to resume", func(t *testing.T) {
		got, ok := st.Upload("dst/big")
		if !ok || got.UploadID != "up-2" {
			t.Fatalf("Upload(dst/big) = %+v, %v; want up-2", got, ok)
		}
		if diff := cmp.Diff(map[int32]store.Part{3: {Number: 3, ETag: "e3", Size: 5}}, got.Parts); diff != "" {
			t.Errorf("parts (-want +got):\n%s", diff)
		}
	})
	t.Run("every open upload is listed so the superseded one can be aborted", func(t *testing.T) {
		var ids []string
		for _, u := range st.Uploads() {
			ids = append(ids, u.UploadID)
		}
		if diff := cmp.Diff([]string{"up-1", "up-2"}, ids); diff != "" {
			t.Errorf("Uploads() ids (-want +got):\n%s", diff)
		}
	})
	t.Run("an aborted upload is not resumed", func(t *testing.T) {
		if u, ok := st.Upload("dst/other"); ok {
			t.Errorf("Upload(dst/other) = %+v, want none", u)
		}
	})
}

func TestUploadMatches(t *testing.T) {
	src := store.Object{Key: big.SrcKey, Size: big.Size, ETag: big.ETag}
	tests := []struct {
		name string
		src  store.Object
		want bool
	}{
		{"the same source matches", src, true},
		{"a source with another etag does not match", store.Object{Key: src.Key, Size: src.Size, ETag: "other"}, false},
		{"a source with another size does not match", store.Object{Key: src.Key, Size: src.Size + 1, ETag: src.ETag}, false},
		{"another key does not match", store.Object{Key: "x", Size: src.Size, ETag: src.ETag}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := big.Matches(tt.src); got != tt.want {
				t.Errorf("Matches(%+v) = %v, want %v", tt.src, got, tt.want)
			}
		})
	}
}

func TestKeysThatAreNotUTF8(t *testing.T) {
	bad := store.Object{Key: "dir/caf\xe9.txt", Size: 1, ModTime: mtime}
	// What JSON would turn the bad byte into.
	replaced := store.Object{Key: "dir/caf\ufffd.txt", Size: 1, ModTime: mtime}
	path := write(t, func(w *Writer) {
		must(t, w.Done(bad, "b/caf\xe9.txt"))
	})
	st, err := Load(path)
	must(t, err)
	t.Run("a key that is not utf-8 reads back exactly", func(t *testing.T) {
		if !st.Done(bad, "b/caf\xe9.txt") {
			t.Error("Done(bad key) = false, want true")
		}
	})
	t.Run("a key that is not utf-8 is not confused with its replacement", func(t *testing.T) {
		if st.Done(replaced, "b/caf\ufffd.txt") {
			t.Error("Done(replaced key) = true, want false")
		}
	})
	t.Run("a key that is not utf-8 is written in base64", func(t *testing.T) {
		b, err := os.ReadFile(path)
		must(t, err)
		if !bytes.Contains(b, []byte(`"src_b64":`)) {
			t.Errorf("journal has no src_b64 field:\n%s", b)
		}
	})
}

// journalBytes is a valid journal of three done objects.
func journalBytes(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(write(t, func(w *Writer) {
		for i := range 3 {
			must(t, w.Done(store.Object{Key: fmt.Sprint("k", i), Size: int64(i), ETag: "e"}, fmt.Sprint("d", i)))
		}
	}))
	must(t, err)
	return b
}

// lines splits a journal into its lines, each with its newline.
func lines(b []byte) [][]byte {
	return bytes.SplitAfter(b, []byte("\n"))[:bytes.Count(b, []byte("\n"))]
}

func line(t testing.TB, v any) []byte {
	t.Helper()
	b, err := appendLine(nil, v)
	must(t, err)
	return b
}

// A journal says version 2, the version that added intent records: an
// s3bulk that reads version 1 only refuses it as newer, not as damaged.
func TestHeaderSaysTheVersionOfIntentRecords(t *testing.T) {
	first := lines(journalBytes(t))[0]
	if !bytes.Contains(first, []byte(`"version":2,`)) {
		t.Errorf("header %s, want version 2", first)
	}
}

func TestLoadDamaged(t *testing.T) {
	good := journalBytes(t)
	ls := lines(good) // header and three records
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	flip := func(l []byte) []byte {
		l = bytes.Clone(l)
		l[len(l)/2] ^= 0x01
		return l
	}
	tests := []struct {
		name      string
		file      []byte
		wantErr   error // nil: loads
		wantDone  int
		wantNotes int
	}{
		{"an intact journal loads", good, nil, 3, 0},
		{"a torn last line is ignored with a note", good[:len(good)-7], nil, 2, 1},
		{"a last line missing only its newline is ignored with a note", good[:len(good)-1], nil, 2, 1},
		{"a last line with a flipped bit is ignored with a note", join(ls[0], ls[1], ls[2], flip(ls[3])), nil, 2, 1},
		{"a tail of zeros left by a crash is ignored with a note", join(good, make([]byte, 100)), nil, 3, 1},
		{"an empty last line is ignored with a note", join(good, []byte("\n")), nil, 3, 1},
		{"a line in the middle with a flipped bit is an error", join(ls[0], flip(ls[1]), ls[2], ls[3]), ErrCorrupt, 0, 0},
		{"a torn line in the middle is an error", join(ls[0], ls[1][:20], ls[2], ls[3]), ErrCorrupt, 0, 0},
		{"a line without crc in the middle is an error", join(ls[0], []byte(`{"t":"done","src":"a","dst":"b"}`+"\n"), ls[1]), ErrCorrupt, 0, 0},
		{"an overlong line in the middle is an error", join(ls[0], bytes.Repeat([]byte("x"), maxLine+10), []byte("\n"), ls[1]), ErrCorrupt, 0, 0},
		{"a record of an unknown type in the middle is an error", join(ls[0], line(t, record{T: "teleport", Src: "a", Dst: "b"}), ls[1]), ErrCorrupt, 0, 0},
		{"a done record without keys in the middle is an error", join(ls[0], line(t, record{T: kindDone}), ls[1]), ErrCorrupt, 0, 0},
		{"an empty file loads as an empty journal", nil, nil, 0, 0},
		{"a torn header loads as an empty journal with a note", ls[0][:15], nil, 0, 1},
		{"a header with a flipped bit is an error", join(flip(ls[0]), ls[1]), ErrCorrupt, 0, 0},
		{"a version 1 journal, from before intent records, loads", join(line(t, header{Format: Format, Version: 1, Job: fp}), ls[1], ls[2], ls[3]), nil, 3, 0},
		{"a newer version is refused", join(line(t, header{Format: Format, Version: Version + 1, Job: fp}), ls[1]), ErrVersion, 0, 0},
		{"version zero is refused", join(line(t, header{Format: Format, Job: fp}), ls[1]), ErrCorrupt, 0, 0},
		{"a text file is not a journal", []byte("hello\nworld\n"), ErrNotJournal, 0, 0},
		{"a short text file without newline is not a journal", []byte("hello"), ErrNotJournal, 0, 0},
		{"another json lines file is not a journal", []byte(`{"format":"other","version":1}` + "\n"), ErrNotJournal, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "j")
			must(t, os.WriteFile(path, tt.file, 0o600))
			st, err := Load(path)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Load = %v, want %v", err, tt.wantErr)
				}
				if !strings.HasPrefix(err.Error(), "load journal ") {
					t.Errorf("error %q does not start with the operation", err)
				}
				return
			}
			must(t, err)
			if got := st.Stats().Done; got != tt.wantDone {
				t.Errorf("Stats().Done = %d, want %d", got, tt.wantDone)
			}
			if got := len(st.Notes()); got != tt.wantNotes {
				t.Errorf("Notes() = %q, want %d notes", st.Notes(), tt.wantNotes)
			}
		})
	}
}

func TestOpen(t *testing.T) {
	good := journalBytes(t)
	newFile := func(t *testing.T, b []byte) string {
		path := filepath.Join(t.TempDir(), "j")
		must(t, os.WriteFile(path, b, 0o600))
		return path
	}
	// appendDone opens the journal at path, adds objA as done, closes it
	// and loads what it then holds.
	appendDone := func(t *testing.T, path string) *State {
		w, err := Open(path, fp)
		must(t, err)
		must(t, w.Done(objA, "dst/a"))
		must(t, w.Close())
		st, err := Load(path)
		must(t, err)
		return st
	}
	t.Run("a journal of another job is refused and left as it was", func(t *testing.T) {
		path := newFile(t, good)
		_, err := Open(path, "job-2")
		if !errors.Is(err, ErrOtherJob) {
			t.Fatalf("Open = %v, want ErrOtherJob", err)
		}
		for _, s := range []string{"open journal " + path, "job-1", "job-2"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q does not mention %q", err, s)
			}
		}
		assertFile(t, path, good)
	})
	t.Run("a file that is not a journal is refused and left as it was", func(t *testing.T) {
		path := newFile(t, []byte("precious"))
		if _, err := Open(path, fp); !errors.Is(err, ErrNotJournal) {
			t.Fatalf("Open = %v, want ErrNotJournal", err)
		}
		assertFile(t, path, []byte("precious"))
	})
	t.Run("a journal of a newer version is refused", func(t *testing.T) {
		path := newFile(t, line(t, header{Format: Format, Version: Version + 1, Job: fp}))
		if _, err := Open(path, fp); !errors.Is(err, ErrVersion) {
			t.Fatalf("Open = %v, want ErrVersion", err)
		}
	})
	t.Run("an empty fingerprint is refused", func(t *testing.T) {
		if _, err := Open(filepath.Join(t.TempDir(), "j"), ""); err == nil {
			t.Fatal("Open with an empty fingerprint succeeded")
		}
	})
	t.Run("a torn last record is cut before appending", func(t *testing.T) {
		path := newFile(t, good[:len(good)-5])
		w, err := Open(path, fp)
		must(t, err)
		if n := len(w.State().Notes()); n != 1 {
			t.Errorf("State().Notes() = %q, want one note", w.State().Notes())
		}
		must(t, w.Done(objA, "dst/a"))
		must(t, w.Close())
		st, err := Load(path)
		must(t, err)
		if len(st.Notes()) != 0 || st.Stats().Done != 3 || !st.Done(objA, "dst/a") {
			t.Errorf("after append: notes %q, stats %+v, Done(objA) %v; want no notes, 3 done including objA",
				st.Notes(), st.Stats(), st.Done(objA, "dst/a"))
		}
	})
	t.Run("a torn header is rewritten", func(t *testing.T) {
		path := newFile(t, lines(good)[0][:9])
		st := appendDone(t, path)
		if st.Fingerprint() != fp || !st.Done(objA, "dst/a") {
			t.Errorf("fingerprint %q, Done(objA) %v; want %q, true", st.Fingerprint(), st.Done(objA, "dst/a"), fp)
		}
	})
	t.Run("a second run appends to the first", func(t *testing.T) {
		path := newFile(t, good)
		st := appendDone(t, path)
		if st.Stats().Done != 4 {
			t.Errorf("Stats().Done = %d, want 4", st.Stats().Done)
		}
		b, err := os.ReadFile(path)
		must(t, err)
		if n := bytes.Count(b, []byte(`"format"`)); n != 1 {
			t.Errorf("journal has %d headers, want 1", n)
		}
	})
}

func assertFile(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	must(t, err)
	if !bytes.Equal(got, want) {
		t.Errorf("%s changed:\n got %q\nwant %q", path, got, want)
	}
}

func TestConcurrentAppends(t *testing.T) {
	const goroutines, each = 200, 50
	obj := func(g, i int) store.Object {
		return store.Object{Key: fmt.Sprintf("src/%d/%d", g, i), Size: int64(i), ETag: "e"}
	}
	path := write(t, func(w *Writer) {
		var wg sync.WaitGroup
		for g := range goroutines {
			wg.Go(func() {
				for i := range each {
					if err := w.Done(obj(g, i), fmt.Sprintf("dst/%d/%d", g, i)); err != nil {
						t.Error(err)
						return
					}
					if i%10 == 0 {
						if err := w.Flush(); err != nil {
							t.Error(err)
							return
						}
					}
				}
			})
		}
		wg.Wait()
	})
	st, err := Load(path)
	must(t, err)
	if got := st.Stats(); got.Done != goroutines*each || got.Records != goroutines*each {
		t.Fatalf("Stats() = %+v, want %d done records", got, goroutines*each)
	}
	for g := range goroutines {
		for i := range each {
			if !st.Done(obj(g, i), fmt.Sprintf("dst/%d/%d", g, i)) {
				t.Fatalf("object %d/%d missing", g, i)
			}
		}
	}
}

func TestWriter(t *testing.T) {
	t.Run("a record is in the file without flush or close", func(t *testing.T) {
		wrote := make(chan int, 1)
		cfg := defaultConfig()
		cfg.syncInterval = time.Hour
		cfg.wrote = wrote
		path := filepath.Join(t.TempDir(), "j")
		w, err := open(path, fp, cfg)
		must(t, err)
		defer w.Close()
		must(t, w.Done(objA, "dst/a"))
		<-wrote
		st, err := Load(path)
		must(t, err)
		if !st.Done(objA, "dst/a") {
			t.Error("record not in the file after the writer's batch")
		}
	})
	t.Run("appenders wait for room rather than fail when the buffer is full", func(t *testing.T) {
		cfg := defaultConfig()
		cfg.maxPending = 1
		path := filepath.Join(t.TempDir(), "j")
		w, err := open(path, fp, cfg)
		must(t, err)
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for i := range 100 {
					must(t, w.Done(store.Object{Key: fmt.Sprint(g, "/", i), Size: 1, ETag: "e"}, "d"))
				}
			})
		}
		wg.Wait()
		must(t, w.Close())
		st, err := Load(path)
		must(t, err)
		if st.Stats().Records != 800 {
			t.Errorf("Stats().Records = %d, want 800", st.Stats().Records)
		}
	})
	t.Run("calls after close fail with ErrClosed", func(t *testing.T) {
		w, err := Open(filepath.Join(t.TempDir(), "j"), fp)
		must(t, err)
		must(t, w.Close())
		if err := w.Done(objA, "d"); !errors.Is(err, ErrClosed) {
			t.Errorf("Done after Close = %v, want ErrClosed", err)
		}
		if err := w.Flush(); !errors.Is(err, ErrClosed) {
			t.Errorf("Flush after Close = %v, want ErrClosed", err)
		}
		if err := w.Close(); err != nil {
			t.Errorf("second Close = %v, want nil", err)
		}
	})
	t.Run("a write error is returned by every later call", func(t *testing.T) {
		w, err := Open(filepath.Join(t.TempDir(), "j"), fp)
		must(t, err)
		w.f.Close() // the disk goes away
		must(t, w.Done(objA, "d"))
		if err := w.Flush(); err == nil || !strings.HasPrefix(err.Error(), "write journal ") {
			t.Errorf("Flush = %v, want a write error", err)
		}
		if err := w.Done(objB, "d"); err == nil {
			t.Error("Done after a write error = nil, want the error")
		}
		if err := w.Close(); err == nil {
			t.Error("Close after a write error = nil, want the error")
		}
	})
	t.Run("an invalid record is refused", func(t *testing.T) {
		w, err := Open(filepath.Join(t.TempDir(), "j"), fp)
		must(t, err)
		defer w.Close()
		if err := w.Done(store.Object{Key: "k"}, ""); err == nil {
			t.Error("Done without a destination key = nil, want an error")
		}
		if err := w.PartDone("", store.Part{Number: 1}); err == nil {
			t.Error("PartDone without an upload id = nil, want an error")
		}
	})
	t.Run("a failed record keeps a bounded error text", func(t *testing.T) {
		path := write(t, func(w *Writer) {
			must(t, w.Failed(objA, "d", errors.New(strings.Repeat("x", 10000))))
		})
		info, err := os.Stat(path)
		must(t, err)
		if info.Size() > 1024 {
			t.Errorf("journal is %d bytes, want the error text cut to %d", info.Size(), maxErrLen)
		}
	})
}

func TestFingerprintAndDefaultPath(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("LocalAppData", t.TempDir())
	t.Run("fields are length-prefixed", func(t *testing.T) {
		if Fingerprint("ab", "c") == Fingerprint("a", "bc") {
			t.Error(`Fingerprint("ab", "c") == Fingerprint("a", "bc")`)
		}
	})
	t.Run("the same fields give the same fingerprint", func(t *testing.T) {
		if Fingerprint("s3://a/", "s3://b/") != Fingerprint("s3://a/", "s3://b/") {
			t.Error("Fingerprint is not deterministic")
		}
	})
	t.Run("the default path is under the user cache dir", func(t *testing.T) {
		dir, err := os.UserCacheDir()
		must(t, err)
		p := DefaultPath(Fingerprint("x"))
		want := filepath.Join(dir, "s3bulk", "journals") + string(filepath.Separator)
		if !strings.HasPrefix(p, want) || !strings.HasSuffix(p, ".journal") {
			t.Errorf("DefaultPath = %q, want %s<hash>.journal", p, want)
		}
	})
	t.Run("jobs get their own default paths", func(t *testing.T) {
		if DefaultPath("a") == DefaultPath("b") || DefaultPath("a") != DefaultPath("a") {
			t.Error("DefaultPath does not follow the fingerprint")
		}
	})
	t.Run("a journal at the default path can be opened", func(t *testing.T) {
		w, err := Open(DefaultPath("job"), "job")
		must(t, err)
		must(t, w.Close())
	})
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	return b
}
