package transfer

import (
	"errors"
	"fmt"
	"time"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/batchops"
	"github.com/s3bulk/s3bulk/s3url"
)

// Who carries out a copy (Choice.Engine).
const (
	// Local: this machine, an engine.Engine.
	Local = "local"
	// BatchOps: one S3 Batch Operations job.
	BatchOps = "batchops"
	// Auto: start on this machine, measure its rate, and hand the rest to
	// a job when the model says a job wins (docs/design/0003-engine-auto.md).
	Auto = "auto"
)

// What auto optimises (Choice.Prefer).
const (
	PreferTime = "time"
	PreferCost = "cost"
)

// Choice is who carries out a copy, with what auto weighs.
type Choice struct {
	// Engine is "" or Local, BatchOps or Auto.
	Engine string
	// Prefer is PreferTime or PreferCost (auto).
	Prefer string
	// RoleArn is the job's role; batchops needs one, auto without one
	// only says what it would do.
	RoleArn string
	// JobStartup and JobRate are a job's assumed start-up time and
	// objects/s once active (auto).
	JobStartup time.Duration
	JobRate    float64
	// Window is how many finished objects auto measures before deciding
	// (0: batchops.DefaultAutoWindow).
	Window int64
}

// DefaultChoice is a local copy, with auto's default assumptions of a
// job's start-up and rate should Engine become Auto or BatchOps.
func DefaultChoice() Choice {
	a := batchops.JobAssumptions()
	return Choice{Engine: Local, Prefer: PreferTime, JobStartup: a.BatchStartup, JobRate: a.BatchObjectsPerSec}
}

// Asks is what a copy asks for that a job may not be able to honour.
// AsksOf reads it from a job and its options; a caller that checks a
// choice before opening its endpoints fills it in itself.
type Asks struct {
	Src, Dst  s3url.Location
	Recursive bool
	Move      bool
	NoClobber bool
	// Selected: a filter or a shard; Metadata: metadata, properties or
	// tags changed; Object: encryption, an ACL, Requester Pays, a source
	// region, or a source on another endpoint or account; LockCopy: Object
	// Lock settings copied from each source; Journal: a journal.
	Selected, Metadata, Object, LockCopy, Journal bool
	// Versions: one version asked for, or every version.
	Versions bool
}

// RefusalKind is what a copy job cannot honour in a transfer.
type RefusalKind int

const (
	// RefuseMove: a job cannot delete the sources.
	RefuseMove RefusalKind = iota + 1
	// RefuseNoClobber: a job overwrites keys that exist (it has no
	// condition on the destination).
	RefuseNoClobber
	// RefuseSelection: filters, a shard or metadata changes.
	RefuseSelection
	// RefuseObjectOptions: encryption, an ACL, Requester Pays, a source
	// region or source-* options (a job cannot read SSE-C sources at all).
	RefuseObjectOptions
	// RefuseJournal: a job's record is its completion report.
	RefuseJournal
	// RefuseOneObject: a job copies a prefix or a wildcard match.
	RefuseOneObject
	// RefuseVersions: a job copies the current version of each object, not
	// a version asked for, nor every version.
	RefuseVersions
	// RefuseLocations: a local end, or a source whose keys a job would
	// name otherwise than this copy does.
	RefuseLocations
	// RefuseLockCopy: a job sets one Object Lock value for all its
	// objects, so it cannot keep each source's.
	RefuseLockCopy
	// RefuseList: a job lists its source itself, or takes an inventory
	// report; not a list of keys a caller opened (engine.Job.From).
	RefuseList
)

// Refusal is one reason a copy job cannot do a transfer. Why says it in
// words that name no flag; a caller with flags (the CLI) words each kind
// with its own.
type Refusal struct {
	Kind RefusalKind
	Why  string
}

func (r Refusal) String() string { return r.Why }

// RefusedError is a job asked for (BatchOps) that cannot do the
// transfer: the first of its refusals.
type RefusedError struct{ Refusal Refusal }

func (e *RefusedError) Error() string { return "a copy job cannot do this transfer: " + e.Refusal.Why }

