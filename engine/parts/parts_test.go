package parts

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	gib = 1 << 30
	tib = 1 << 40
)

func TestPlan(t *testing.T) {
	tests := []struct {
		name           string
		size, partSize int64
		want           []Part
	}{
		{"an empty object is one empty part", 0, MinPartSize, []Part{{1, 0, 0}}},
		{"a one-byte object is one part", 1, MinPartSize, []Part{{1, 0, 1}}},
		{"exactly the minimum part size is one part", MinPartSize, MinPartSize, []Part{{1, 0, MinPartSize}}},
		{"one byte over the part size leaves a last part of one byte", MinPartSize + 1, MinPartSize,
			[]Part{{1, 0, MinPartSize}, {2, MinPartSize, 1}}},
		{"a multiple of the part size gives equal parts", 3 * 8 * mib, 8 * mib,
			[]Part{{1, 0, 8 * mib}, {2, 8 * mib, 8 * mib}, {3, 16 * mib, 8 * mib}}},
		{"a part size above the object size gives one part", 10, MaxPartSize, []Part{{1, 0, 10}}},
		{"part size zero is automatic", 20 * mib, 0, []Part{{1, 0, 8 * mib}, {2, 8 * mib, 8 * mib}, {3, 16 * mib, 4 * mib}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Plan(tt.size, tt.partSize)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Plan(%d, %d) (-want +got):\n%s", tt.size, tt.partSize, diff)
			}
		})
	}
}

func TestNewLayout(t *testing.T) {
	tests := []struct {
		name           string
		size, partSize int64
		want           Layout
	}{
		{"ten thousand minimum parts are not raised", MaxParts * MinPartSize, MinPartSize,
			Layout{Size: MaxParts * MinPartSize, PartSize: MinPartSize, Count: MaxParts}},
		{"one byte more raises the part size to the next whole MiB", MaxParts*MinPartSize + 1, MinPartSize,
			Layout{Size: MaxParts*MinPartSize + 1, PartSize: 6 * mib, Count: 8334}},
		{"a part size that fits is kept even when not a whole MiB", MaxParts*MinPartSize + 1, MinPartSize + 29,
			Layout{Size: MaxParts*MinPartSize + 1, PartSize: MinPartSize + 29, Count: MaxParts}},
		{"5 TiB in 8 MiB parts is raised to 525 MiB", 5 * tib, 8 * mib,
			Layout{Size: 5 * tib, PartSize: 525 * mib, Count: 9987}},
		{"the largest object is ten thousand parts of 5 GiB", MaxObjectSize, MinPartSize,
			Layout{Size: MaxObjectSize, PartSize: MaxPartSize, Count: MaxParts}},
		{"the largest object one byte short still needs 5 GiB parts", MaxObjectSize - 1, MaxPartSize,
			Layout{Size: MaxObjectSize - 1, PartSize: MaxPartSize, Count: MaxParts}},
		{"a part size large enough is kept", 5 * tib, MaxPartSize,
			Layout{Size: 5 * tib, PartSize: MaxPartSize, Count: 1024}},
		{"part size zero on a large object is the automatic upload size", 100 * gib, 0,
			Layout{Size: 100 * gib, PartSize: 64 * mib, Count: 1600}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NewLayout(tt.size, tt.partSize)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("NewLayout(%d, %d) (-want +got):\n%s", tt.size, tt.partSize, diff)
			}
			last := got.Part(got.Count)
			if end := last.Offset + last.Size; end != tt.size {
				t.Errorf("last part %+v ends at %d, want %d", last, end, tt.size)
			}
		})
	}
}

func TestPlanErrors(t *testing.T) {
	tests := []struct {
		name           string
		size, partSize int64
		want           error
	}{
		{"a negative size is refused", -1, MinPartSize, ErrObjectSize},
		{"one byte above the largest object is refused", MaxObjectSize + 1, MaxPartSize, ErrObjectSize},
		{"a part size one byte below 5 MiB is refused", 10 * mib, MinPartSize - 1, ErrPartSize},
		{"a part size one byte above 5 GiB is refused", 10 * gib, MaxPartSize + 1, ErrPartSize},
		{"a negative part size is refused", 10 * mib, -1, ErrPartSize},
		{"a small part size is refused even for a small object", 1, 1, ErrPartSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Plan(tt.size, tt.partSize)
			if !errors.Is(err, tt.want) {
				t.Errorf("Plan(%d, %d) = %v, %v; want error %v", tt.size, tt.partSize, got, err, tt.want)
			}
		})
	}
}

func TestPlanErrorMessage(t *testing.T) {
	_, err := Plan(10*mib, 1)
	want := "plan parts for 10485760 bytes: part size out of range: 1 bytes is not within 5 MiB to 5 GiB"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

func TestPartLast(t *testing.T) {
	tests := []struct {
		name string
		part Part
		want int64
	}{
		{"the first byte alone ends at zero", Part{1, 0, 1}, 0},
		{"a second part ends before the third begins", Part{2, 8 * mib, 8 * mib}, 16*mib - 1},
		{"an empty part ends before it begins", Part{1, 0, 0}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.part.Last(); got != tt.want {
				t.Errorf("%+v.Last() = %d, want %d", tt.part, got, tt.want)
			}
		})
	}
}

