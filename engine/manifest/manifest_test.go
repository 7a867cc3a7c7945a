package manifest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/engine/manifest"
	"github.com/s3bulk/s3bulk/internal/invtest"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/localstore"
)

func writeFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "keys.txt")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func collect(t *testing.T, src interface {
	Objects(context.Context, func(store.Object) error) error
}) []store.Object {
	t.Helper()
	var out []store.Object
	if err := src.Objects(context.Background(), func(o store.Object) error {
		out = append(out, o)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestKeyListReadsBothForms(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []store.Object
	}{
		{"plain keys are relative to the base, as they are", "a.json\r\n\nsub dir/b,c.json\n",
			[]store.Object{{Key: "data/a.json", Size: -1}, {Key: "data/sub dir/b,c.json", Size: -1}}},
		{"manifest lines name whole keys, URL-encoded, with versions", "src,other/a%20b.json\n\"src\",\"x+y\",\"v1\"\n",
			[]store.Object{{Key: "other/a b.json", Size: -1}, {Key: "x y", Size: -1, VersionID: "v1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := manifest.OpenKeyList(writeFile(t, tc.text), nil, "src", "data/")
			if err != nil {
				t.Fatal(err)
			}
			defer k.Close()
			if diff := cmp.Diff(tc.want, collect(t, k)); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
			if k.Entries() != int64(len(tc.want)) {
				t.Errorf("Entries() = %d, want %d", k.Entries(), len(tc.want))
			}
		})
	}
}

func TestKeyListRefusesMalformedLinesNamingTheLine(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"another bucket", "src,a\nother,b\n", "line 2: bucket \"other\": the source bucket is \"src\""},
		{"too many fields", "src,a,v,x\n", "line 1: 4 fields"},
		{"a bad escape", "src,a%zz\n", "line 1: key \"a%zz\": not URL-encoded"},
		{"an empty key", "src,\n", "line 1: empty key"},
		{"an unterminated quote", "src,\"a\n", "line 1: a quoted field that does not end"},
		{"a key too long", "a\n" + strings.Repeat("k", 1025) + "\n", "line 2: key of 1025 bytes"},
		{"not UTF-8", "a\n\xff\n", "line 2: key \"\\xff\": not UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := manifest.OpenKeyList(writeFile(t, tc.text), nil, "src", "")
			var ie *manifest.InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want an InputError with %q", err, tc.want)
			}
		})
	}
}

func TestKeyListFromStdinIsReadTwice(t *testing.T) {
	k, err := manifest.OpenKeyList("-", strings.NewReader("a\nb\n"), "src", "")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if got := len(collect(t, k)); got != 2 {
			t.Fatalf("%d objects, want 2", got)
		}
	}
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
}

func FuzzKeyListLine(f *testing.F) {
	for _, s := range []string{"a", "src,a", `"src","a""b",v`, "src,\"", "src,a%2", ",,", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\r\n") {
			return
		}
		p := filepath.Join(t.TempDir(), "k.csv")
		if err := os.WriteFile(p, []byte(line+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		k, err := manifest.OpenKeyList(p, nil, "src", "")
		if err != nil {
			var ie *manifest.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("not an InputError: %v", err)
			}
			return
		}
		defer k.Close()
		for _, o := range collect(t, k) {
			if o.Key == "" || len(o.Key) > manifest.MaxKeyLen {
				t.Fatalf("accepted key %q", o.Key)
			}
		}
	})
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// entries: a current object, an old version and a delete marker (left
// out), an encoded key, a size of zero.
var entries = []invtest.Entry{
	{Key: "data/a.json", VersionID: "v2", Size: 10, Modified: t0, ETag: "e1", StorageClass: "STANDARD"},
	{Key: "data/a.json", VersionID: "v1", NotLatest: true, Size: 9, Modified: t0, ETag: "e0"},
	{Key: "data/gone", VersionID: "v3", DeleteMarker: true, Modified: t0},
	{Key: "data/sp ace+plus%.txt", Size: 0, Modified: t0, ETag: "e2", StorageClass: "GLACIER"},
}

var want = []store.Object{
	{Key: "data/a.json", VersionID: "v2", Size: 10, ModTime: t0, ETag: "e1", StorageClass: "STANDARD"},
	{Key: "data/sp ace+plus%.txt", Size: 0, ModTime: t0, ETag: "e2", StorageClass: "GLACIER"},
}

// putReport writes a report into a local directory standing for the
// inventory's bucket; tamper may change its files first.
func putReport(t *testing.T, r invtest.Report, tamper func([]invtest.File)) store.Store {
	t.Helper()
	files, err := r.Build(entries[:2], entries[2:])
	if err != nil {
		t.Fatal(err)
	}
	if tamper != nil {
		tamper(files)
	}
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Key))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Body, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st, err := localstore.New(dir, localstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestInventoryReadsCurrentVersionsOfCSVAndParquet(t *testing.T) {
	for _, format := range []string{"CSV", "Parquet"} {
		t.Run(format, func(t *testing.T) {
			r := invtest.Report{SourceBucket: "src", DestBucket: "inv", Prefix: "inv/src/all/2026-01-02T01-00Z", Format: format}
			st := putReport(t, r, nil)
			inv, err := manifest.OpenInventory(context.Background(), st, r.Prefix+"/manifest.json", "s3://inv/m", "src", nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, collect(t, inv)); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInventoryRefusesBadReports(t *testing.T) {
	r := invtest.Report{SourceBucket: "src", DestBucket: "inv", Prefix: "p", Format: "CSV"}
	for _, tc := range []struct {
		name   string
		bucket string
		tamper func([]invtest.File)
		want   string
	}{
		{"a data file whose checksum does not match", "src", func(fs []invtest.File) { fs[0].Body[len(fs[0].Body)-1] ^= 1 },
			"file-0000.csv.gz: MD5 "},
		{"a report of another bucket", "other", nil, `an inventory of bucket "src", not of the source bucket "other"`},
		{"a manifest that does not match its checksum", "src", func(fs []invtest.File) { fs[len(fs)-1].Body = []byte("0123\n") },
			"but manifest.checksum says 0123"},
		{"an ORC report", "src", func(fs []invtest.File) {
			m := &fs[len(fs)-2]
			m.Body = []byte(strings.Replace(string(m.Body), `"CSV"`, `"ORC"`, 1))
			fs[len(fs)-1].Body = nil
		}, "an ORC report"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := putReport(t, r, tc.tamper)
			if tc.name == "an ORC report" {
				if err := st.Delete(context.Background(), "p/manifest.checksum"); err != nil {
					t.Fatal(err)
				}
			}
			_, err := manifest.OpenInventory(context.Background(), st, "p/manifest.json", "s3://inv/p/manifest.json", tc.bucket, nil)
			var ie *manifest.InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want an InputError with %q", err, tc.want)
			}
		})
	}
}
