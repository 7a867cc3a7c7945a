package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine/diff"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
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

// verifySummary counts a verify run's pairs and findings.
type verifySummary struct {
	Type          string  `json:"type"` // "summary"
	Source        int64   `json:"source"`
	Destination   int64   `json:"destination"`
	Identical     int64   `json:"identical"`
	SizeOnly      int64   `json:"size_only"` // of Identical: compared by size alone
	Missing       int64   `json:"missing"`
	Extra         int64   `json:"extra"`
	Differing     int64   `json:"differing"`
	NotComparable int64   `json:"not_comparable"`
	Seconds       float64 `json:"seconds"`
}

func (s verifySummary) differences() int64 { return s.Missing + s.Extra + s.Differing }

// verifyFinding is one line of output: a key that is not the same on both
// sides, or cannot be shown to be.
type verifyFinding struct {
	Type    string `json:"type"` // missing, extra, differs, not-comparable
	Key     string `json:"key"`  // relative to SRC and DST
	Src     string `json:"src,omitempty"`
	Dst     string `json:"dst,omitempty"`
	SrcSize *int64 `json:"src_size,omitempty"`
	DstSize *int64 `json:"dst_size,omitempty"`
	SrcETag string `json:"src_etag,omitempty"`
	DstETag string `json:"dst_etag,omitempty"`
	Reason  string `json:"reason"`
}

func (f verifyFinding) text() string {
	switch f.Type {
	case "missing":
		return fmt.Sprintf("MISSING %s: %s", f.Src, f.Reason)
	case "extra":
		return fmt.Sprintf("EXTRA %s: %s", f.Dst, f.Reason)
	}
	return fmt.Sprintf("%s %s %s: %s", strings.ToUpper(f.Type), f.Src, f.Dst, f.Reason)
}

// verifySide is one side of a verify: a store, the prefix its listing
// starts at, and the base its relative keys are cut from.
type verifySide struct {
	st   store.Store
	base string
}

func (v verifySide) list() diff.ListFunc {
	rel := diff.Relative(v.st, v.base, v.base)
	return func(ctx context.Context, fn func(store.Object) error) error {
		return rel(ctx, func(o store.Object) error {
			// A "directory marker" is no object to compare: a local tree
			// never has one, and cp does not make files of them.
			if strings.HasSuffix(o.Key, "/") && o.Size == 0 {
				return nil
			}
			return fn(o)
		})
	}
}

func (a *app) runVerify(ctx context.Context, srcArg, dstArg string) error {
	start := time.Now()
	srcLoc, err := parseLocation(srcArg, false)
	if err != nil {
		return err
	}
	dstLoc, err := parseLocation(dstArg, false)
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

	sum := verifySummary{Type: "summary"}
	enc := json.NewEncoder(a.stdio.Out)
	enc.SetEscapeHTML(false)
	report := func(f verifyFinding) error {
		if a.g.json {
			return enc.Encode(f)
		}
		_, err := fmt.Fprintln(a.stdio.Out, f.text())
		return err
	}
	h := diff.Handler{
		OnlySource: func(o store.Object) error {
			sum.Missing++
			return report(verifyFinding{Type: "missing", Key: o.Key, Src: src.st.URL(src.base + o.Key), SrcSize: &o.Size,
				Reason: fmt.Sprintf("not in the destination (%d bytes)", o.Size)})
		},
		OnlyDest: func(o store.Object) error {
			sum.Extra++
			return report(verifyFinding{Type: "extra", Key: o.Key, Dst: dst.st.URL(dst.base + o.Key), DstSize: &o.Size,
				Reason: fmt.Sprintf("not in the source (%d bytes)", o.Size)})
		},
		Both: func(so, do store.Object) error {
			v, reason := compareObjects(so, do)
			switch v {
			case verdictSame:
				sum.Identical++
				return nil
			case verdictSameSize:
				sum.Identical++
				sum.SizeOnly++
				return nil
			}
			f := verifyFinding{Type: "differs", Key: so.Key, Src: src.st.URL(src.base + so.Key), Dst: dst.st.URL(dst.base + do.Key),
				SrcSize: &so.Size, DstSize: &do.Size, SrcETag: so.ETag, DstETag: do.ETag, Reason: reason}
			if v == verdictNotComparable {
				f.Type = "not-comparable"
				sum.NotComparable++
			} else {
				sum.Differing++
			}
			return report(f)
		},
	}
	stats, err := diff.Run(ctx, src.list(), dst.list(), h, diff.Options{})
	if err != nil {
		return fmt.Errorf("verify %s %s: %w", srcLoc, dstLoc, err)
	}
	sum.Source, sum.Destination = stats.Source, stats.Dest
	sum.Seconds = time.Since(start).Seconds()
	switch {
	case a.g.json:
		_ = json.NewEncoder(a.stdio.Err).Encode(sum)
	case !a.g.quiet:
		fmt.Fprintf(a.stdio.Err, "%d source and %d destination objects: %d identical (%d by size only), %d missing, %d extra, %d differing, %d not comparable\n",
			sum.Source, sum.Destination, sum.Identical, sum.SizeOnly, sum.Missing, sum.Extra, sum.Differing, sum.NotComparable)
	}
	if n := sum.differences(); n > 0 {
		return partialError{failed: n}
	}
	return nil
}

