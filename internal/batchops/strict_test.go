package batchops

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3bulk/s3bulk/internal/batchops/fakecontrol"
	"github.com/s3bulk/s3bulk/store"
)

func TestPartition(t *testing.T) {
	for region, want := range map[string]string{
		"us-east-1": "aws", "ap-northeast-1": "aws", "eu-west-3": "aws",
		"cn-north-1": "aws-cn", "cn-northwest-1": "aws-cn",
		"us-gov-west-1": "aws-us-gov", "us-iso-east-1": "aws-iso", "us-isob-east-1": "aws-iso-b",
		"": "aws",
	} {
		if got := Partition(region); got != want {
			t.Errorf("Partition(%q) = %q, want %q", region, got, want)
		}
	}
}

func TestBucketRegionAsksTheServer(t *testing.T) {
	e := newEnv(t, fakecontrol.Options{}, ClientOptions{AccountID: "123456789012"})
	got, err := BucketRegion(context.Background(), e.sdk, e.dst)
	if err != nil || got != e.srv.Region {
		t.Errorf("BucketRegion = %q, %v; want the server's %q", got, err, e.srv.Region)
	}
	if _, err := BucketRegion(context.Background(), e.sdk, "no-such-bucket-s3bulk"); err == nil {
		t.Error("BucketRegion of a missing bucket succeeded")
	}
}

