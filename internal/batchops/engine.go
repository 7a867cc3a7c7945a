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
	// encryption, ACL, Object Lock, Requester Pays or source-* flags; Journal: a
	// journal.
	Selected, Metadata, Object, Journal bool
	// Versions: --version-id or --all-versions.
	Versions bool
}

// Refusals lists why a copy job cannot do t (docs/batchops.md has the whole
// mapping of cp's flags), Blockers included; none means it can.
func (t Transfer) Refusals() []string {
	var out []string
	if t.Move {
		out = append(out, "mv runs locally only (a job cannot delete the sources)")
	}
	if t.NoClobber {
		out = append(out, "--no-clobber needs --engine local: a job overwrites keys that exist (it has no condition on the destination)")
	}
	if t.Selected || t.Metadata {
		out = append(out, "filters, shards and metadata flags need --engine local")
	}
	if t.Object {
		out = append(out, "encryption, ACL, Object Lock, request-payer and source-region and source-* flags need --engine local (a job cannot read SSE-C sources at all)")
	}
	if t.Journal {
		out = append(out, "--journal needs --engine local: a job's record is its completion report")
	}
	if t.Versions {
		out = append(out, "--version-id and --all-versions need --engine local: a job copies the current version of each object")
	}
	if t.Src.IsS3() && t.Dst.IsS3() && !t.Src.HasWildcard() && !t.Recursive && !t.Src.IsDirLike() {
		out = append(out, "a job copies a prefix or a wildcard match, not one object: use --recursive or --engine local")
	}
	return append(out, Blockers(t.Src, t.Dst)...)
}

// Pick checks the choice and returns the engine to run t with and, for
// auto, why a job is out of the question (auto then copies locally). Its
// errors are the user's to fix and name cp's flags.
func (c EngineChoice) Pick(t Transfer) (string, []string, error) {
	switch c.Engine {
	case "", EngineLocal:
		return EngineLocal, nil, nil
	case EngineBatchOps, EngineAuto:
	default:
		return "", nil, fmt.Errorf("--engine %q: want local, batchops or auto", c.Engine)
	}
	if c.Prefer != PreferTime && c.Prefer != PreferCost {
		return "", nil, fmt.Errorf("--prefer %q: want time or cost", c.Prefer)
	}
	if c.JobStartup < 0 || c.JobRate <= 0 {
		return "", nil, fmt.Errorf("--job-startup %s --job-rate %g: want a duration of 0 or more and a rate above 0", c.JobStartup, c.JobRate)
	}
	reasons := t.Refusals()
	if c.Engine == EngineAuto {
		return EngineAuto, reasons, nil
	}
	if len(reasons) > 0 {
		return "", nil, errors.New("--engine batchops: " + reasons[0])
	}
	if c.RoleArn == "" {
		return "", nil, fmt.Errorf("--engine batchops needs --role-arn (see `s3bulk batch policy %s %s`)", t.Src, t.Dst)
	}
	return EngineBatchOps, nil, nil
}
