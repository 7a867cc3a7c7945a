package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine/diff"
	"github.com/s3bulk/s3bulk/internal/progress"
	"github.com/s3bulk/s3bulk/s3url"
)

func (a *app) verifyCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "verify SRC DST",
		Short: "Compare two listings: objects missing, extra, or differing in size or ETag",
		Long: `Compare what is under SRC with what is under DST, key by key relative to
each (both are taken as prefixes or directories, as cp --recursive does),
from the two listings alone: no object is read.

Each finding is one line on stdout (one JSON document with --json):

  MISSING SRC-URL: not in the destination (size)
  EXTRA DST-URL: not in the source (size)
  DIFFERS SRC-URL DST-URL: sizes differ, or ETags differ
  NOT-COMPARABLE SRC-URL DST-URL: same size, ETags that prove nothing either way

Pairs of the same size are compared by ETag when both have one and the
ETags can say something: two single-part ETags (MD5 digests) always; two
multipart ETags ("digest-N") when equal, or when both have the same part
count and the object's size allows only one part size for it (otherwise the
same bytes uploaded with other part sizes have other ETags). A local file
has no ETag: such pairs are compared by size only. Objects encrypted with
SSE-KMS or SSE-C have ETags that are not MD5 digests; two such copies of
the same bytes show as differing.

Exit codes: 0 when nothing is missing, extra or differing; 1 when something
is; 2 and 3 as for every command.`,
		Example: `  s3bulk verify s3://src/logs/ s3://dst/archive/logs/
  s3bulk verify ./photos s3://bucket/photos/`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runVerify(cmd.Context(), args[0], args[1])
		},
	}
}

func (a *app) runVerify(ctx context.Context, srcArg, dstArg string) error {
	start := time.Now()
	srcLoc, dstLoc, err := parsePair(srcArg, dstArg, false)
	if err != nil {
		return err
	}
	for _, l := range []s3url.Location{srcLoc, dstLoc} {
		if l.HasWildcard() {
			return usagef("verify %s: wildcards are not supported: give a prefix or directory", l)
		}
	}
	s := a.newSession()
	src, err := a.verifySide(ctx, s, srcLoc)
	if err != nil {
		return err
	}
	dst, err := a.verifySide(ctx, s, dstLoc)
	if err != nil {
		return err
	}
	out := &progress.Verify{Out: a.stdio.Out, Err: a.stdio.Err, JSON: a.g.json, Quiet: a.g.quiet}
	sum, err := diff.Check(ctx, src, dst, out.Finding)
	if err != nil {
		return fmt.Errorf("verify %s %s: %w", srcLoc, dstLoc, err)
	}
	out.Summary(sum, time.Since(start).Seconds())
	if n := sum.Differences(); n > 0 {
		return partialError{failed: n}
	}
	return nil
}

// verifySide opens one side: a bucket and a prefix, or a local directory.
// Either is taken as a directory.
func (a *app) verifySide(ctx context.Context, s *session, loc s3url.Location) (diff.Side, error) {
	if loc.IsS3() {
		c, err := s.s3(ctx)
		if err != nil {
			return diff.Side{}, err
		}
		b := c.Bucket(loc.Bucket)
		return diff.Side{Store: b, Base: loc.AsDir().Key, Lister: s.eng.Lister(b)}, nil
	}
	st, err := s.localDir(loc.Key)
	if err != nil {
		return diff.Side{}, err
	}
	return diff.Side{Store: st}, nil
}