// A client configured for one region creates a job in its destination's:
// ForRegion with BucketRegion's answer.
func TestCreateRunsInTheDestinationsRegion(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, fakecontrol.Options{}, ClientOptions{AccountID: "123456789012"})
	e.put(t, e.src, map[string]string{"a": "1"})
	cfg := e.awsConfig()
	cfg.Region = "eu-west-1" // the user's --region, say the source's
	jobs, err := NewClient(cfg, ClientOptions{AccountID: "123456789012", ControlEndpoint: e.fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	spec := e.spec(e.manifest(t, ManifestOptions{}))
	if _, err := jobs.Create(ctx, spec); err == nil {
		t.Fatal("a job created in eu-west-1 for a us-east-1 bucket was accepted")
	}
	region, err := BucketRegion(ctx, e.sdk, e.dst)
	if err != nil {
		t.Fatal(err)
	}
	there := jobs.ForRegion(region)
	id, err := there.Create(ctx, spec)
	if err != nil {
		t.Fatalf("Create in the destination's region %s: %v", region, err)
	}
	if j, err := there.Wait(ctx, id, WaitOptions{Interval: time.Millisecond}); err != nil || j.Status != StatusComplete {
		t.Errorf("job %s, %v; want Complete", j.Status, err)
	}
}

func TestCreateNamesThePartitionOfTheRegion(t *testing.T) {
	ctx := context.Background()
	const region = "cn-north-1"
	e := newEnv(t, fakecontrol.Options{Region: region, BucketRegion: func(string) string { return region }}, ClientOptions{AccountID: "123456789012"})
	e.put(t, e.src, map[string]string{"a": "1"})
	jobs := e.jobs.ForRegion(region)
	spec := e.spec(e.manifest(t, ManifestOptions{}))
	spec.RoleArn = "arn:aws-cn:iam::123456789012:role/s3bulk-batch"
	id, err := jobs.Create(ctx, spec)
	if err != nil {
		t.Fatalf("Create in %s: %v", region, err)
	}
	j, err := jobs.Wait(ctx, id, WaitOptions{Interval: time.Millisecond})
	if err != nil || j.Status != StatusComplete {
		t.Fatalf("job %s, %v; want Complete", j.Status, err)
	}
	if j.Report.Bucket != e.dst || !strings.HasPrefix(j.ARN, "arn:aws-cn:s3:"+region+":") {
		t.Errorf("report bucket %q, job ARN %q", j.Report.Bucket, j.ARN)
	}
}

func TestPoliciesNameThePartition(t *testing.T) {
	p := NewPolicies(PolicyInput{SourceBucket: "s", DestBucket: "d", ManifestBucket: "d", ReportBucket: "d", Partition: "aws-us-gov"})
	for _, pol := range []Policy{p.Role, p.Caller} {
		for _, st := range pol.Statement {
			for _, r := range st.Resource {
				if r != "*" && !strings.HasPrefix(r, "arn:aws-us-gov:s3:::") {
					t.Errorf("%s names %q, want an arn:aws-us-gov: ARN", st.Sid, r)
				}
			}
		}
	}
}

func TestCallerPolicyCoversWhatS3bulkDoes(t *testing.T) {
	p := NewPolicies(PolicyInput{
		SourceBucket: "s", SourcePrefix: "in/", DestBucket: "d", DestPrefix: "out/",
		ManifestBucket: "d", ManifestPrefix: "_batch/manifest/", ReportBucket: "d", ReportPrefix: "_batch/report/",
		KMSKeyARN: "arn:aws:kms:us-east-1:123456789012:key/k",
	})
	grants := map[string]bool{}
	for _, st := range p.Caller.Statement {
		for _, a := range st.Action {
			for _, r := range st.Resource {
				grants[a+" "+r] = true
			}
		}
	}
	for _, want := range []string{
		"s3:ListBucket arn:aws:s3:::s",                     // listing the source
		"s3:ListBucket arn:aws:s3:::d",                     // HeadBucket: the destination's region
		"s3:PutObject arn:aws:s3:::d/_batch/manifest/*",    // the manifest
		"s3:DeleteObject arn:aws:s3:::d/_batch/manifest/*", // a refused job's manifest
		"s3:GetObject arn:aws:s3:::d/_batch/report/*",      // the report
		"s3:GetObject arn:aws:s3:::s/in/*",                 // the local fallback's copies
		"s3:PutObject arn:aws:s3:::d/out/*",
		"s3:AbortMultipartUpload arn:aws:s3:::d/out/*",
		"kms:Decrypt arn:aws:kms:us-east-1:123456789012:key/k",
		"kms:GenerateDataKey arn:aws:kms:us-east-1:123456789012:key/k",
		"s3:CreateJob *",
	} {
		if !grants[want] {
			t.Errorf("the caller policy does not grant %s", want)
		}
	}
}

func TestValidateRefusesWhatS3ControlRefuses(t *testing.T) {
	good := CopySpec{RoleArn: testRole, DestBucket: "d", Priority: 10, Description: "ok",
		Report: ReportLocation{Enabled: true, Bucket: "d", Prefix: "r", Scope: ReportAllTasks}}
	if err := good.Validate(); err != nil {
		t.Fatalf("a good spec: %v", err)
	}
	tests := []struct {
		name   string
		change func(*CopySpec)
		want   string
	}{
		{"a negative priority", func(s *CopySpec) { s.Priority = -1 }, "priority -1"},
		{"a description of 257 characters", func(s *CopySpec) { s.Description = strings.Repeat("é", 257) }, "at most 256"},
		{"reduced redundancy", func(s *CopySpec) { s.StorageClass = "REDUCED_REDUNDANCY" }, `storage class "REDUCED_REDUNDANCY"`},
		{"an unknown storage class", func(s *CopySpec) { s.StorageClass = "standard" }, `storage class "standard"`},
		{"a role ARN without an account id", func(s *CopySpec) { s.RoleArn = "arn:aws:iam:::role/r" }, "role ARN"},
		{"a user ARN", func(s *CopySpec) { s.RoleArn = "arn:aws:iam::123456789012:user/u" }, "role ARN"},
		{"no role", func(s *CopySpec) { s.RoleArn = "" }, "no role ARN"},
		{"a long report prefix", func(s *CopySpec) { s.Report.Prefix = strings.Repeat("p", 513) }, "report prefix"},
		{"a long token", func(s *CopySpec) { s.Token = strings.Repeat("t", 65) }, "token"},
		{"a tag key with a star", func(s *CopySpec) { s.Tags = map[string]string{"a*b": "v"} }, "tag key"},
		{"an empty tag key", func(s *CopySpec) { s.Tags = map[string]string{"": "v"} }, "tag key"},
		{"a tag value of 257 characters", func(s *CopySpec) { s.Tags = map[string]string{"k": strings.Repeat("v", 257)} }, "tag value"},
		{"an expected owner that is not an account id", func(s *CopySpec) { s.ExpectedBucketOwner = "me" }, "expected bucket owner"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := good
			tt.change(&s)
			err := s.Validate()
			if !errors.Is(err, ErrInvalidJob) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate = %v, want ErrInvalidJob saying %q", err, tt.want)
			}
		})
	}
	if d := TruncateDescription(strings.Repeat("x", 300)); len(d) != MaxDescription || !strings.HasSuffix(d, "...") {
		t.Errorf("TruncateDescription gave %d characters", len(d))
	}
}

