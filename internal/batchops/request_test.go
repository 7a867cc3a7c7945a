package batchops

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/batchops/fakecontrol"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store/s3store"
)

func TestCopyRequestPlan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		q       CopyRequest
		check   func(t *testing.T, p CopyPlan)
		wantErr string
	}{
		{
			name: "the report and the manifest default to the destination bucket",
			q:    CopyRequest{Src: "s3://src/logs/", Dst: "s3://dst/copy/", ReportScope: "all"},
			check: func(t *testing.T, p CopyPlan) {
				if p.Report != (s3url.Location{Bucket: "dst", Key: DefaultReportPrefix}) {
					t.Errorf("report %v", p.Report)
				}
				if p.Manifest.Bucket != "dst" || !regexp.MustCompile(`^`+DefaultManifestPrefix+`\d{8}T\d{6}Z-[0-9a-f]{8}\.csv$`).MatchString(p.Manifest.Key) {
					t.Errorf("manifest %v", p.Manifest)
				}
				if p.ReportScope != ReportAllTasks {
					t.Errorf("scope %q", p.ReportScope)
				}
			},
		},
		{
			name: "locations given are kept, and a raw source keeps its stars",
			q:    CopyRequest{Src: "s3://src/a*b", Raw: true, Dst: "s3://dst/", Report: "s3://logs/r", Manifest: "s3://logs/m/x.csv", ReportScope: "failed", Versions: VersionsOff, StartAfter: "k", MaxSize: 7},
			check: func(t *testing.T, p CopyPlan) {
				if p.Src.HasWildcard() || p.Report.String() != "s3://logs/r" || p.Manifest.String() != "s3://logs/m/x.csv" ||
					p.ReportScope != ReportFailedTasks || p.Versions != VersionsOff || p.StartAfter != "k" || p.MaxSize != 7 {
					t.Errorf("plan %+v", p)
				}
			},
		},
		{name: "a local end is refused", q: CopyRequest{Src: "./d/", Dst: "s3://dst/", ReportScope: "all"}, wantErr: "both ends must be s3:// URLs"},
		{name: "an unknown version mode is refused", q: CopyRequest{Src: "s3://src/", Dst: "s3://dst/", ReportScope: "all", Versions: "some"}, wantErr: `--version-ids "some": want auto, on or off`},
		{name: "a local report is refused", q: CopyRequest{Src: "s3://src/", Dst: "s3://dst/", ReportScope: "all", Report: "./r"}, wantErr: "--report ./r: want s3://bucket/prefix"},
		{name: "an unknown scope is refused", q: CopyRequest{Src: "s3://src/", Dst: "s3://dst/", ReportScope: "some"}, wantErr: `--report-scope "some": want all or failed`},
		{name: "a manifest prefix is refused", q: CopyRequest{Src: "s3://src/", Dst: "s3://dst/", ReportScope: "all", Manifest: "s3://dst/m/"}, wantErr: "--manifest s3://dst/m/: want s3://bucket/key.csv"},
		{name: "a bad URL is refused", q: CopyRequest{Src: "s3://a/", Dst: "s3://dst/", ReportScope: "all"}, wantErr: "invalid bucket name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tt.q.Plan()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Plan: %v, want an error saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, p)
		})
	}
}

