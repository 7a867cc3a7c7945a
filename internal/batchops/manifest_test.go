package batchops

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/s3bulk/s3bulk/store"
)

// listing is an in-memory store.Lister for testing what WriteManifest writes;
// the tests that upload manifests use the real S3 server.
type listing []store.Object

func (l listing) List(ctx context.Context, prefix, _ string, fn func(store.Object) error) error {
	for _, o := range l {
		if !strings.HasPrefix(o.Key, prefix) {
			continue
		}
		if err := fn(o); err != nil {
			return err
		}
	}
	return nil
}

func TestWriteManifest(t *testing.T) {
	objs := listing{
		{Key: "1/a b.json", Size: 10},
		{Key: "1/c+d.json", Size: 20},
		{Key: "1/big.bin", Size: 101},
		{Key: "1/skip.tmp", Size: 5},
		{Key: "1/sub/", IsPrefix: true},
		{Key: "2/x.json", Size: 1},
	}
	var oversize []string
	var sb strings.Builder
	st, err := WriteManifest(context.Background(), objs, ManifestOptions{
		Bucket:  "src",
		Prefix:  "1/",
		Match:   func(o store.Object) bool { return !strings.HasSuffix(o.Key, ".tmp") },
		MaxSize: 100,
		Route: func(o store.Object, reason string) error {
			if reason == ReasonTooBig {
				oversize = append(oversize, o.Key)
			}
			return nil
		},
	}, &sb)
	if err != nil {
		t.Fatal(err)
	}
	want := "src,1/a%20b.json\nsrc,1/c%2Bd.json\n"
	if sb.String() != want {
		t.Errorf("manifest = %q, want %q", sb.String(), want)
	}
	if diff := cmp.Diff(ManifestStats{Objects: 2, Bytes: 30, Oversize: 1, OversizeBytes: 101}, st); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"1/big.bin"}, oversize); diff != "" {
		t.Errorf("oversize (-want +got):\n%s", diff)
	}
}

func TestWriteManifestRoutesByMaxCopySize(t *testing.T) {
	// "Objects to be copied can be up to 5 GB in size": 5 GB, not 5 GiB.
	objs := listing{
		{Key: "at-limit", Size: MaxCopySize},
		{Key: "just-under-5GB", Size: 4_999_999_999},
		{Key: "over", Size: MaxCopySize + 1},
		{Key: "exactly-5GB", Size: 5_000_000_000},
		{Key: "exactly-5GiB", Size: 5 << 30},
	}
	manifest, st, routed := writeRouted(t, objs)
	if manifest != "b,at-limit\nb,just-under-5GB\n" || st.Oversize != 3 {
		t.Errorf("manifest %q with %d oversize, want only the objects under 5 GB in it and three oversize", manifest, st.Oversize)
	}
	want := []string{"over: " + ReasonTooBig, "exactly-5GB: " + ReasonTooBig, "exactly-5GiB: " + ReasonTooBig}
	if diff := cmp.Diff(want, routed); diff != "" {
		t.Errorf("routed (-want +got):\n%s", diff)
	}
}

func TestWriteManifestRoutesArchivedObjects(t *testing.T) {
	objs := listing{
		{Key: "deep", Size: 3, StorageClass: "DEEP_ARCHIVE"},
		{Key: "flexible", Size: 2, StorageClass: "GLACIER"},
		{Key: "instant", Size: 1, StorageClass: "GLACIER_IR"},
		{Key: "standard", Size: 1, StorageClass: "STANDARD"},
	}
	manifest, st, routed := writeRouted(t, objs)
	if manifest != "b,instant\nb,standard\n" {
		t.Errorf("manifest = %q, want only the objects a job can read", manifest)
	}
	if diff := cmp.Diff(ManifestStats{Objects: 2, Bytes: 2, Archived: 2, ArchivedBytes: 5}, st); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"deep: " + ReasonArchived, "flexible: " + ReasonArchived}, routed); diff != "" {
		t.Errorf("routed (-want +got):\n%s", diff)
	}
}

func TestWriteManifestStopsOnOversizeError(t *testing.T) {
	stop := errors.New("no fallback")
	_, err := WriteManifest(context.Background(), listing{{Key: "x", Size: 2}}, ManifestOptions{
		Bucket: "b", MaxSize: 1, Route: func(store.Object, string) error { return stop },
	}, &strings.Builder{})
	if !errors.Is(err, stop) {
		t.Errorf("WriteManifest = %v, want the callback's error", err)
	}
}

// writeRouted writes the manifest of objs in bucket b, and lists the
// objects routed aside with their reasons.
func writeRouted(t *testing.T, objs listing) (manifest string, st ManifestStats, routed []string) {
	t.Helper()
	var sb strings.Builder
	st, err := WriteManifest(context.Background(), objs, ManifestOptions{Bucket: "b", Route: func(o store.Object, reason string) error {
		routed = append(routed, o.Key+": "+reason)
		return nil
	}}, &sb)
	if err != nil {
		t.Fatal(err)
	}
	return sb.String(), st, routed
}
