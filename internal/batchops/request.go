package batchops

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// CopyRequest is one batch copy as `batch cp` is asked for it: its
// locations as typed and the job's settings. Options checks it all, so
// that everything S3 Control would refuse is refused before the listing
// and the manifest upload. Its messages name batch cp's flags; every error
// it returns is the user's to fix.
type CopyRequest struct {
	// Src and Dst are s3:// URLs; Raw makes '*' and '?' in Src ordinary.
	Src, Dst string
	Raw      bool
	// Report is s3://bucket/prefix ("": the destination's
	// DefaultReportPrefix); ReportScope "all" or "failed".
	Report, ReportScope string
	// Manifest is s3://bucket/key.csv ("": a new key under the
	// destination's DefaultManifestPrefix).
	Manifest string
	// Versions is "", VersionsAuto, VersionsOn or VersionsOff.
	Versions   string
	StartAfter string
	MaxSize    int64

	RoleArn      string
	StorageClass string
	// ObjectLock and ChecksumAlgorithm are CopySpec's.
	ObjectLock        store.ObjectLock
	ChecksumAlgorithm string
	Description       string // "": "s3bulk cp SRC DST"
	Priority          int32
	Tags              map[string]string
	Confirm           bool
	ExpectedOwner     string

	Wait            bool
	NoLocalFallback bool

	// Inventory is the s3:// URL of an S3 Inventory report's
	// manifest.json (CSV) that the job takes as its manifest: nothing is
	// listed, and the job copies every object of the report.
	Inventory string

	// Generator lets S3 list the source (S3JobManifestGenerator), with
	// S3's own filters: the other fields need it.
	Generator                   bool
	Suffixes                    []string
	CreatedAfter, CreatedBefore time.Time
	MatchClasses                []string
}

// CpRequest is the batch copy a cp hands to a job: every key of src after
// startAfter, copied to dst as named, waited for, every task in the
// completion report; lock and checksum are set on every copy.
func CpRequest(src, dst s3url.Location, startAfter, roleArn string, lock store.ObjectLock, checksum string) CopyRequest {
	return CopyRequest{
		Src: named(src), Dst: named(dst), Raw: src.Literal, StartAfter: startAfter,
		RoleArn: roleArn, ReportScope: "all", Priority: 10, Wait: true,
		ObjectLock: lock, ChecksumAlgorithm: checksum,
	}
}

// named is a location as it was given, or as it prints.
func named(l s3url.Location) string {
	if l.Raw != "" {
		return l.Raw
	}
	return l.String()
}

// Plan reads the request's locations.
func (q CopyRequest) Plan() (CopyPlan, error) {
	var p CopyPlan
	var err error
	if p.Src, err = (s3url.Options{Raw: q.Raw}).Parse(q.Src); err != nil {
		return p, err
	}
	if p.Dst, err = s3url.ParseRaw(q.Dst); err != nil {
		return p, err
	}
	if !p.Src.IsS3() || !p.Dst.IsS3() {
		return p, fmt.Errorf("batch cp %s %s: both ends must be s3:// URLs (a job copies between buckets)", p.Src, p.Dst)
	}
	p.StartAfter = q.StartAfter
	p.MaxSize = q.MaxSize
	switch q.Versions {
	case "", VersionsAuto, VersionsOn, VersionsOff:
		p.Versions = q.Versions
	default:
		return p, fmt.Errorf("--version-ids %q: want auto, on or off", q.Versions)
	}
	if q.Report == "" {
		p.Report = s3url.Location{Bucket: p.Dst.Bucket, Key: DefaultReportPrefix}
	} else if p.Report, err = s3url.ParseRaw(q.Report); err != nil {
		return p, err
	} else if !p.Report.IsS3() {
		return p, fmt.Errorf("--report %s: want s3://bucket/prefix", q.Report)
	}
	switch q.ReportScope {
	case "all":
		p.ReportScope = ReportAllTasks
	case "failed":
		p.ReportScope = ReportFailedTasks
	default:
		return p, fmt.Errorf("--report-scope %q: want all or failed", q.ReportScope)
	}
	if q.Manifest == "" {
		p.Manifest = s3url.Location{Bucket: p.Dst.Bucket, Key: DefaultManifestPrefix + RunID() + ".csv"}
	} else if p.Manifest, err = s3url.ParseRaw(q.Manifest); err != nil {
		return p, err
	} else if !p.Manifest.IsS3() || p.Manifest.IsDirLike() {
		return p, fmt.Errorf("--manifest %s: want s3://bucket/key.csv", q.Manifest)
	}
	return p, nil
}

