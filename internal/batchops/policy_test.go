package batchops

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestPoliciesGolden(t *testing.T) {
	p := NewPolicies(PolicyInput{
		SourceBucket: "src-bucket", SourcePrefix: "1/",
		DestBucket: "dst-bucket", DestPrefix: "copy/",
		ManifestBucket: "dst-bucket", ManifestPrefix: "_batch/manifest/",
		ReportBucket: "dst-bucket", ReportPrefix: "_batch/report/",
		RoleArn: "arn:aws:iam::123456789012:role/s3bulk-batch",
	})
	got, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "policies.golden.json"), append(got, '\n'))
}

func TestPoliciesNameEachBucketOnceForGetBucketLocation(t *testing.T) {
	p := NewPolicies(PolicyInput{SourceBucket: "s", DestBucket: "d", ManifestBucket: "m", ReportBucket: "m"})
	var got []string
	for _, st := range p.Role.Statement {
		if st.Sid == "LocateBuckets" {
			got = st.Resource
		}
	}
	if diff := cmp.Diff([]string{"arn:aws:s3:::m"}, got); diff != "" {
		t.Errorf("GetBucketLocation resources (-want +got):\n%s", diff)
	}
}

func TestPoliciesWithoutPrefixesCoverWholeBuckets(t *testing.T) {
	p := NewPolicies(PolicyInput{SourceBucket: "s", DestBucket: "d", ManifestBucket: "d", ReportBucket: "d"})
	if got := p.Role.Statement[0].Resource[0]; got != "arn:aws:s3:::s/*" {
		t.Errorf("source resource = %q, want arn:aws:s3:::s/*", got)
	}
	if got := p.Caller.Statement[len(p.Caller.Statement)-1].Resource[0]; got != "*" {
		t.Errorf("PassRole resource without a role = %q, want *", got)
	}
}

// golden compares got with the file, or rewrites it under -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}