// verifySide opens one side: a bucket and a prefix, or a local directory.
// Either is taken as a directory.
func (a *app) verifySide(ctx context.Context, s *session, loc s3url.Location) (verifySide, error) {
	if loc.IsS3() {
		c, err := s.s3(ctx)
		if err != nil {
			return verifySide{}, err
		}
		return verifySide{st: c.Bucket(loc.Bucket), base: loc.AsDir().Key}, nil
	}
	st, err := s.localDir(loc.Key)
	if err != nil {
		return verifySide{}, err
	}
	return verifySide{st: st}, nil
}

type verdict int

const (
	verdictSame          verdict = iota // same size and an ETag that shows the same bytes
	verdictSameSize                     // same size, no ETag on one side: nothing more to compare
	verdictDiffers                      // size or comparable ETags differ
	verdictNotComparable                // same size, ETags that prove nothing either way
)

// S3's limits on multipart uploads, which bound the part sizes that can
// have made a multipart ETag.
const (
	minPartSize = 5 << 20
	maxPartSize = 5 << 30
)

// compareObjects decides whether src and dst hold the same bytes, from what
// a listing says, and why not.
func compareObjects(src, dst store.Object) (verdict, string) {
	if src.Size != dst.Size {
		return verdictDiffers, fmt.Sprintf("sizes differ (source %d bytes, destination %d)", src.Size, dst.Size)
	}
	se, de := normalETag(src.ETag), normalETag(dst.ETag)
	switch {
	case se == "" || de == "":
		return verdictSameSize, ""
	case se == de:
		return verdictSame, ""
	}
	differ := fmt.Sprintf("ETags differ (source %s, destination %s)", se, de)
	sParts, sOK := multipartCount(se)
	dParts, dOK := multipartCount(de)
	switch {
	case isMD5(se) && isMD5(de):
		return verdictDiffers, differ
	case sOK && dOK && sParts == dParts:
		if lo, hi := partSizeRange(src.Size, sParts); lo == hi {
			return verdictDiffers, differ + fmt.Sprintf(", both from %d parts of %d bytes", sParts, lo)
		} else if lo > hi {
			return verdictNotComparable, fmt.Sprintf("ETags not comparable: %d parts cannot make %d bytes within S3's part limits", sParts, src.Size)
		} else {
			return verdictNotComparable, fmt.Sprintf("ETags not comparable: multipart ETags of %d parts, from any part size of %d to %d bytes", sParts, lo, hi)
		}
	case sOK && dOK:
		return verdictNotComparable, fmt.Sprintf("ETags not comparable: multipart ETags of %d and %d parts", sParts, dParts)
	case sOK || dOK:
		return verdictNotComparable, "ETags not comparable: one single-part, one multipart"
	}
	return verdictNotComparable, fmt.Sprintf("ETags not comparable: not MD5 digests (source %s, destination %s)", se, de)
}

func normalETag(e string) string { return strings.ToLower(strings.Trim(e, `"`)) }

func isMD5(e string) bool {
	if len(e) != 32 {
		return false
	}
	for i := 0; i < len(e); i++ {
		if c := e[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// multipartCount returns N for an ETag of a multipart upload, "digest-N".
func multipartCount(e string) (int64, bool) {
	digest, n, ok := strings.Cut(e, "-")
	if !ok || !isMD5(digest) {
		return 0, false
	}
	parts, err := strconv.ParseInt(n, 10, 64)
	if err != nil || parts < 1 || parts > 10000 {
		return 0, false
	}
	return parts, true
}

// partSizeRange returns the part sizes [lo, hi] that cut size bytes into
// exactly parts parts within S3's limits (every part but the last at least
// 5 MiB, none above 5 GiB); lo > hi when there is none. With one part, the
// part is the object.
func partSizeRange(size, parts int64) (lo, hi int64) {
	if parts == 1 {
		return size, size
	}
	// (parts-1)*p < size <= parts*p
	lo = max((size+parts-1)/parts, minPartSize)
	hi = min((size+parts-2)/(parts-1)-1, maxPartSize)
	return lo, hi
}
