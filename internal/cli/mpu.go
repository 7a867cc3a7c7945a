package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// Parts of an unfinished multipart upload are stored, and billed, until
// the upload is completed or aborted. s3bulk aborts the uploads it starts
// when they fail; `mpu` finds and cleans up those that anybody else (or a
// killed process) left behind.
func (a *app) mpuCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mpu",
		Short: "List or abort unfinished multipart uploads",
		Long: `Unfinished multipart uploads keep their parts, and are billed for them,
until they are completed or aborted. They are invisible to ls.`,
		Example: `  s3bulk mpu ls s3://bucket/prefix
  s3bulk mpu abort --older-than 24h s3://bucket/
  s3bulk mpu abort --dry-run s3://bucket/tmp/`,
	}
	cmd.AddCommand(a.mpuLsCmd(), a.mpuAbortCmd())
	return cmd
}

func (a *app) mpuLsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "ls s3://bucket[/prefix]",
		Short: "List unfinished multipart uploads under a prefix, one line each",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			_, mp, loc, err := a.uploadsStore(ctx, args[0])
			if err != nil {
				return err
			}
			out := &uploadPrinter{a: a}
			return listUploads(ctx, mp, loc, func(u store.Upload) error {
				return out.print(uploadRecord{URL: uploadURL(loc, u.Key), UploadID: u.UploadID, Initiated: u.Initiated})
			})
		},
	}
}

