package bench

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefaultLayoutIsTheReports(t *testing.T) {
	l := DefaultLayout()
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	got := map[string]any{"users": l.Users(), "companies": l.Companies(), "bytes": l.Bytes()}
	want := map[string]any{"users": 1250, "companies": 13, "bytes": int64(5000 * 102400)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("default layout (-want +got):\n%s", diff)
	}
}

func TestLayoutKeys(t *testing.T) {
	l := DefaultLayout()
	tests := []struct {
		name string
		i    int
		want string
	}{
		{"the first object is the first file of the first user", 0, "company-0001/user-0001/file-01.json"},
		{"the fifth object starts the second user", 4, "company-0001/user-0002/file-01.json"},
		{"user 101 starts the second company", 400, "company-0002/user-0101/file-01.json"},
		{"the last object is in the thirteenth company", 4999, "company-0013/user-1250/file-04.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := l.Key(tt.i); got != tt.want {
				t.Errorf("Key(%d) = %q, want %q", tt.i, got, tt.want)
			}
		})
	}
}

func TestGroupByCompanyGivesTheLastCompanyTheRest(t *testing.T) {
	l := DefaultLayout()
	entries := make([]Entry, l.Objects)
	for i := range entries {
		entries[i] = Entry{Key: l.Key(i), Size: l.Size}
	}
	groups := groupByCompany(entries)
	var sizes []int
	for _, g := range groups {
		sizes = append(sizes, len(g.Objects))
	}
	want := []int{400, 400, 400, 400, 400, 400, 400, 400, 400, 400, 400, 400, 200}
	if diff := cmp.Diff(want, sizes); diff != "" {
		t.Errorf("objects per company (-want +got):\n%s", diff)
	}
	if groups[12].Company != "company-0013/" {
		t.Errorf("last company = %q", groups[12].Company)
	}
}

func TestGroupByCompanyKeepsRootKeysTogether(t *testing.T) {
	got := groupByCompany([]Entry{{Key: "a.json"}, {Key: "x/1"}, {Key: "b.json"}})
	want := []Group{
		{Company: "", Objects: []Entry{{Key: "a.json"}, {Key: "b.json"}}},
		{Company: "x/", Objects: []Entry{{Key: "x/1"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
}

func TestLayoutValidateRejects(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Layout)
		want   string
	}{
		{"a negative object count", func(l *Layout) { l.Objects = -1 }, "objects -1"},
		{"a body too small for JSON", func(l *Layout) { l.Size = 1 }, "size 1"},
		{"zero files per user", func(l *Layout) { l.FilesPerUser = 0 }, "files per user 0"},
		{"zero users per company", func(l *Layout) { l.UsersPerCompany = 0 }, "users per company 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := DefaultLayout()
			tt.change(&l)
			err := l.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "seed layout: ") {
				t.Errorf("Validate() = %v, want an error about %q", err, tt.want)
			}
		})
	}
}

func TestBodiesAreJSONOfExactlyTheSize(t *testing.T) {
	b := newBodies(1)
	key := "company-0001/user-0001/file-01.json"
	for _, size := range []int64{2, 3, 10, 70, 71, 72, 100, 1000, padLen - 1, padLen, padLen + 1, 100 << 10, 3*padLen + 17} {
		data, err := io.ReadAll(b.Body(key, 7, size))
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		if int64(len(data)) != size {
			t.Errorf("size %d: read %d bytes", size, len(data))
		}
		if !json.Valid(data) {
			t.Errorf("size %d: not JSON: %.80q", size, data)
		}
	}
}

func TestBodiesCarryTheirKeyWhenTheyCan(t *testing.T) {
	data, err := io.ReadAll(newBodies(1).Body("k/1.json", 3, 1000))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Key   string `json:"key"`
		Index int    `json:"index"`
		Pad   string `json:"pad"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Key != "k/1.json" || doc.Index != 3 || len(doc.Pad) < 900 {
		t.Errorf("body = {key:%q index:%d pad:%d bytes}", doc.Key, doc.Index, len(doc.Pad))
	}
}

func TestBodiesAreDeterministicAndDistinct(t *testing.T) {
	read := func(seed int64, index int) []byte {
		t.Helper()
		data, err := io.ReadAll(newBodies(seed).Body("same/key", index, 4096))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	if !bytes.Equal(read(1, 5), read(1, 5)) {
		t.Error("the same seed and index gave different bodies")
	}
	a, b := read(1, 5), read(1, 6)
	if bytes.Equal(a[40:], b[40:]) {
		t.Error("neighbouring objects share their filler")
	}
	if bytes.Equal(read(1, 5), read(2, 5)) {
		t.Error("different seeds gave the same body")
	}
}

func TestBodySeekAndReadAtAgreeWithRead(t *testing.T) {
	b := newBodies(9).Body("company-0001/user-0001/file-01.json", 1, 3*padLen+5)
	all, err := io.ReadAll(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []int64{0, 1, 60, padLen - 3, 2*padLen + 100, int64(len(all)) - 2} {
		if _, err := b.Seek(off, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 300)
		n, _ := io.ReadFull(b, got)
		if !bytes.Equal(got[:n], all[off:off+int64(n)]) {
			t.Errorf("read after seek to %d differs", off)
		}
		at := make([]byte, n)
		if _, err := b.ReadAt(at, off); err != nil && err != io.EOF {
			t.Fatal(err)
		}
		if !bytes.Equal(at, all[off:off+int64(n)]) {
			t.Errorf("ReadAt(%d) differs", off)
		}
	}
	if end, _ := b.Seek(0, io.SeekEnd); end != int64(len(all)) {
		t.Errorf("Seek to end = %d, want %d", end, len(all))
	}
}

func BenchmarkBody100KiB(b *testing.B) {
	bodies := newBodies(1)
	buf := make([]byte, 32<<10)
	b.SetBytes(100 << 10)
	b.ReportAllocs()
	for i := range b.N {
		body := bodies.Body("company-0001/user-0001/file-01.json", i, 100<<10)
		for {
			if _, err := body.Read(buf); err != nil {
				break
			}
		}
	}
}
