package diff

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/store"
)

// roundTrip writes objs through a spill writer and reads them back.
func roundTrip(t *testing.T, objs []store.Object) []store.Object {
	t.Helper()
	sp := &spill{parent: t.TempDir()}
	defer sp.cleanup()
	w, err := sp.newWriter("t", false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range objs {
		if err := w.write(&objs[i]); err != nil {
			t.Fatal(err)
		}
	}
	it, err := w.reader()
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Object
	for {
		o, ok, err := it.next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		out = append(out, o)
	}
}

func TestRecordsRoundTrip(t *testing.T) {
	objs := []store.Object{
		{},
		{Key: "a", Size: 1, ModTime: time.Date(2026, 1, 2, 3, 4, 5, 999999999, time.UTC), ETag: "abc", StorageClass: "STANDARD_IA"},
		{Key: strings.Repeat("k", 1024), Size: -1, IsPrefix: true},
		{Key: "é\x00\xff", Size: 1<<63 - 1, ModTime: time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC)},
		{Key: "old", ModTime: time.Date(1800, 6, 1, 0, 0, 0, 0, time.UTC)},
		{Key: "far", ModTime: time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)},
	}
	if diff := cmp.Diff(objs, roundTrip(t, objs)); diff != "" {
		t.Errorf("round trip (-written +read):\n%s", diff)
	}
}

func TestTimesComeBackInUTC(t *testing.T) {
	local := time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("x", -7*3600))
	got := roundTrip(t, []store.Object{{Key: "a", ModTime: local}})
	if !got[0].ModTime.Equal(local) || got[0].ModTime.Location() != time.UTC {
		t.Errorf("read back %v, want %v in UTC", got[0].ModTime, local)
	}
}

func TestTruncatedFilesAreAnError(t *testing.T) {
	rec := appendRecord(nil, &store.Object{Key: "abc", ModTime: time.Unix(5, 0), ETag: "e", StorageClass: "s"})
	for cut := range len(rec) {
		name := filepath.Join(t.TempDir(), "run")
		if err := os.WriteFile(name, rec[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		it := &fileIter{f: f, name: name, r: bufio.NewReader(f), left: 1}
		if o, ok, err := it.next(); err == nil {
			t.Errorf("a record cut to %d of %d bytes read as %+v, %v", cut, len(rec), o, ok)
		}
		f.Close()
	}
}

// FuzzRecord checks that any object survives the temporary-file encoding
// and that no bytes make the decoder panic or loop.
func FuzzRecord(f *testing.F) {
	f.Add("a", int64(1), int64(1767225600), int64(5), "etag", "STANDARD", false, []byte{3, 'a', 'b', 'c'})
	f.Add("", int64(-1), int64(0), int64(0), "", "", true, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, key string, size, sec, nsec int64, etag, class string, prefix bool, junk []byte) {
		o := store.Object{Key: key, Size: size, ETag: etag, StorageClass: class, IsPrefix: prefix}
		if sec != 0 || nsec != 0 {
			o.ModTime = time.Unix(sec, nsec%1e9).UTC()
		}
		b := appendRecord(nil, &o)
		it := &fileIter{r: bytes.NewReader(b), left: 1}
		got, err := it.decode()
		if err != nil {
			t.Fatalf("decode(appendRecord(%+v)): %v", o, err)
		}
		if diff := cmp.Diff(o, got); diff != "" {
			t.Fatalf("round trip (-written +read):\n%s", diff)
		}
		it = &fileIter{r: bytes.NewReader(junk), left: 1}
		_, _ = it.decode()
	})
}
