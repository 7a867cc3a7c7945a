package progress

import (
	"bytes"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/store"
)

func TestUsageAddsUpATotalOrOneLinePerClass(t *testing.T) {
	t.Parallel()
	objs := []store.Object{{Size: 1, StorageClass: "STANDARD"}, {Size: 2, StorageClass: "GLACIER"}, {Size: 4, StorageClass: "STANDARD"}}
	tests := []struct {
		name  string
		group bool
		objs  []store.Object
		want  []UsageRecord
	}{
		{"a total", false, objs, []UsageRecord{{URL: "s3://b/p/", Objects: 3, Bytes: 7}}},
		{"one line per class, by class", true, objs, []UsageRecord{
			{URL: "s3://b/p/", StorageClass: "GLACIER", Objects: 1, Bytes: 2},
			{URL: "s3://b/p/", StorageClass: "STANDARD", Objects: 2, Bytes: 5},
		}},
		{"nothing grouped is a total of zero", true, nil, []UsageRecord{{URL: "s3://b/p/"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := NewUsage("s3://b/p/", tt.group)
			for _, o := range tt.objs {
				if err := u.Add(o); err != nil {
					t.Fatal(err)
				}
			}
			if d := cmp.Diff(tt.want, u.Records()); d != "" {
				t.Errorf("records (-want +got):\n%s", d)
			}
		})
	}
}

func TestLockedTerminalKeepsAFilesFd(t *testing.T) {
	t.Parallel()
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, ok := LockedTerminal(f).(interface{ Fd() uintptr })
	if !ok || w.Fd() != f.Fd() {
		t.Errorf("a file's locked writer lost its Fd")
	}
	if _, ok := LockedTerminal(&bytes.Buffer{}).(interface{ Fd() uintptr }); ok {
		t.Errorf("a buffer's locked writer has an Fd")
	}
}