// TestTokenCoversEveryField changes each field of a spec in turn: each
// change must give another token, so that a changed rerun is another job,
// and an unchanged spec the same token.
func TestTokenCoversEveryField(t *testing.T) {
	base := CopySpec{
		Manifest: Manifest{Bucket: "m", Key: "k.csv", ETag: "e"}, RoleArn: testRole,
		DestBucket: "d", DestPrefix: "p/", StorageClass: "STANDARD", Priority: 10, Description: "x",
		Report:   ReportLocation{Enabled: true, Bucket: "r", Prefix: "rp", Scope: ReportAllTasks},
		Metadata: &Metadata{ContentType: "a/b", User: map[string]string{"k": "v"}},
	}
	if base.token() != base.token() {
		t.Fatal("the same spec gave two tokens")
	}
	changes := map[string]func(*CopySpec){
		"Manifest.Key":   func(s *CopySpec) { s.Manifest.Key = "other.csv" },
		"Manifest.ETag":  func(s *CopySpec) { s.Manifest.ETag = "f" },
		"RoleArn":        func(s *CopySpec) { s.RoleArn += "2" },
		"DestBucket":     func(s *CopySpec) { s.DestBucket = "d2" },
		"DestPrefix":     func(s *CopySpec) { s.DestPrefix = "q/" },
		"StorageClass":   func(s *CopySpec) { s.StorageClass = "STANDARD_IA" },
		"Priority":       func(s *CopySpec) { s.Priority = 11 },
		"Description":    func(s *CopySpec) { s.Description = "y" },
		"Report.Scope":   func(s *CopySpec) { s.Report.Scope = ReportFailedTasks },
		"Report.Prefix":  func(s *CopySpec) { s.Report.Prefix = "rq" },
		"Report.Enabled": func(s *CopySpec) { s.Report.Enabled = false },
		"Metadata.User":  func(s *CopySpec) { s.Metadata = &Metadata{ContentType: "a/b", User: map[string]string{"k": "w"}} },
		"Metadata.CacheCtl": func(s *CopySpec) {
			s.Metadata = &Metadata{ContentType: "a/b", CacheControl: "no", User: map[string]string{"k": "v"}}
		},
		"Metadata removed":  func(s *CopySpec) { s.Metadata = nil },
		"ObjectLock":        func(s *CopySpec) { s.ObjectLock = store.ObjectLock{LegalHold: store.LegalHoldOn} },
		"ChecksumAlgorithm": func(s *CopySpec) { s.ChecksumAlgorithm = "SHA256" },
	}
	for name, change := range changes {
		s := base
		s.Metadata = &Metadata{ContentType: "a/b", User: map[string]string{"k": "v"}}
		change(&s)
		if s.token() == base.token() {
			t.Errorf("changing %s kept the token", name)
		}
	}
	// Every field of CopySpec but Token itself is covered above or is a
	// struct whose fields are.
	covered := map[string]bool{"Manifest": true, "Generator": true, "Tags": true, "Confirm": true, "ExpectedBucketOwner": true, "RoleArn": true, "DestBucket": true, "DestPrefix": true, "StorageClass": true,
		"Metadata": true, "Report": true, "Priority": true, "Description": true, "Token": true, "ObjectLock": true, "ChecksumAlgorithm": true}
	rt := reflect.TypeOf(CopySpec{})
	for i := range rt.NumField() {
		if f := rt.Field(i); !covered[f.Name] {
			t.Errorf("CopySpec.%s is not covered by this test", f.Name)
		}
	}
}

func TestWaitToleratesAJobNotVisibleYetAndTransientErrors(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, fakecontrol.Options{InvisibleFor: 300 * time.Millisecond, FailDescribes: 4}, ClientOptions{AccountID: "123456789012"})
	e.put(t, e.src, map[string]string{"a": "1"})
	id, err := e.jobs.Create(ctx, e.spec(e.manifest(t, ManifestOptions{})))
	if err != nil {
		t.Fatal(err)
	}
	j, err := e.jobs.Wait(ctx, id, WaitOptions{Interval: 10 * time.Millisecond})
	if err != nil || j.Status != StatusComplete {
		t.Errorf("Wait = %s, %v; want Complete despite NotFound and 500s at first", j.Status, err)
	}
}

func TestWaitGivesUpOnAJobThatNeverAppears(t *testing.T) {
	e := newEnv(t, fakecontrol.Options{}, ClientOptions{AccountID: "123456789012"})
	start := time.Now()
	_, err := e.jobs.Wait(context.Background(), "00000000-0000-4000-8000-000000000000", WaitOptions{Interval: 10 * time.Millisecond, NotFoundGrace: 100 * time.Millisecond})
	if err == nil || !isNoSuchJob(err) || !strings.Contains(err.Error(), "still unknown") {
		t.Errorf("Wait = %v, want a NotFound error after the grace", err)
	}
	if time.Since(start) > 30*time.Second {
		t.Errorf("Wait took %s", time.Since(start))
	}
}

// A bucket in another region answers HeadBucket with 301 and the header;
// S3 itself is not needed to say so.
func TestBucketRegionReadsTheRedirect(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Amz-Bucket-Region", "eu-central-1")
		w.WriteHeader(http.StatusMovedPermanently)
	}))
	defer srv.Close()
	c := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("k", "s", ""),
		Retryer:     aws.NopRetryer{},
	})
	got, err := BucketRegion(context.Background(), c, "elsewhere")
	if err != nil || got != "eu-central-1" {
		t.Errorf("BucketRegion = %q, %v; want eu-central-1 from the 301", got, err)
	}
}