// RunID names one run's manifest: sortable by time, unique across machines.
func RunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// Options checks the request and returns the copy Runner.Copy runs. A dry
// run needs no role.
func (q CopyRequest) Options(dryRun bool) (CopyOptions, error) {
	p, err := q.Plan()
	if err != nil {
		return CopyOptions{}, err
	}
	if q.RoleArn == "" && !dryRun {
		return CopyOptions{}, fmt.Errorf("batch cp: --role-arn is required (see `s3bulk batch policy %s %s`)", p.Src, p.Dst)
	}
	desc := q.Description
	if desc == "" {
		desc = TruncateDescription("s3bulk cp " + p.Src.String() + " " + p.Dst.String())
	}
	o := CopyOptions{Plan: p, NoLocalFallback: q.NoLocalFallback, DryRun: dryRun, Wait: q.Wait}
	if q.Inventory != "" {
		if o.Inventory, err = inventoryLocation(q, p); err != nil {
			return CopyOptions{}, err
		}
	}
	o.Spec = CopySpec{
		RoleArn:      q.RoleArn,
		DestBucket:   p.Dst.Bucket,
		DestPrefix:   p.DestPrefix(),
		StorageClass: q.StorageClass,
		ObjectLock:   q.ObjectLock,
		Report:       ReportLocation{Enabled: true, Bucket: p.Report.Bucket, Prefix: p.Report.Key, Scope: p.ReportScope},
		Priority:     q.Priority,
		Description:  desc,
		Tags:         q.Tags,
		Confirm:      q.Confirm,

		ExpectedBucketOwner: q.ExpectedOwner,
		ChecksumAlgorithm:   q.ChecksumAlgorithm,
	}
	if q.Confirm && q.Wait {
		return o, errors.New("--confirm and --wait: a job that waits to be confirmed would never end; run it with `s3bulk batch run JOB --wait`")
	}
	if err := o.Spec.Validate(); err != nil && !(dryRun && q.RoleArn == "") {
		return o, err
	}
	if q.Generator {
		if o.Generator, err = q.generator(p); err != nil {
			return o, err
		}
	} else if len(q.Suffixes)+len(q.MatchClasses) > 0 || !q.CreatedAfter.IsZero() || !q.CreatedBefore.IsZero() {
		return o, errors.New("--suffix, --created-after, --created-before and --match-storage-class are S3's filters: they need --manifest-generator")
	}
	return o, nil
}

// generator checks the --manifest-generator flags: S3 lists the source
// itself, with its own filters.
func (q CopyRequest) generator(p CopyPlan) (*Generator, error) {
	if q.Versions == VersionsOn || q.Versions == VersionsOff {
		return nil, fmt.Errorf("--version-ids %s and --manifest-generator: S3 writes that manifest itself, and s3bulk does not choose its columns", q.Versions)
	}
	if p.Src.HasWildcard() {
		return nil, fmt.Errorf("--manifest-generator: S3 filters keys by prefix and suffix, not wildcards: give %s as a prefix and use --suffix", p.Src)
	}
	prefix := p.ListPrefix()
	for _, loc := range []s3url.Location{p.Report, {Bucket: p.Manifest.Bucket, Key: p.manifestDir()}} {
		if loc.Bucket == p.Src.Bucket && (strings.HasPrefix(loc.AsDir().Key, prefix) || strings.HasPrefix(prefix, loc.AsDir().Key)) {
			return nil, fmt.Errorf("--manifest-generator: s3://%s/%s lies inside the source, and S3 would copy it too: put --report elsewhere", loc.Bucket, loc.Key)
		}
	}
	for _, sc := range q.MatchClasses {
		if !slices.Contains(StorageClasses(), sc) {
			return nil, fmt.Errorf("--match-storage-class %q: want one of %v", sc, StorageClasses())
		}
	}
	return &Generator{Suffixes: q.Suffixes, CreatedAfter: q.CreatedAfter, CreatedBefore: q.CreatedBefore, StorageClasses: q.MatchClasses}, nil
}

// manifestDir is the "directory" of the manifest's key.
func (p CopyPlan) manifestDir() string {
	return p.Manifest.Key[:strings.LastIndexByte(p.Manifest.Key, '/')+1]
}

// Policies are the IAM documents the requested copy needs (NewPolicies),
// limited to its buckets and prefixes; roleArn narrows iam:PassRole,
// kmsKey adds the KMS key SSE-KMS objects need, region names the ARNs'
// partition.
func (q CopyRequest) Policies(roleArn, kmsKey, region string) (Policies, error) {
	p, err := q.Plan()
	if err != nil {
		return Policies{}, err
	}
	manifestPrefix := DefaultManifestPrefix
	if q.Manifest != "" {
		manifestPrefix = p.manifestDir()
	}
	return NewPolicies(PolicyInput{
		SourceBucket: p.Src.Bucket, SourcePrefix: p.ListPrefix(),
		DestBucket: p.Dst.Bucket, DestPrefix: p.DestPrefix(),
		ManifestBucket: p.Manifest.Bucket, ManifestPrefix: manifestPrefix,
		ReportBucket: p.Report.Bucket, ReportPrefix: p.Report.AsDir().Key,
		RoleArn: roleArn, KMSKeyARN: kmsKey,
		// Buckets of the region's partition: aws-cn, aws-us-gov...
		Partition: Partition(region),
	}), nil
}

// Text is the three documents with a comment line each, as `batch policy`
// prints them.
func (p Policies) Text() string {
	return fmt.Sprintf(`# Permissions policy of the job's role (pass the role with --role-arn):
%s

# Trust policy of that role, so S3 Batch Operations can assume it:
%s

# Permissions of the user or role that runs s3bulk batch:
%s
`, p.Role.JSON(), p.Trust.JSON(), p.Caller.JSON())
}