func TestLayoutPartPanicsOutOfRange(t *testing.T) {
	l, err := NewLayout(20*mib, MinPartSize)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int32{0, l.Count + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Part(%d) of %d parts did not panic", n, l.Count)
				}
			}()
			l.Part(n)
		}()
	}
}

func TestLayoutAllStopsEarly(t *testing.T) {
	l, err := NewLayout(100*mib, MinPartSize)
	if err != nil {
		t.Fatal(err)
	}
	var got []int32
	for p := range l.All() {
		if p.Number > 3 {
			break
		}
		got = append(got, p.Number)
	}
	if diff := cmp.Diff([]int32{1, 2, 3}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestAuto(t *testing.T) {
	const reported = 5_471_004_718 // the 5.09 GB object of the copy measurements
	tests := []struct {
		name string
		size int64
		kind Kind
		want int64
	}{
		{"the reported 5.09 GB copy gets the measured best 256 MiB", reported, Copy, 256 * mib},
		{"a small copy gets 64 MiB", 1 * mib, Copy, 64 * mib},
		{"a 2 GiB copy is 32 parts of 64 MiB", 2 * gib, Copy, 64 * mib},
		{"a byte more than 2 GiB copies in 128 MiB parts", 2*gib + 1, Copy, 128 * mib},
		{"an 8 GiB copy is 32 parts of 256 MiB", 8 * gib, Copy, 256 * mib},
		{"a byte more than 8 GiB copies in 512 MiB parts", 8*gib + 1, Copy, 512 * mib},
		{"a 5 TiB copy is raised above 512 MiB to fit 10,000 parts", 5 * tib, Copy, 525 * mib},
		{"the largest copy is in 5 GiB parts", MaxObjectSize, Copy, MaxPartSize},
		{"an impossible copy still gets at most 5 GiB", MaxObjectSize + 1, Copy, MaxPartSize},
		{"an empty upload gets 8 MiB", 0, Upload, 8 * mib},
		{"a 512 MiB upload is 64 parts of 8 MiB", 512 * mib, Upload, 8 * mib},
		{"a 1 GB upload gets 16 MiB", 1_000_000_000, Upload, 16 * mib},
		{"a 2 GiB upload is 64 parts of 32 MiB", 2 * gib, Upload, 32 * mib},
		{"a byte more than 2 GiB uploads in 64 MiB parts", 2*gib + 1, Upload, 64 * mib},
		{"a 625 GiB upload is 10,000 parts of 64 MiB", 625 * gib, Upload, 64 * mib},
		{"a byte more than 625 GiB raises the upload part size", 625*gib + 1, Upload, 65 * mib},
		{"a download takes fewer, larger parts than an upload", 1_000_000_000, Download, 128 * mib},
		{"a 256 MiB download takes 32 MiB parts", 256 * mib, Download, 32 * mib},
		{"a big download takes 128 MiB parts", 5 * gib, Download, 128 * mib},
		{"an unknown kind is sized like an upload", 1_000_000_000, Kind(9), 16 * mib},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Auto(tt.size, tt.kind); got != tt.want {
				t.Errorf("Auto(%d, %v) = %d MiB (%d), want %d MiB", tt.size, tt.kind, got/mib, got, tt.want/mib)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name      string
		kind      Kind
		size      int64
		threshold int64
		want      bool
	}{
		{"an empty object never splits", Upload, 0, 1, false},
		{"a copy just under the default threshold is one request", Copy, 256*mib - 1, 0, false},
		{"a copy at the default threshold splits", Copy, 256 * mib, 0, true},
		{"an upload at the default threshold splits", Upload, 64 * mib, 0, true},
		{"an upload just under the default threshold is one request", Upload, 64*mib - 1, 0, false},
		{"a 5 GiB copy under a higher threshold is one CopyObject", Copy, 5 * gib, 10 * gib, false},
		{"a copy above 5 GiB splits whatever the threshold", Copy, 5*gib + 1, 10 * gib, true},
		{"an upload above 5 GiB splits whatever the threshold", Upload, 5*gib + 1, 10 * gib, true},
		{"a download has no single-request limit", Download, 6 * gib, 10 * gib, false},
		{"a negative threshold means the default", Download, 64 * mib, -1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Split(tt.kind, tt.size, tt.threshold); got != tt.want {
				t.Errorf("Split(%v, %d, %d) = %v, want %v", tt.kind, tt.size, tt.threshold, got, tt.want)
			}
		})
	}
}

func TestThresholdIsBelowSingleRequestLimits(t *testing.T) {
	for _, k := range []Kind{Upload, Copy, Download} {
		if th := Threshold(k); th <= 0 || th > MaxSinglePut || th > MaxCopyObject {
			t.Errorf("Threshold(%v) = %d, want within 1..5 GiB", k, th)
		}
	}
}

func TestKindString(t *testing.T) {
	got := []string{Upload.String(), Copy.String(), Download.String(), Kind(7).String()}
	want := []string{"upload", "copy", "download", "Kind(7)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