func (a *app) mpuAbortCmd() *cobra.Command {
	var olderThan ageFlag
	cmd := &cobra.Command{
		Use:   "abort s3://bucket[/prefix]",
		Short: "Abort unfinished multipart uploads under a prefix, freeing their parts",
		Long: `Abort every unfinished multipart upload under a prefix (all of a bucket with
s3://bucket/), one line per upload. --older-than spares recent uploads,
which may still be running; --dry-run only lists what would be aborted.
Exit codes are those of cp: 1 when some aborts failed.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			s, mp, loc, err := a.uploadsStore(ctx, args[0])
			if err != nil {
				return err
			}
			return a.abortUploads(ctx, s, mp, loc, time.Duration(olderThan))
		},
	}
	cmd.Flags().Var(&olderThan, "older-than", "only uploads started at least this long ago, e.g. 24h, 7d, 1d12h")
	return cmd
}

// uploadsStore opens the bucket of an s3:// argument in a new session.
func (a *app) uploadsStore(ctx context.Context, arg string) (*session, store.Multipart, s3url.Location, error) {
	loc, err := parseLocation(arg, false)
	if err != nil {
		return nil, nil, loc, err
	}
	if !loc.IsS3() {
		return nil, nil, loc, usagef("%s: want an s3:// URL", arg)
	}
	s := a.newSession()
	c, err := s.s3(ctx)
	if err != nil {
		return nil, nil, loc, err
	}
	return s, c.Bucket(loc.Bucket), loc, nil
}

// listUploads streams the uploads under loc's prefix that its wildcard, if
// any, matches.
func listUploads(ctx context.Context, mp store.Multipart, loc s3url.Location, fn func(store.Upload) error) error {
	return mp.ListMultipartUploads(ctx, loc.Prefix(), func(u store.Upload) error {
		if loc.HasWildcard() && !loc.Match(u.Key) {
			return nil
		}
		return fn(u)
	})
}

// errPrinted stops a listing whose output could not be written.
var errPrinted = errors.New("write output")

func uploadURL(loc s3url.Location, key string) string { return "s3://" + loc.Bucket + "/" + key }

// abortUploads aborts, in parallel, every listed upload older than age.
// Each abort is one request under the session's limiter of requests in
// flight, which throttling answers shrink.
func (a *app) abortUploads(ctx context.Context, s *session, mp store.Multipart, loc s3url.Location, age time.Duration) error {
	out := &uploadPrinter{a: a}
	var failed atomic.Int64
	cutoff := time.Now().Add(-age)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(a.concurrencyOr(defaultConcurrency))
	err := listUploads(gctx, mp, loc, func(u store.Upload) error {
		if age > 0 && u.Initiated.After(cutoff) {
			return nil
		}
		rec := uploadRecord{Op: "abort", URL: uploadURL(loc, u.Key), UploadID: u.UploadID, Initiated: u.Initiated}
		if a.g.dryRun {
			rec.Status = "dry-run"
			return out.print(rec)
		}
		g.Go(func() error {
			err := s.eng.Do(gctx, func(ctx context.Context) error { return mp.AbortMultipart(ctx, u.Key, u.UploadID) })
			rec.Status = "done"
			if err != nil {
				if gctx.Err() != nil {
					return gctx.Err()
				}
				failed.Add(1)
				rec.Status, rec.Error = "failed", err.Error()
			}
			return out.print(rec)
		})
		return nil
	})
	if werr := g.Wait(); err == nil {
		err = werr
	}
	if err != nil {
		return err
	}
	if n := failed.Load(); n > 0 {
		return partialError{failed: n}
	}
	return nil
}

// uploadRecord is one line of mpu's output; with --json, its JSON form.
type uploadRecord struct {
	Op        string    `json:"op,omitempty"` // "abort"; empty for ls
	Status    string    `json:"status,omitempty"`
	URL       string    `json:"url"`
	UploadID  string    `json:"upload_id"`
	Initiated time.Time `json:"initiated"`
	Error     string    `json:"error,omitempty"`
}

// uploadPrinter writes records from concurrent aborts, one whole line at a
// time: results on stdout, failures on stderr.
type uploadPrinter struct {
	a   *app
	mu  sync.Mutex
	enc *json.Encoder
}

func (p *uploadPrinter) print(r uploadRecord) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var err error
	switch {
	case p.a.g.json:
		if p.enc == nil {
			p.enc = json.NewEncoder(p.a.stdio.Out)
			p.enc.SetEscapeHTML(false)
		}
		r.Initiated = r.Initiated.UTC()
		err = p.enc.Encode(r)
	case r.Status == "failed":
		_, err = fmt.Fprintf(p.a.stdio.Err, "ERROR abort %s (upload %s): %s\n", r.URL, r.UploadID, r.Error)
	case p.a.g.quiet && r.Op != "":
		return nil
	case r.Status == "dry-run":
		_, err = fmt.Fprintf(p.a.stdio.Out, "DRY-RUN abort %s %s\n", r.URL, r.UploadID)
	case r.Op == "abort":
		_, err = fmt.Fprintf(p.a.stdio.Out, "abort %s %s\n", r.URL, r.UploadID)
	default:
		_, err = fmt.Fprintf(p.a.stdio.Out, "%s  %s  %s\n", r.Initiated.Local().Format("2006-01-02 15:04:05"), r.UploadID, r.URL)
	}
	if err != nil {
		return fmt.Errorf("%w: %v", errPrinted, err)
	}
	return nil
}

// ageFlag is a pflag.Value for an age: a Go duration, optionally led by a
// number of days ("7d", "1d12h"), which time.ParseDuration lacks.
type ageFlag time.Duration

func (f *ageFlag) String() string {
	if *f == 0 {
		return ""
	}
	return time.Duration(*f).String()
}

func (f *ageFlag) Set(v string) error {
	d, err := parseAge(v)
	if err != nil {
		return err
	}
	*f = ageFlag(d)
	return nil
}

func (f *ageFlag) Type() string { return "age" }

// maxDays keeps days*24h within a time.Duration (about 292 years).
const maxDays = 100_000

func parseAge(s string) (time.Duration, error) {
	bad := fmt.Errorf("%q: want an age such as 90m, 24h, 7d or 1d12h", s)
	var d time.Duration
	rest := s
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		days, err := strconv.Atoi(s[:i])
		if err != nil || days < 0 || days > maxDays || strings.HasPrefix(s, "+") {
			return 0, bad
		}
		d = time.Duration(days) * 24 * time.Hour
		rest = s[i+1:]
	}
	if rest != "" || d == 0 && s == "" {
		r, err := time.ParseDuration(rest)
		if err != nil || r < 0 || strings.HasPrefix(rest, "+") || d > math.MaxInt64-r {
			return 0, bad
		}
		d += r
	}
	return d, nil
}
