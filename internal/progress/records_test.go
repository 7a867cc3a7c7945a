package progress

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/engine/diff"
	"github.com/s3bulk/s3bulk/store"
)

var update = flag.Bool("update", false, "rewrite testdata/records.golden")

// records are one of each JSON record s3bulk prints, every field set, as
// the commands build them.
func records() []any {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("CET", 3600))
	size := func(n int64) *int64 { return &n }
	task := engine.Task{Op: engine.OpCopy, Src: "s3://src/a&b.json", Dst: "s3://dst/a&b.json", SrcKey: "a&b.json", DstKey: "a&b.json",
		Size: 6 << 20, ETag: `"d41d8cd98f00b204e9800998ecf8427e"`, ModTime: t0.UTC(), PartSize: 5 << 20, Reason: "missing at the destination", DeleteSource: true}
	return []any{
		task,
		newRecord(engine.Result{Task: task, Status: engine.StatusFailed, Err: errors.New("copy s3://src/a&b.json: slow down"),
			Duration: 1500 * time.Millisecond, Parts: 2, Unverified: true}),
		SummaryRecord{Type: "summary", Objects: 3, Deleted: 1, Bytes: 300, Failed: 1, Skipped: 2, Seconds: 1.5, ObjectsPerSecond: 2,
			MiBPerSecond: 0.5, ConcurrencyLimit: 256, Requests: map[string]int64{"CopyObject": 2, "ListObjectsV2": 1}, Unverified: 1},
		NewListRecord(store.Object{Key: "logs/<a>.json", Size: 42, ModTime: t0, ETag: `"abc"`, StorageClass: "GLACIER", IsPrefix: true}, "s3://b/logs/<a>.json"),
		NewBucketRecord("b", t0),
		UsageRecord{URL: "s3://b/logs/", StorageClass: "STANDARD_IA", Objects: 2, Bytes: 2048},
		UploadRecord{Op: "abort", Status: "failed", URL: "s3://b/k", UploadID: "id1", Initiated: t0.UTC(), Error: "abort s3://b/k: access denied"},
		diff.Finding{Type: diff.FindingDiffers, Key: "k", Src: "s3://a/k", Dst: "s3://b/k", SrcSize: size(4), DstSize: size(4),
			SrcETag: "e1", DstETag: "e2", Reason: "ETags differ (source e1, destination e2)"},
		NewVerifySummary(diff.CheckStats{Source: 5, Destination: 5, Identical: 2, SizeOnly: 1, Missing: 1, Extra: 1, Differing: 1, NotComparable: 1}, 0.25),
		SeedRecord{Dest: "s3://b/seed/", Objects: 5000, Bytes: 512000000, Seconds: 12.345},
	}
}

// TestRecordsAreAsDocumented prints every record, compares the lines with
// testdata/records.golden, and checks that docs/json.md names every field.
func TestRecordsAreAsDocumented(t *testing.T) {
	var got bytes.Buffer
	enc := NewJSON(&got)
	for _, r := range records() {
		fmt.Fprintf(&got, "# %T\n", r)
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	const golden = "testdata/records.golden"
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("records (-golden +got), rerun with -update after a deliberate change and update docs/json.md:\n%s", diff)
	}

	doc, err := os.ReadFile("../../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records() {
		typ := reflect.TypeOf(r)
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if !bytes.Contains(doc, []byte("`"+name+"`")) {
				t.Errorf("docs/json.md does not name field %q of %s", name, typ)
			}
		}
	}
}

// TestJSONWritesWholeLines checks that documents written at once never
// interleave, and that keys are not HTML-escaped.
func TestJSONWritesWholeLines(t *testing.T) {
	var buf bytes.Buffer
	enc := NewJSON(Locked(&buf)[0])
	done := make(chan struct{})
	for i := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 100 {
				_ = enc.Encode(ListRecord{Key: strings.Repeat(string(rune('a'+i)), 100) + "&<>", URL: "u"})
			}
		}()
	}
	for range 8 {
		<-done
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 800 {
		t.Fatalf("%d lines, want 800", len(lines))
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, `{"key":"`) || !strings.HasSuffix(l, `&<>","url":"u","size":0}`) {
			t.Fatalf("line %q is not one whole document", l)
		}
	}
}
