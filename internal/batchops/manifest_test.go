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
		Bucket:   "src",
		Prefix:   "1/",
		Match:    func(o store.Object) bool { return !strings.HasSuffix(o.Key, ".tmp") },
		MaxSize:  100,
		Oversize: func(o store.Object) error { oversize = append(oversize, o.Key); return nil },
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
	objs := listing{{Key: "at-limit", Size: MaxCopySize}, {Key: "over", Size: MaxCopySize + 1}}
	var sb strings.Builder
	st, err := WriteManifest(context.Background(), objs, ManifestOptions{Bucket: "b"}, &sb)
	if err != nil {
		t.Fatal(err)
	}
	if sb.String() != "b,at-limit\n" || st.Oversize != 1 {
		t.Errorf("manifest %q with %d oversize, want only the 5 GiB object in it and one oversize", sb.String(), st.Oversize)
	}
}

func TestWriteManifestStopsOnOversizeError(t *testing.T) {
	stop := errors.New("no fallback")
	_, err := WriteManifest(context.Background(), listing{{Key: "x", Size: 2}}, ManifestOptions{
		Bucket: "b", MaxSize: 1, Oversize: func(store.Object) error { return stop },
	}, &strings.Builder{})
	if !errors.Is(err, stop) {
		t.Errorf("WriteManifest = %v, want the callback's error", err)
	}
}
