package batchops

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/s3control/types"

	"github.com/s3bulk/s3bulk/store"
)

// Limits of CreateJob that S3 Control checks on its side (the SDK checks only
// that required fields are there). From the S3 Control API model
// (botocore s3control/2018-08-20/service-2.json): JobPriority min 0,
// NonEmptyMaxLength256String (Description), NonEmptyMaxLength64String
// (ClientRequestToken), IAMRoleArn (1-2048, pattern below),
// NonEmptyMaxLength1024String (TargetKeyPrefix), ReportPrefixString (1-512),
// S3StorageClass's enum.
const (
	MaxDescription  = 256
	maxToken        = 64
	maxRoleArn      = 2048
	maxTargetPrefix = 1024
	maxReportPrefix = 512
)

// tagPattern is TagKeyString's and TagValueString's pattern; keys have 1 to
// 128 characters, values up to 256. accountPattern is AccountId's.
var (
	tagPattern     = regexp.MustCompile(`^([\p{L}\p{Z}\p{N}_.:/=+\-@]*)$`)
	accountPattern = regexp.MustCompile(`^\d{12}$`)
)

// roleArnPattern is IAMRoleArn's pattern, anchored: the model's pattern is
// matched against the whole value.
var roleArnPattern = regexp.MustCompile(`^arn:[^:]+:iam::\d{12}:role/.*$`)

// ErrInvalidJob marks a job S3 Control would refuse; nothing was sent.
var ErrInvalidJob = errors.New("invalid job")

// StorageClasses are the storage classes a copy job can write
// (S3StorageClass): REDUCED_REDUNDANCY is not among them ("Copying objects
// to the Reduced Redundancy Storage (RRS) class is not supported").
func StorageClasses() []string {
	var out []string
	for _, v := range types.S3StorageClass("").Values() {
		out = append(out, string(v))
	}
	return out
}

// Validate checks s against what S3 Control refuses at CreateJob, so that a
// caller can check before listing the source and uploading a manifest.
func (s CopySpec) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("create job: %s: %w", fmt.Sprintf(format, a...), ErrInvalidJob)
	}
	switch {
	case s.RoleArn == "":
		return bad("no role ARN")
	case len(s.RoleArn) > maxRoleArn || !roleArnPattern.MatchString(s.RoleArn):
		return bad("role ARN %q: want arn:PARTITION:iam::ACCOUNT-ID:role/NAME", s.RoleArn)
	case s.Priority < 0:
		return bad("priority %d: must be 0 or more", s.Priority)
	case utf8.RuneCountInString(s.Description) > MaxDescription:
		return bad("description of %d characters: at most %d", utf8.RuneCountInString(s.Description), MaxDescription)
	case len(s.Token) > maxToken:
		return bad("client request token of %d characters: at most %d", len(s.Token), maxToken)
	case s.DestBucket == "":
		return bad("no destination bucket")
	case utf8.RuneCountInString(s.DestPrefix) > maxTargetPrefix:
		return bad("destination prefix of %d characters: at most %d", utf8.RuneCountInString(s.DestPrefix), maxTargetPrefix)
	case s.StorageClass != "" && !slices.Contains(StorageClasses(), s.StorageClass):
		return bad("storage class %q: a copy job writes one of %v", s.StorageClass, StorageClasses())
	case s.Report.Enabled && s.Report.Bucket == "":
		return bad("a report needs a bucket")
	case s.Report.Enabled && utf8.RuneCountInString(s.Report.Prefix) > maxReportPrefix:
		return bad("report prefix of %d characters: at most %d", utf8.RuneCountInString(s.Report.Prefix), maxReportPrefix)
	case s.Report.Scope != "" && s.Report.Scope != ReportAllTasks && s.Report.Scope != ReportFailedTasks:
		return bad("report scope %q", s.Report.Scope)
	case s.ExpectedBucketOwner != "" && !accountPattern.MatchString(s.ExpectedBucketOwner):
		return bad("expected bucket owner %q: want a 12-digit account id", s.ExpectedBucketOwner)
	case s.ChecksumAlgorithm != "" && !slices.Contains(store.ChecksumAlgorithms, s.ChecksumAlgorithm):
		return bad("checksum algorithm %q: want one of %v", s.ChecksumAlgorithm, store.ChecksumAlgorithms)
	}
	if err := checkObjectLock(s.ObjectLock); err != nil {
		return bad("%v", err)
	}
	for k, v := range s.Tags {
		if n := utf8.RuneCountInString(k); n < 1 || n > 128 || !tagPattern.MatchString(k) {
			return bad("tag key %q: 1 to 128 letters, digits, spaces and _.:/=+-@", k)
		}
		if utf8.RuneCountInString(v) > 256 || !tagPattern.MatchString(v) {
			return bad("tag value %q: up to 256 letters, digits, spaces and _.:/=+-@", v)
		}
	}
	return nil
}

// TruncateDescription cuts d to what a job's description may hold, marking
// the cut with "...".
func TruncateDescription(d string) string {
	if utf8.RuneCountInString(d) <= MaxDescription {
		return d
	}
	r := []rune(d)
	return string(r[:MaxDescription-3]) + "..."
}

// checkObjectLock checks a job's Object Lock settings as S3 takes them: a
// retention is a mode and a date together, each of S3's values.
func checkObjectLock(l store.ObjectLock) error {
	switch {
	case l.Mode != "" && l.Mode != store.LockGovernance && l.Mode != store.LockCompliance:
		return fmt.Errorf("object lock mode %q: want %s or %s", l.Mode, store.LockGovernance, store.LockCompliance)
	case (l.Mode == "") != l.RetainUntil.IsZero():
		return errors.New("object lock: a retention needs both a mode and a retain-until date")
	case l.LegalHold != "" && l.LegalHold != store.LegalHoldOn && l.LegalHold != store.LegalHoldOff:
		return fmt.Errorf("object lock legal hold %q: want %s or %s", l.LegalHold, store.LegalHoldOn, store.LegalHoldOff)
	}
	return nil
}
