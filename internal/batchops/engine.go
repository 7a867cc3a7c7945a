package batchops

import (
	"errors"
	"fmt"
	"time"

	"github.com/s3bulk/s3bulk/s3url"
)

// EngineAuto is `cp --engine auto`: start locally, measure, and hand the
// rest to a job when the model says it wins (Auto).
const EngineAuto = "auto"

// EngineChoice is who `cp --engine` asks to copy, with the flags that go
// with it.
type EngineChoice struct {
	// Engine is "" or EngineLocal, EngineBatchOps or EngineAuto.
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
}

// Transfer is what a cp asks for that a job may not be able to honour.
type Transfer struct {
	Src, Dst  s3url.Location
	Recursive bool
	Move      bool
	NoClobber bool
	// Selected: filters or a shard; Metadata: metadata flags; Object:
	// encryption, ACL, Requester Pays or source-* flags; LockCopy: Object
	// Lock settings copied from each source; Journal: a journal.
	Selected, Metadata, Object, LockCopy, Journal bool
	// Versions: --version-id or --all-versions.
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
	// RefuseObjectOptions: encryption, an ACL, Object Lock, Requester Pays, a source
	// region or source-* options (a job cannot read SSE-C sources at all).
	RefuseObjectOptions
	// RefuseJournal: a job's record is its completion report.
	RefuseJournal
	// RefuseOneObject: a job copies a prefix or a wildcard match.
	RefuseOneObject
	// RefuseVersions: a job copies the current version of each object, not
	// a version asked for, nor every version.
	RefuseVersions
	// RefuseLocations: what Blockers says of the source and destination.
	RefuseLocations
	// RefuseLockCopy: a job sets one Object Lock value for all its
	// objects, so it cannot keep each source's.
	RefuseLockCopy
)

// Refusal is one reason a copy job cannot do a transfer. Why says it in
// words that name no flag; a caller with flags (the CLI) words each kind
// with its own.
type Refusal struct {
	Kind RefusalKind
	Why  string
}

func (r Refusal) String() string { return r.Why }

// RefusedError is a job asked for (EngineBatchOps) that cannot do the
// transfer: the first of its refusals.
type RefusedError struct{ Refusal Refusal }

func (e *RefusedError) Error() string { return "a copy job cannot do this transfer: " + e.Refusal.Why }

// ErrNoRole: a job was asked for without the IAM role it runs as
// (EngineChoice.RoleArn).
var ErrNoRole = errors.New("a copy job needs an IAM role")

// ChoiceError is an EngineChoice field with a value Pick does not take.
type ChoiceError struct {
	Field string // "Engine", "Prefer" or "JobStartup/JobRate"
	Value string
}

func (e *ChoiceError) Error() string {
	return fmt.Sprintf("engine choice: %s %s is not one Pick takes", e.Field, e.Value)
}

// Refusals lists why a copy job cannot do t (docs/batchops.md has the whole
// mapping of cp's flags), Blockers included; none means it can.
func (t Transfer) Refusals() []Refusal {
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
	for _, b := range Blockers(t.Src, t.Dst) {
		add(RefuseLocations, b)
	}
	return out
}

// Pick checks the choice and returns the engine to run t with and, for
// auto, why a job is out of the question (auto then copies locally). Its
// errors are typed for the caller to word: *ChoiceError, *RefusedError,
// ErrNoRole.
func (c EngineChoice) Pick(t Transfer) (string, []Refusal, error) {
	switch c.Engine {
	case "", EngineLocal:
		return EngineLocal, nil, nil
	case EngineBatchOps, EngineAuto:
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
	if c.Engine == EngineAuto {
		return EngineAuto, reasons, nil
	}
	if len(reasons) > 0 {
		return "", nil, &RefusedError{reasons[0]}
	}
	if c.RoleArn == "" {
		return "", nil, ErrNoRole
	}
	return EngineBatchOps, nil, nil
}
