package cli

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/objopts"
	"github.com/s3bulk/s3bulk/s3url"
)

// lockFlags are the Object Lock settings of the objects cp and mv write
// (objopts.Lock).
type lockFlags struct{ req objopts.Lock }

func (f *lockFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.req.Mode, "object-lock-mode", "", "Object Lock retention mode of the objects written: GOVERNANCE, COMPLIANCE, or copy (each source's)")
	fl.StringVar(&f.req.RetainUntil, "object-lock-retain-until-date", "", "retain the objects written until this time (2027-01-02T15:04:05Z or 2027-01-02), or copy (each source's); with --object-lock-mode")
	fl.StringVar(&f.req.LegalHold, "object-lock-legal-hold", "", "legal hold of the objects written: ON, OFF, or copy (each source's)")
}

// active reports whether any of the flags was given.
func (f lockFlags) active() bool { return f.req.Active() }

// plan checks the flags against a transfer from src to dst
// (objopts.Lock.Plan); every error is a usage error.
func (f lockFlags) plan(src, dst s3url.Location) (objopts.LockPlan, error) {
	p, err := f.req.Plan(src, dst, time.Now())
	if err != nil {
		return p, usageError{err}
	}
	return p, nil
}

// lockBucket is a destination store that says whether its bucket has
// Object Lock (s3store.Store).
type lockBucket interface {
	ObjectLockEnabled(ctx context.Context) (bool, error)
}

// checkObjectLock refuses Object Lock settings for a destination bucket
// made without Object Lock, which would refuse every object: one line,
// before anything is written.
func (f lockFlags) checkObjectLock(ctx context.Context, dst engine.Endpoint) error {
	if !f.active() {
		return nil
	}
	lb, ok := dst.Store.(lockBucket)
	if !ok {
		return usagef("--object-lock-*: %s cannot keep Object Lock settings", dst.Loc)
	}
	on, err := lb.ObjectLockEnabled(ctx)
	if err != nil {
		return err
	}
	if !on {
		return usagef("--object-lock-*: s3://%s has no Object Lock (it can only be enabled when a bucket is made): nothing was copied", dst.Loc.Bucket)
	}
	return nil
}
