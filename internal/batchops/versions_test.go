package batchops

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/batchops/fakecontrol"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store"
)

// versionedEnv is an env whose source bucket keeps versions (the embedded
// gateway with a versioning directory) and whose fake job overwrites
// "logs/a" with "new" before its first task: between the listing and the
// copy, as a busy bucket would.
func versionedEnv(t *testing.T) *env {
	t.Helper()
	srv := s3test.StartPrivate(t, s3test.WithVersioning())
	var e *env
	e = newEnvOn(t, srv, fakecontrol.Options{BeforeTask: func(_ string, task int) {
		if task == 0 {
			s3test.PutObject(t, e.sdk, e.src, "logs/a", []byte("new"))
		}
	}}, ClientOptions{AccountID: "123456789012"})
	if _, err := e.sdk.PutBucketVersioning(context.Background(), &s3.PutBucketVersioningInput{Bucket: aws.String(e.src),
		VersioningConfiguration: &s3types.VersioningConfiguration{Status: s3types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	e.put(t, e.src, map[string]string{"logs/a": "listed", "logs/b": "b"})
	return e
}

func TestAVersionedSourceGetsAVersionedManifestAndTheJobCopiesTheVersionListed(t *testing.T) {
	for _, tt := range []struct {
		versions, want string
		versioned      bool
	}{
		{"", "listed", true}, // auto: the bucket keeps versions
		{VersionsOn, "listed", true},
		{VersionsOff, "new", false}, // the job copies what is current when its task runs
	} {
		t.Run("versions="+tt.versions, func(t *testing.T) {
			e := versionedEnv(t)
			rec := &recorder{}
			var results []engine.Result
			o := e.copyOptions(t, "s3://"+e.src+"/logs/", "s3://"+e.dst+"/copy/")
			o.Plan.Versions = tt.versions
			if err := e.runner(rec, &results).Copy(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			if got := string(s3test.GetObject(t, e.sdk, e.dst, "copy/logs/a")); got != tt.want {
				t.Errorf("copy/logs/a = %q, want %q", got, tt.want)
			}
			if len(rec.plans) != 1 || rec.plans[0].Versioned != tt.versioned {
				t.Fatalf("plan = %+v, want versioned %t", rec.plans, tt.versioned)
			}
			man := string(s3test.GetObject(t, e.sdk, e.dst, "_batch/manifest/test.csv"))
			for _, line := range strings.Split(strings.TrimSpace(man), "\n") {
				if n := strings.Count(line, ",") + 1; n != map[bool]int{true: 3, false: 2}[tt.versioned] {
					t.Errorf("manifest line %q has %d columns", line, n)
				}
			}
		})
	}
}

func TestAnUnversionedSourceAskedForVersionsIsRefusedBeforeAnyUpload(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, fakecontrol.Options{}, ClientOptions{AccountID: "123456789012"})
	e.put(t, e.src, map[string]string{"k": "v"})
	rec := &recorder{}
	var results []engine.Result
	o := e.copyOptions(t, "s3://"+e.src, "s3://"+e.dst+"/copy/")
	o.Plan.Versions = VersionsOn
	err := e.runner(rec, &results).Copy(ctx, o)
	if !errors.Is(err, ErrInvalidJob) || !strings.Contains(err.Error(), "keeps no versions") {
		t.Fatalf("Copy = %v, want a refusal saying the bucket keeps no versions", err)
	}
	if keys := s3test.ListKeys(t, e.sdk, e.dst, ""); len(keys) != 0 {
		t.Errorf("destination holds %q, want nothing (no manifest, no copy)", keys)
	}
}

func TestTheFakeChecksVersionedManifestsAsS3Does(t *testing.T) {
	ctx := context.Background()
	e := versionedEnv(t)
	for _, tt := range []struct {
		name, manifest, wantStatus, want string
	}{
		{"a line without its version fails the manifest", e.src + ",logs/a\n", StatusFailed, "ManifestParseFailed"},
		{"an empty version fails the manifest", e.src + ",logs/a,\n", StatusFailed, "ManifestParseFailed"},
		{"a version that does not exist fails its task", e.src + ",logs/a,no-such-version\n", StatusComplete, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			key := "_batch/manifest/" + s3test.BucketName(tt.name, 0) + ".csv"
			s3test.PutObject(t, e.sdk, e.dst, key, []byte(tt.manifest))
			head, _, err := e.s3.Bucket(e.dst).Head(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			spec := e.spec(Manifest{Bucket: e.dst, Key: key, ETag: head.ETag, Versioned: true})
			spec.Description = tt.name
			id, err := e.jobs.Create(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			j, err := e.jobs.Wait(ctx, id, WaitOptions{Interval: 1})
			if err != nil {
				t.Fatal(err)
			}
			if j.Status != tt.wantStatus || !strings.Contains(strings.Join(j.FailureReasons, " "), tt.want) {
				t.Fatalf("job %s %v, want %s %s", j.Status, j.FailureReasons, tt.wantStatus, tt.want)
			}
			if tt.wantStatus == StatusComplete {
				_, rows := e.report(t, j)
				if len(rows) != 1 || rows[0].Status != TaskFailed || rows[0].VersionID != "no-such-version" {
					t.Errorf("report = %+v, want the version's task failed, naming it", rows)
				}
				var results []engine.Result
				err := e.runner(&recorder{}, &results).RetryLocally(ctx, e.jobs, id)
				if !errors.Is(err, ErrInvalidJob) || !strings.Contains(err.Error(), "pinned versions") || len(results) != 0 {
					t.Errorf("RetryLocally of a versioned job = %v (%d copied), want a refusal", err, len(results))
				}
			}
		})
	}
}

func TestVersionIDsAreURLEncodedInManifests(t *testing.T) {
	var b strings.Builder
	mw := newManifestWriter(&b, "src")
	mw.versioned = true
	if err := mw.add(storeObject("a b", "3/L4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY")); err != nil {
		t.Fatal(err)
	}
	if err := mw.add(storeObject("c", "")); err == nil {
		t.Error("a versioned manifest took an object without a version")
	}
	_ = mw.flush()
	if got, want := b.String(), "src,a%20b,3/L4kqtJlcpXroDTDmJ%2BrmSpXd3dIbrHY\n"; got != want {
		t.Errorf("manifest = %q, want %q", got, want)
	}
	r := parseRow([]string{"src", "a%20b", "3/L4kqtJlcpXroDTDmJ%2BrmSpXd3dIbrHY", "failed", "404", "NoSuchVersion", "x"}, 1)
	if r.VersionID != "3/L4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY" {
		t.Errorf("report row version = %q", r.VersionID)
	}
}

func storeObject(key, version string) store.Object { return store.Object{Key: key, VersionID: version} }
