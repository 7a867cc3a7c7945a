package manifest_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/scritchley/orc"

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
	return putFiles(t, files)
}

// putFiles writes the objects of a report into a local directory.
func putFiles(t *testing.T, files []invtest.File) store.Store {
	t.Helper()
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

var formats = []string{"CSV", "Parquet", "ORC"}

func TestInventoryReadsCurrentVersionsOfEachFormat(t *testing.T) {
	for _, format := range formats {
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
			if inv.Format() != format || !inv.Sized() {
				t.Errorf("Format() %q, Sized() %v: want %q, true", inv.Format(), inv.Sized(), format)
			}
		})
	}
}

// rewriteManifest edits manifest.json and writes its checksum anew.
func rewriteManifest(fs []invtest.File, edit func(string) string) {
	m := &fs[len(fs)-2]
	m.Body = []byte(edit(string(m.Body)))
	sum := md5.Sum(m.Body)
	fs[len(fs)-1].Body = []byte(hex.EncodeToString(sum[:]) + "\n")
}

func TestInventoryRefusesBadReports(t *testing.T) {
	for _, format := range formats {
		r := invtest.Report{SourceBucket: "src", DestBucket: "inv", Prefix: "p", Format: format}
		for _, tc := range []struct {
			name   string
			bucket string
			tamper func([]invtest.File)
			want   string
		}{
			{"a data file whose checksum does not match", "src", func(fs []invtest.File) { fs[0].Body[len(fs[0].Body)-1] ^= 1 },
				"file-0000" + r.Ext() + ": MD5 "},
			{"a data file shorter than the manifest says", "src", func(fs []invtest.File) { fs[1].Body = fs[1].Body[:len(fs[1].Body)-1] },
				"file-0001" + r.Ext() + ": "},
			{"a report of another bucket", "other", nil, `an inventory of bucket "src", not of the source bucket "other"`},
			{"a manifest that does not match its checksum", "src", func(fs []invtest.File) { fs[len(fs)-1].Body = []byte("0123\n") },
				"but manifest.checksum says 0123"},
			{"a format of no inventory", "src", func(fs []invtest.File) {
				rewriteManifest(fs, func(m string) string { return strings.Replace(m, `"`+format+`"`, `"JSON"`, 1) })
			}, `file format "JSON": want CSV, Parquet or ORC`},
		} {
			t.Run(format+"/"+tc.name, func(t *testing.T) {
				st := putReport(t, r, tc.tamper)
				_, err := manifest.OpenInventory(context.Background(), st, "p/manifest.json", "s3://inv/p/manifest.json", tc.bucket, nil)
				var ie *manifest.InputError
				if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err = %v, want one line of InputError with %q", err, tc.want)
				}
				t.Log(err)
			})
		}
	}
}

// A data file the manifest vouches for (its size and checksum match) but
// that is not of the report's format is refused when it is read, with
// one line naming it.
func TestInventoryRefusesDataFilesNotOfItsFormat(t *testing.T) {
	good := func(format string) []byte {
		files, err := invtest.Report{SourceBucket: "src", Format: format}.Build(entries)
		if err != nil {
			t.Fatal(err)
		}
		return files[0].Body
	}
	orcFile, parquetFile := good("ORC"), good("Parquet")
	garbled := bytes.Clone(orcFile)
	for i := 3; i < len(garbled)/2; i++ {
		garbled[i] = 0xff
	}
	for _, tc := range []struct {
		name, format string
		body         []byte
		want         string
	}{
		{"a text file as Parquet", "Parquet", []byte("src,a\n"), "not a Parquet file"},
		{"a text file as ORC", "ORC", []byte("src,a\n"), "not an ORC file: no ORC magic at its start"},
		{"an empty file as ORC", "ORC", nil, "not an ORC file: 0 bytes"},
		{"a Parquet file as ORC", "ORC", parquetFile, "not an ORC file"},
		{"half an ORC file", "ORC", orcFile[:len(orcFile)/2], "not an ORC file"},
		{"an ORC file whose postscript claims more than the file", "ORC", append([]byte("ORC"), orcFile[len(orcFile)-200:]...), "not an ORC file: a footer of"},
		{"an ORC file with its stripes garbled", "ORC", garbled, "file-0000.orc: "},
		{"an ORC file without a key", "ORC", orcWithout(t), "file-0000.orc: no key field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := invtest.Report{SourceBucket: "src", DestBucket: "inv", Prefix: "p", Format: tc.format}
			files, err := r.Files(tc.body)
			if err != nil {
				t.Fatal(err)
			}
			inv, err := manifest.OpenInventory(context.Background(), putFiles(t, files), "p/manifest.json", "s3://inv/p/manifest.json", "src", nil)
			if err != nil {
				t.Fatal(err)
			}
			err = inv.Objects(context.Background(), func(store.Object) error { return nil })
			var ie *manifest.InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want one line of InputError with %q", err, tc.want)
			}
			t.Log(err)
		})
	}
}

// orcWithout is an ORC file of AWS's schema but for its key.
func orcWithout(t testing.TB) []byte {
	t.Helper()
	schema, err := orc.ParseSchema("struct<bucket:string,size:bigint>")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := orc.NewWriter(&buf, orc.SetSchema(schema), orc.SetCompression(orc.CompressionZlib{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write("src", int64(1)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzORCDataFile reads ORC files the manifest vouches for, whatever
// their bytes: the reader returns, and what it refuses is an InputError.
func FuzzORCDataFile(f *testing.F) {
	files, err := invtest.Report{SourceBucket: "src", Format: "ORC"}.Build(entries)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(files[0].Body)
	f.Add(orcWithout(f))
	f.Fuzz(func(t *testing.T, body []byte) {
		r := invtest.Report{SourceBucket: "src", DestBucket: "inv", Prefix: "p", Format: "ORC"}
		files, err := r.Files(body)
		if err != nil {
			t.Fatal(err)
		}
		inv, err := manifest.OpenInventory(context.Background(), putFiles(t, files), "p/manifest.json", "s3://inv/p/manifest.json", "src", nil)
		if err != nil {
			t.Fatal(err)
		}
		err = inv.Objects(context.Background(), func(o store.Object) error {
			if o.Key == "" {
				t.Fatalf("an entry without a key: %+v", o)
			}
			return nil
		})
		var ie *manifest.InputError
		if err != nil && !errors.As(err, &ie) {
			t.Fatalf("not an InputError: %v", err)
		}
	})
}
