package batchops

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/s3bulk/s3bulk/engine/manifest"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// inventoryLocation checks a request that gives an inventory report: the
// job copies every object of the report as it is, so the source is a
// bucket and nothing selects among its keys.
func inventoryLocation(q CopyRequest, p CopyPlan) (s3url.Location, error) {
	loc, err := s3url.ParseRaw(q.Inventory)
	switch {
	case err != nil || !loc.IsS3() || loc.Key == "" || loc.IsDirLike():
		return loc, fmt.Errorf("--from-inventory %s: want the s3:// URL of a report's manifest.json", q.Inventory)
	case p.Src.Key != "" || p.Src.HasWildcard():
		return loc, fmt.Errorf("--from-inventory with a job: the job copies the whole report, so the source is a bucket (s3://%s/), not %s", p.Src.Bucket, p.Src)
	case q.Generator:
		return loc, errors.New("--from-inventory and --manifest-generator: give one or the other")
	case q.StartAfter != "":
		return loc, errors.New("--from-inventory with a job: a report cannot start after a key")
	}
	return loc, nil
}

// fromInventory creates a job whose manifest is an S3 Inventory report,
// after checking it as a local copy from it would (its bucket, its
// checksums, every data file): S3 Batch Operations reads CSV reports
// only, so a Parquet or ORC report is refused once it is checked.
func (r *Runner) fromInventory(ctx context.Context, o CopyOptions) error {
	p, loc := o.Plan, o.Inventory
	st := r.Store(loc.Bucket)
	inv, err := manifest.OpenInventory(ctx, st, loc.Key, loc.String(), p.Src.Bucket, func(name string) (store.Store, error) { return r.Store(name), nil })
	if err != nil {
		return err
	}
	if inv.Format() != "CSV" {
		a := "a"
		if strings.EqualFold(inv.Format(), "ORC") {
			a = "an"
		}
		return &manifest.InputError{Name: loc.String(), Err: fmt.Errorf("%s %s report: S3 Batch Operations takes CSV inventory reports only (run without --engine batchops to copy it from this machine)", a, inv.Format())}
	}
	head, _, err := st.Head(ctx, loc.Key)
	if err != nil {
		return fmt.Errorf("head %s: %w", loc, err)
	}
	m := Manifest{Bucket: loc.Bucket, Key: loc.Key, ETag: head.ETag, Inventory: true}
	p.Manifest = loc
	r.plan(p, m, nil, o)
	if o.DryRun {
		return nil
	}
	spec := o.Spec
	spec.Manifest = m
	return r.startJob(ctx, p.Dst.Bucket, spec, o.Wait)
}
