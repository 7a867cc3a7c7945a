package engine

import (
	"context"
	"errors"
	"log/slog"

	"github.com/s3bulk/s3bulk/store"
)

// ACL grants are not copied: an object written gets the destination's
// default ACL (or the canned ACL of the destination store's options), never
// the source's grants, which name accounts the destination may not know and
// would cost a GetObjectAcl per object to read. What a run can afford is one
// request: the first copy between two S3 buckets asks the source bucket's
// Object Ownership (store.OwnershipReader) and, unless ACLs are disabled
// there (so that no object of it has a grant to lose), says once that
// grants are not copied (docs/design/0013-checksums-carried.md).

// noteACLs says once per run, on the run's first copy or stream between two
// S3 buckets, that ACL grants are not copied, unless the source bucket has
// ACLs disabled. It makes at most one request in the run, and never fails
// a task.
func (e *executor) noteACLs(ctx context.Context, t Task) {
	if t.Op != OpCopy && t.Op != OpStream || e.job.Src.Loc.Local || e.job.Dst.Loc.Local {
		return
	}
	if _, dup := e.said.LoadOrStore("acl-asked", true); dup {
		return
	}
	or, ok := e.job.Src.Store.(store.OwnershipReader)
	if !ok {
		return
	}
	var own string
	err := e.do(ctx, func(ctx context.Context) error {
		var err error
		own, err = or.ObjectOwnership(ctx)
		return err
	})
	const (
		msg   = "ACL grants not copied: objects written get the destination bucket's default ACL, or the canned ACL given with --acl; grant access there with a bucket policy or --acl"
		topic = "acl-not-copied"
	)
	switch {
	case ctx.Err() != nil:
	case errors.Is(err, store.ErrNotImplemented):
		e.sayOnce(topic, slog.LevelWarn, msg, "src", e.job.Src.Loc.String(),
			"why", "the source's server has no Object Ownership setting, so whether its objects have grants is unknown")
	case err != nil:
		e.sayOnce(topic, slog.LevelWarn, msg, "src", e.job.Src.Loc.String(),
			"why", "the source bucket's Object Ownership could not be read, so whether its objects have grants is unknown", "err", err)
	case own == store.OwnershipEnforced:
		// ACLs disabled: no object of the source has a grant to lose.
	case own == "":
		e.sayOnce(topic, slog.LevelWarn, msg, "src", e.job.Src.Loc.String(),
			"why", "the source bucket has ACLs enabled (no Object Ownership setting)")
	default:
		e.sayOnce(topic, slog.LevelWarn, msg, "src", e.job.Src.Loc.String(),
			"why", "the source bucket has ACLs enabled (Object Ownership "+own+")")
	}
}
