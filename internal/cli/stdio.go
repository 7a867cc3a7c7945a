package cli

import (
	"context"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/progress"
	"github.com/s3bulk/s3bulk/internal/retry"
	"github.com/s3bulk/s3bulk/s3url"
)

// stdioArg is the argument that names standard input (as a source) or
// standard output (as a destination), as in the AWS CLI.
const stdioArg = "-"

// runStdio is cp with "-" for a side: an upload of standard input of
// unknown length, or an object written to standard output.
func (a *app) runStdio(ctx context.Context, srcArg, dstArg string, f transferFlags, move bool) error {
	switch {
	case srcArg == stdioArg && dstArg == stdioArg:
		return usagef("cp - -: one side must be an s3:// URL")
	case move:
		return usagef("mv: standard input and output cannot be moved: use cp")
	case f.recursive:
		return usagef("--recursive: a stream ('-') is one object")
	case f.journal != "":
		return usagef("--journal: a stream ('-') cannot be resumed")
	}
	if srcArg == stdioArg {
		return a.uploadStdin(ctx, dstArg, f)
	}
	return a.writeStdout(ctx, srcArg, f)
}

// objectArg parses the S3 side of a stream: one object.
func objectArg(arg string, raw bool, what string) (s3url.Location, error) {
	return parseOne(arg, raw, "cp: "+what, " with '-' on the other side", "name the object's key, not a bucket or prefix")
}

// uploadStdin uploads standard input to one object.
func (a *app) uploadStdin(ctx context.Context, dstArg string, f transferFlags) error {
	dst, err := objectArg(dstArg, f.raw, "destination")
	if err != nil {
		return err
	}
	if err := checkPartFlags(f.partSize, f.partConcurrency); err != nil {
		return err
	}
	if f.sel.active() {
		return usagef("cp - %s: filters select among listed objects; standard input is one", dst)
	}
	meta, err := f.meta.options()
	if err != nil {
		return err
	}
	var props engine.Options
	if err := f.meta.apply(&props); err != nil {
		return err
	}
	stdin, _ := parseLocation(stdioArg, true)
	_, dstOpts, err := f.obj.options(stdin, dst, a.env)
	if err != nil {
		return err
	}
	if f.obj.sourceEndpointURL != "" || f.obj.sourceProfile != "" || f.obj.req.SourceRegion != "" {
		return usagef("cp - %s: standard input has no source endpoint, profile or region", dst)
	}
	render := a.renderer()
	if a.g.dryRun {
		render(engine.Result{Task: engine.Task{Op: engine.OpUpload, Src: stdioArg, Dst: dst.String(), DstKey: dst.Key}, Status: engine.StatusDryRun})
		return nil
	}
	s := a.newSession()
	ep, err := s.openDest(ctx, dst, false, dstOpts)
	if err != nil {
		return err
	}
	opts := engine.Options{
		PartSize:       int64(f.partSize),
		PartStreams:    f.partConcurrency,
		MaxBufferBytes: int64(f.maxBuffer),
		Metadata:       meta,
		Tags:           props.Tags,
	}
	res, err := s.eng.PutStream(ctx, a.stdio.In, stdioArg, ep, ep.Loc.Key, opts)
	res, err = withFlagHints(res), flagHints(err)
	if err != nil && !wholeRunError(ctx, err) {
		render(res)
		return partialError{failed: 1}
	}
	if err != nil {
		return err
	}
	render(res)
	return nil
}

// wholeRunError reports whether err is one that every object would share
// (retry.StopsRun, the engine's list too) or an interruption: the
// command's error, not one object's.
func wholeRunError(ctx context.Context, err error) bool {
	return ctx.Err() != nil || retry.StopsRun(err)
}

// renderer returns the function that prints one result on stdout, as
// text or JSON.
func (a *app) renderer() func(engine.Result) {
	return progress.RunOutput{Out: a.stdio.Out, Err: a.stdio.Err, JSON: a.g.json, Quiet: a.g.quiet}.Start(nil).Result
}

// writeStdout writes one object to standard output, as cat does.
func (a *app) writeStdout(ctx context.Context, srcArg string, f transferFlags) error {
	src, err := objectArg(srcArg, f.raw, "source")
	if err != nil {
		return err
	}
	if f.sel.active() {
		return usagef("cp %s -: filters select among listed objects; this is one", src)
	}
	stdout, _ := parseLocation(stdioArg, true)
	srcOpts, _, side, err := f.obj.stores(src, stdout, a.env)
	if err != nil {
		return err
	}
	if a.g.dryRun {
		return nil // stdout is the object's: a plan has nowhere to go
	}
	ep, err := a.newSession().openSource(ctx, src, false, side, srcOpts)
	if err != nil {
		return err
	}
	return engine.Cat(ctx, ep.Store, src, a.stdio.Out)
}