// ErrNoRole: a job was asked for without the IAM role it runs as
// (Choice.RoleArn).
var ErrNoRole = errors.New("a copy job needs an IAM role")

// ChoiceError is a Choice field with a value Pick does not take.
type ChoiceError struct {
	Field string // "Engine", "Prefer" or "JobStartup/JobRate"
	Value string
}

func (e *ChoiceError) Error() string {
	return fmt.Sprintf("engine choice: %s %s is not one Pick takes", e.Field, e.Value)
}

// AsksOf is what job and opts ask for; the stores' own options
// (encryption, an ACL, Requester Pays, another source endpoint) are not in
// them: set Object when the stores were opened with any.
func AsksOf(job engine.Job, opts engine.Options) Asks {
	return Asks{
		Src: job.Src.Loc, Dst: job.Dst.Loc, Recursive: job.Recursive, Move: job.Move,
		NoClobber: opts.NoClobber,
		Selected:  opts.Filter != nil || opts.Shard.Count > 0,
		Metadata:  opts.Metadata != nil || opts.Props != engine.CopyPropsDefault || opts.Tags != nil,
		LockCopy:  opts.CopyLock != (engine.LockCopy{}),
		Journal:   opts.Journal != nil,
		Versions:  job.VersionID != "" || job.AllVersions,
	}
}

// Refusals lists why a copy job cannot do t (docs/batchops.md has the whole
// mapping of cp's flags), Blockers included; none means it can.
func (t Asks) Refusals() []Refusal {
	var out []Refusal
	add := func(k RefusalKind, why string) { out = append(out, Refusal{k, why}) }
	if t.Move {
		add(RefuseMove, "a job cannot delete the sources")
	}
	if t.NoClobber {
		add(RefuseNoClobber, "a job overwrites keys that exist (it has no condition on the destination)")
	}
	if t.Selected || t.Metadata {
		add(RefuseSelection, "a job copies every key, with its metadata: no filters, shards or metadata changes")
	}
	if t.Object {
		add(RefuseObjectOptions, "a job takes no encryption, ACL, Requester Pays or source options (and cannot read SSE-C sources at all)")
	}
	if t.LockCopy {
		add(RefuseLockCopy, "a job sets one Object Lock value for all its objects, so it cannot keep each source's")
	}
	if t.Journal {
		add(RefuseJournal, "a job's record is its completion report, not a journal")
	}
	if t.Versions {
		add(RefuseVersions, "a job copies the current version of each object")
	}
	if t.Src.IsS3() && t.Dst.IsS3() && !t.Src.HasWildcard() && !t.Recursive && !t.Src.IsDirLike() {
		add(RefuseOneObject, "a job copies a prefix or a wildcard match, not one object")
	}
	for _, b := range batchops.Blockers(t.Src, t.Dst) {
		add(RefuseLocations, b)
	}
	return out
}

// Pick checks the choice and returns the engine to run t with and, for
// auto, why a job is out of the question (auto then copies locally). Its
// errors are typed for the caller to word: *ChoiceError, *RefusedError,
// ErrNoRole.
func (c Choice) Pick(t Asks) (string, []Refusal, error) {
	switch c.Engine {
	case "", Local:
		return Local, nil, nil
	case BatchOps, Auto:
	default:
		return "", nil, &ChoiceError{Field: "Engine", Value: fmt.Sprintf("%q", c.Engine)}
	}
	if c.Prefer != PreferTime && c.Prefer != PreferCost {
		return "", nil, &ChoiceError{Field: "Prefer", Value: fmt.Sprintf("%q", c.Prefer)}
	}
	if c.JobStartup < 0 || c.JobRate <= 0 {
		return "", nil, &ChoiceError{Field: "JobStartup/JobRate", Value: fmt.Sprintf("%s %g", c.JobStartup, c.JobRate)}
	}
	reasons := t.Refusals()
	if c.Engine == Auto {
		return Auto, reasons, nil
	}
	if len(reasons) > 0 {
		return "", nil, &RefusedError{reasons[0]}
	}
	if c.RoleArn == "" {
		return "", nil, ErrNoRole
	}
	return BatchOps, nil, nil
}