func TestCopyRequestOptions(t *testing.T) {
	t.Parallel()
	base := func() CopyRequest {
		return CopyRequest{Src: "s3://src/logs/", Dst: "s3://dst/copy/", ReportScope: "all", RoleArn: "arn:aws:iam::123456789012:role/r", Priority: 10}
	}
	tests := []struct {
		name    string
		edit    func(*CopyRequest)
		dryRun  bool
		check   func(t *testing.T, o CopyOptions)
		wantErr string
	}{
		{
			name: "the spec follows the plan", edit: func(q *CopyRequest) { q.Tags = map[string]string{"a": "b"}; q.Wait = true },
			check: func(t *testing.T, o CopyOptions) {
				s := o.Spec
				if s.DestBucket != "dst" || s.DestPrefix != "copy/" || s.Description != "s3bulk cp s3://src/logs/ s3://dst/copy/" ||
					s.Report.Bucket != "dst" || s.Report.Prefix != DefaultReportPrefix || !s.Report.Enabled || s.Tags["a"] != "b" || !o.Wait || o.Generator != nil {
					t.Errorf("options %+v", o)
				}
			},
		},
		{name: "a role is required", edit: func(q *CopyRequest) { q.RoleArn = "" }, wantErr: "batch cp: --role-arn is required (see `s3bulk batch policy s3://src/logs/ s3://dst/copy/`)"},
		{name: "a dry run needs no role", edit: func(q *CopyRequest) { q.RoleArn = "" }, dryRun: true, check: func(t *testing.T, o CopyOptions) {
			if !o.DryRun {
				t.Error("not a dry run")
			}
		}},
		{name: "confirm and wait are refused together", edit: func(q *CopyRequest) { q.Confirm, q.Wait = true, true }, wantErr: "--confirm and --wait"},
		{name: "what S3 Control refuses is refused", edit: func(q *CopyRequest) { q.StorageClass = "COLD" }, wantErr: `storage class "COLD"`},
		{name: "S3's filters need the generator", edit: func(q *CopyRequest) { q.Suffixes = []string{".json"} }, wantErr: "they need --manifest-generator"},
		{name: "a creation time needs the generator", edit: func(q *CopyRequest) { q.CreatedAfter = time.Unix(1, 0) }, wantErr: "they need --manifest-generator"},
		{
			name: "the generator takes S3's filters", edit: func(q *CopyRequest) {
				q.Generator, q.Suffixes, q.MatchClasses, q.CreatedBefore = true, []string{".json"}, []string{"STANDARD"}, time.Unix(9, 0)
			},
			check: func(t *testing.T, o CopyOptions) {
				g := o.Generator
				if g == nil || !slices.Equal(g.Suffixes, []string{".json"}) || !slices.Equal(g.StorageClasses, []string{"STANDARD"}) || !g.CreatedBefore.Equal(time.Unix(9, 0)) {
					t.Errorf("generator %+v", g)
				}
			},
		},
		{name: "the generator writes its own columns", edit: func(q *CopyRequest) { q.Generator, q.Versions = true, VersionsOn }, wantErr: "--version-ids on and --manifest-generator"},
		{name: "the generator takes no wildcard", edit: func(q *CopyRequest) { q.Generator, q.Src = true, "s3://src/*.json" }, wantErr: "not wildcards"},
		{name: "the generator refuses a report inside the source", edit: func(q *CopyRequest) { q.Generator, q.Src, q.Report = true, "s3://src/", "s3://src/reports" }, wantErr: "lies inside the source"},
		{name: "the generator refuses an unknown class", edit: func(q *CopyRequest) { q.Generator, q.MatchClasses = true, []string{"COLD"} }, wantErr: `--match-storage-class "COLD"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := base()
			tt.edit(&q)
			o, err := q.Options(tt.dryRun)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Options: %v, want an error saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, o)
		})
	}
}

func TestCopyRequestPoliciesNameTheManifestsDirectory(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ manifest, want string }{
		{"", "arn:aws-cn:s3:::dst/" + DefaultManifestPrefix + "*"},
		{"s3://logs/m/x.csv", "arn:aws-cn:s3:::logs/m/*"},
	} {
		pol, err := CopyRequest{Src: "s3://src/a/", Dst: "s3://dst/b/", ReportScope: "all", Manifest: tt.manifest}.Policies("", "", "cn-north-1")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(pol.Text(), tt.want) {
			t.Errorf("manifest %q: policies do not name %s:\n%s", tt.manifest, tt.want, pol.Text())
		}
		if !strings.HasPrefix(pol.Text(), "# Permissions policy of the job's role") {
			t.Errorf("text starts %q", pol.Text()[:40])
		}
	}
}

func TestCopyOnceRunsOneJobAndWaitsForIt(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, fakecontrol.Options{}, ClientOptions{AccountID: "123456789012"})
	e.put(t, e.src, map[string]string{"a": "1", "b/c": "22"})
	var results []engine.Result
	r := e.runner(&recorder{}, &results)
	src, dst := s3url.Location{Bucket: e.src}, s3url.Location{Bucket: e.dst, Key: "copy/"}
	j, m, err := r.CopyOnce(ctx, src, dst, e.spec(Manifest{}), "_batch/manifest/once.csv")
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != StatusComplete || j.Succeeded != 2 || m.Stats.Objects != 2 || m.Stats.Bytes != 3 {
		t.Errorf("job %+v, manifest %+v", j, m.Stats)
	}
	if got := s3test.ListKeys(t, e.sdk, e.dst, "copy/"); !slices.Equal(got, []string{"copy/a", "copy/b/c"}) {
		t.Errorf("destination %q", got)
	}

	// A job that cannot be created, or a client that cannot be made,
	// leaves no manifest behind.
	noRole := func(_ *Runner, s *CopySpec) { s.RoleArn = "" }
	noClient := func(r *Runner, _ *CopySpec) {
		r.Jobs = func(context.Context, string) (*Client, error) { return nil, errors.New("no region") }
	}
	for _, fail := range []func(*Runner, *CopySpec){noRole, noClient} {
		spec, rr := e.spec(Manifest{}), *r
		fail(&rr, &spec)
		if _, _, err := rr.CopyOnce(ctx, src, dst, spec, "_batch/manifest/failed.csv"); err == nil {
			t.Error("CopyOnce succeeded")
		}
		if keys := s3test.ListKeys(t, e.sdk, e.dst, "_batch/manifest/failed"); len(keys) != 0 {
			t.Errorf("manifest left behind: %q", keys)
		}
	}
}

func TestForBucketMovesToTheBucketsRegionAndSaysSo(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, fakecontrol.Options{}, ClientOptions{AccountID: "123456789012"})
	var notes []string
	note := func(m string) { notes = append(notes, m) }
	c, err := e.jobs.ForBucket(ctx, e.sdk, e.dst, note)
	if err != nil || c.Region() != e.srv.Region || len(notes) != 0 {
		t.Errorf("ForBucket in its own region: %v, %v, notes %q", c, err, notes)
	}
	other := e.jobs.ForRegion("eu-central-1")
	c, err = other.ForBucket(ctx, e.sdk, e.dst, note)
	if err != nil || c.Region() != e.srv.Region {
		t.Fatalf("ForBucket: %v, %v; want a client in %s", c, err, e.srv.Region)
	}
	want := "note: s3://" + e.dst + " is in " + e.srv.Region + ", not eu-central-1: the job is created there"
	if !slices.Equal(notes, []string{want}) {
		t.Errorf("notes %q, want %q", notes, want)
	}
}

func TestLoadAWSConfigGivesS3ControlTheGlobalEndpoint(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"the global endpoint is S3 Control's too", map[string]string{"AWS_ENDPOINT_URL": "http://control.example"}, "http://control.example"},
		{"the S3 endpoint is S3's only", map[string]string{"AWS_ENDPOINT_URL_S3": "http://s3.example"}, ""},
		{"configured endpoints ignored", map[string]string{"AWS_ENDPOINT_URL": "http://control.example", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "eu-west-1"}
			for k, v := range tt.env {
				env[k] = v
			}
			cfg, err := LoadAWSConfig(context.Background(), s3store.Config{ConfigFiles: []string{}, CredentialsFiles: []string{}}, func(k string) string { return env[k] })
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if cfg.BaseEndpoint != nil {
				got = *cfg.BaseEndpoint
			}
			if got != tt.want || cfg.Region != "eu-west-1" {
				t.Errorf("endpoint %q region %q, want %q in eu-west-1", got, cfg.Region, tt.want)
			}
		})
	}
}
