package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/engine/manifest"
	"github.com/s3bulk/s3bulk/internal/batchops"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store"
	"github.com/s3bulk/s3bulk/transfer"
)

// fromFlags give the objects of a cp, mv or sync instead of a listing of
// its source: a key list (--files-from) or an S3 Inventory report
// (--from-inventory), both read by engine/manifest.
type fromFlags struct {
	filesFrom string
	inventory string
}

func (f *fromFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.filesFrom, "files-from", "", "copy the keys listed in this file ('-': standard input) instead of listing the source: one key relative to the source prefix a line, or Batch Operations manifest lines bucket,key[,version] with URL-encoded keys")
	fl.StringVar(&f.inventory, "from-inventory", "", "copy the objects of this S3 Inventory report (s3://bucket/path/manifest.json; CSV, Parquet or ORC) instead of listing the source bucket")
}

// given reports whether either flag was given.
func (f *fromFlags) given() bool { return f.filesFrom != "" || f.inventory != "" }

// fingerprint tells apart the journals of runs given different lists.
func (f *fromFlags) fingerprint() string {
	if !f.given() {
		return ""
	}
	return " files-from=" + f.filesFrom + " inventory=" + f.inventory
}

// check refuses what the flags cannot go with, before anything is opened.
func (f *fromFlags) check(src s3url.Location) error {
	switch {
	case !f.given():
		return nil
	case f.filesFrom != "" && f.inventory != "":
		return usagef("--files-from and --from-inventory: give one or the other")
	case src.HasWildcard():
		return usagef("%s: a source with a wildcard lists; with --files-from or --from-inventory give a bucket or prefix", src)
	case f.inventory != "" && !src.IsS3():
		return usagef("--from-inventory: the source %s must be an S3 bucket or prefix", src)
	}
	return nil
}

// open reads and checks the key list or inventory for a run from src
// (opened as srcEP; check has passed): bad input is a usage error, before
// anything is copied. It returns nil without either flag; close releases
// what the list holds (a copy of standard input).
func (f *fromFlags) open(ctx context.Context, a *app, s *session, src s3url.Location, srcEP engine.Endpoint, side sourceSide, srcOpts s3store.Options) (from engine.Objects, close func(), err error) {
	close = func() {}
	if !f.given() {
		return nil, close, nil
	}
	base := srcEP.Base()
	if f.filesFrom != "" {
		k, err := manifest.OpenKeyList(f.filesFrom, a.stdio.In, src.Bucket, base)
		if err != nil {
			return nil, close, fromError("--files-from", err)
		}
		return k, func() { _ = k.Close() }, nil
	}
	loc, err := s3url.Parse(f.inventory)
	if err != nil || !loc.IsS3() || loc.Key == "" || loc.IsDirLike() {
		return nil, close, usagef("--from-inventory %s: want the s3:// URL of a report's manifest.json", f.inventory)
	}
	open := func(bucket string) (store.Store, error) {
		l := loc
		l.Bucket, l.Key = bucket, ""
		ep, err := s.openSource(ctx, l, false, side, srcOpts)
		return ep.Store, err
	}
	st, err := open(loc.Bucket)
	if err != nil {
		return nil, close, err
	}
	inv, err := manifest.OpenInventory(ctx, st, loc.Key, loc.String(), src.Bucket, open)
	if err != nil {
		return nil, close, fromError("--from-inventory", err)
	}
	return inv, close, nil
}

// fromError makes bad input a usage error naming its flag.
func fromError(flag string, err error) error {
	var ie *manifest.InputError
	if errors.As(err, &ie) {
		return usagef("%s %v", flag, err)
	}
	return err
}

// runInventoryJob is cp --engine batchops --from-inventory: the report's
// manifest.json is the job's manifest, as it is (pickEngine has refused
// filters and shards, which a job cannot apply).
func (a *app) runInventoryJob(ctx context.Context, f transferFlags, src, dst s3url.Location, t transfer.Request) error {
	if f.from.filesFrom != "" {
		return usagef("--engine batchops with --files-from: a job takes an inventory report (--from-inventory) or a manifest it is given by batch cp --manifest; or run on this machine")
	}
	q := batchops.CpRequest(src, dst, "", t.Choice.RoleArn, t.ObjectLock, t.Options.ChecksumAlgorithm)
	q.Inventory = f.from.inventory
	bf := f.engine.batch
	return fromError("--from-inventory", a.runBatchCp(ctx, &bf, q))
}
