package batchops

import (
	"fmt"
	"strings"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// CopyPlan is where one batch copy reads and writes: the source (a prefix
// or a wildcard, always copied recursively), the destination, and where the
// manifest and the completion report go.
type CopyPlan struct {
	Src, Dst s3url.Location
	// Manifest is the manifest object's location, s3://bucket/key.csv.
	Manifest s3url.Location
	// Report is the completion report's location, s3://bucket/prefix.
	Report s3url.Location
	// ReportScope is ReportAllTasks or ReportFailedTasks.
	ReportScope string
	// StartAfter leaves out the keys up to it: `cp --engine auto` copied
	// them from this machine before handing the rest to a job.
	StartAfter string
	// MaxSize is the largest object the job copies; 0 means MaxCopySize.
	MaxSize int64
	// Versions says whether the manifest pins each object's version:
	// VersionsAuto (the default, "") when the source bucket keeps
	// versions, VersionsOn always, VersionsOff never.
	Versions string
}

// Values of CopyPlan.Versions.
const (
	VersionsAuto = "auto"
	VersionsOn   = "on"
	VersionsOff  = "off"
)

// DestPrefix is the job's TargetKeyPrefix.
func (p CopyPlan) DestPrefix() string { return p.Dst.AsDir().Key }

// ListPrefix is what a listing of the source asks S3 for: the literal start
// of a wildcard, or the source as a directory.
func (p CopyPlan) ListPrefix() string {
	if p.Src.HasWildcard() {
		return p.Src.Prefix()
	}
	return p.Src.AsDir().Key
}

func (p CopyPlan) maxSize() int64 {
	if p.MaxSize <= 0 {
		return MaxCopySize
	}
	return p.MaxSize
}

// keep decides whether a listed object (by its whole key) belongs to the
// copy: it comes after StartAfter, and it is not one of s3bulk's own
// manifests or reports when those live in the source bucket. The source's
// prefix and wildcard are the plan's business (engine.Plan).
func (p CopyPlan) keep(key string) bool {
	if p.StartAfter != "" && key <= p.StartAfter {
		return false
	}
	if p.Manifest.Bucket == p.Src.Bucket && strings.HasPrefix(key, dirOf(p.Manifest.Key)) {
		return false
	}
	if p.Report.Bucket == p.Src.Bucket && strings.HasPrefix(key, p.Report.AsDir().Key) {
		return false
	}
	return true
}

func dirOf(key string) string { return key[:strings.LastIndexByte(key, '/')+1] }

// JobDest is the destination under which s3url's naming rule (DestKey of a
// recursive copy) names every object of src as a copy job does: a job has
// no way to drop a source prefix, so each object lands at the destination
// prefix (TargetKeyPrefix) followed by its whole source key. The engine
// names the local fallback's copies with it, so they land where the job's
// would.
func JobDest(src, dst s3url.Location) s3url.Location {
	return s3url.Location{Bucket: dst.Bucket, Key: s3url.JoinKey(dst.AsDir().Key, SourceBase(src)), Literal: true}
}

// DestKey is where a copy job from src to dst writes srcKey, one object of
// src: s3url.DestKey into JobDest.
func DestKey(src, dst s3url.Location, srcKey string) (string, error) {
	return s3url.DestKey(src, srcKey, JobDest(src, dst), false)
}

// engineJob is the copy as the engine plans it, named as the job names it.
func (p CopyPlan) engineJob(src, dst store.Store) engine.Job {
	return engine.Job{
		Src:       engine.Endpoint{Store: src, Loc: p.Src},
		Dst:       engine.Endpoint{Store: dst, Loc: JobDest(p.Src, p.Dst)},
		Recursive: true,
	}
}

// SourceBase is the part of src's keys that cp drops when naming
// destinations: the prefix of a recursive copy, or the key up to the last
// '/' before a wildcard.
func SourceBase(src s3url.Location) string {
	if src.HasWildcard() {
		return src.Base()
	}
	return src.AsDir().Key
}

// Blockers lists why a copy job cannot do what `cp SRC DST` (recursive, or
// with a wildcard) does; none means it can. `cp --engine auto` passes them
// to Choose as Workload.BatchBlocked.
func Blockers(src, dst s3url.Location) []string {
	var out []string
	if !src.IsS3() {
		out = append(out, "the source is local: a job copies between buckets only")
	}
	if !dst.IsS3() {
		out = append(out, "the destination is local: a job copies between buckets only")
	}
	if src.IsS3() && dst.IsS3() {
		if base := SourceBase(src); base != "" {
			out = append(out, fmt.Sprintf("a job keeps whole source keys (%s would land at %s) while cp drops %q; use `s3bulk batch cp` to copy that way",
				src.String(), "s3://"+dst.Bucket+"/"+s3url.JoinKey(JobDest(src, dst).Key, "..."), base))
		}
	}
	return out
}
