package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/internal/batchops"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// engineFlags choose who copies: this machine (local) or an S3 Batch
// Operations job (batchops), or let s3bulk estimate both (auto).
type engineFlags struct {
	engine  string
	roleArn string
	batch   batchFlags
}

func (f *engineFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.engine, "engine", "local", "who copies S3 to S3: local, batchops (an S3 Batch Operations job) or auto (estimate both, pick)")
	fl.StringVar(&f.roleArn, "role-arn", "", "`ARN` of the IAM role for --engine batchops/auto (see 's3bulk batch policy')")
	fl.StringVar(&f.batch.accountID, "account-id", "", "AWS account for --engine batchops (default: asked from STS)")
	fl.StringVar(&f.batch.controlEndpoint, "control-endpoint-url", "", "S3 Control endpoint URL for --engine batchops")
	fl.DurationVar(&f.batch.pollInterval, "poll-interval", defaultPollInterval, "how often a job is asked for its state")
	_ = fl.MarkHidden("poll-interval")
}

// chooseEngine decides between this machine and a Batch Operations job and
// says why on stderr. It returns true when a job should run.
func (a *app) chooseEngine(ctx context.Context, s *session, f engineFlags, src, dst s3url.Location) (bool, error) {
	switch f.engine {
	case "", "local":
		return false, nil
	case "batchops", "auto":
	default:
		return false, usagef("--engine %q: want local, batchops or auto", f.engine)
	}
	blockers := batchops.Blockers(src, dst)
	if f.engine == "batchops" {
		if len(blockers) > 0 {
			return false, usagef("--engine batchops: %s", blockers[0])
		}
		if f.roleArn == "" {
			return false, usagef("--engine batchops needs --role-arn (see `s3bulk batch policy %s %s`)", src, dst)
		}
		return true, nil
	}
	w := batchops.Workload{BatchBlocked: blockers}
	if len(blockers) == 0 {
		// Count what would move: one listing pass, streamed.
		c, err := s.s3(ctx)
		if err != nil {
			return false, err
		}
		loc := src
		if !loc.HasWildcard() {
			loc = loc.AsDir()
		}
		err = c.Bucket(src.Bucket).List(ctx, loc.Prefix(), "", func(o store.Object) error {
			if !loc.HasWildcard() || loc.Match(o.Key) {
				w.Objects++
				w.Bytes += o.Size
			}
			return nil
		})
		if err != nil {
			return false, fmt.Errorf("estimate %s: %w", src, err)
		}
	}
	choice := batchops.Choose(w, batchops.DefaultAssumptions())
	fmt.Fprintf(a.stdio.Err, "engine auto: %d objects, %d bytes\n", w.Objects, w.Bytes)
	for _, l := range choice.Lines() {
		fmt.Fprintln(a.stdio.Err, l)
	}
	if choice.Engine == "batchops" && f.roleArn == "" {
		fmt.Fprintln(a.stdio.Err, "engine auto: choosing local: a job needs --role-arn")
		return false, nil
	}
	fmt.Fprintf(a.stdio.Err, "engine auto: choosing %s\n", strings.TrimSpace(choice.Engine))
	return choice.Engine == "batchops", nil
}

// runJob hands a cp to an S3 Batch Operations job and waits for it.
func (a *app) runJob(ctx context.Context, f engineFlags, raw bool, srcArg, dstArg string) error {
	bf := f.batch
	return a.runBatchCp(ctx, &bf, batchCpFlags{
		roleArn: f.roleArn, reportScope: "all", priority: 10, wait: true, raw: raw,
	}, srcArg, dstArg)
}

// defaultPollInterval is how often a job started by cp is asked for its
// state, as `batch cp --wait` does by default.
const defaultPollInterval = 5 * time.Second
