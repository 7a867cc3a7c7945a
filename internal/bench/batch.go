package bench

import (
	"context"
	"fmt"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/batchops"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// BatchMethod is the BatchFunc of the batchops method: list the source
// into a manifest, run one Copy job with roleArn, wait for it
// (batchops.Runner.CopyOnce). runner gives the batch workflows' runner
// when the method runs. On an endpoint other than AWS's the method is not
// run unless control says a control plane stands in for AWS's.
func BatchMethod(conn Conn, roleArn string, control bool, runner func(context.Context) (*batchops.Runner, error)) BatchFunc {
	return func(ctx context.Context, srcURL, dstURL string) (BatchOutcome, error) {
		var out BatchOutcome
		if conn.Endpoint != "" && !control {
			return out, fmt.Errorf("%w: S3 Batch Operations exists only on AWS, not on %s (or give --control-endpoint-url)", ErrNotRun, conn.Endpoint)
		}
		src, err := s3url.ParseRaw(srcURL)
		if err != nil {
			return out, err
		}
		dst, err := s3url.ParseRaw(dstURL)
		if err != nil {
			return out, err
		}
		if src.AsDir().Key != "" {
			return out, fmt.Errorf("%w: a job keeps whole source keys, so bench runs it from a bucket's root (--source s3://%s/)", ErrNotRun, src.Bucket)
		}
		r, err := runner(ctx)
		if err != nil {
			return out, err
		}
		j, m, err := r.CopyOnce(ctx, src, dst, batchops.CopySpec{
			RoleArn: roleArn, DestBucket: dst.Bucket, DestPrefix: dst.AsDir().Key,
			Report:      batchops.ReportLocation{Enabled: true, Bucket: dst.Bucket, Prefix: batchops.DefaultReportPrefix, Scope: batchops.ReportFailedTasks},
			Priority:    10,
			Description: batchops.TruncateDescription("s3bulk bench " + srcURL + " " + dstURL),
		}, batchops.DefaultManifestPrefix+"bench-"+batchops.RunID()+".csv")
		out.Objects, out.Bytes, out.ActiveSeconds = j.Succeeded, m.Stats.Bytes, j.Active.Seconds()
		return out, err
	}
}

// EngineMethod is the EngineFunc of the s3bulk method: for each run, a new
// engine (newEngine) and a new client of cfg, whose connection pool is
// sized to the engine's ceiling and whose throttled responses the engine
// hears, then one recursive copy with the engine's defaults. Its requests
// are counted by the store.
func EngineMethod(cfg s3store.Config, newEngine func() *engine.Engine) EngineFunc {
	return func(ctx context.Context, srcURL, dstURL string) (int64, int64, map[string]int64, error) {
		eng, counter, cfg := newEngine(), s3store.NewRequestCounter(), cfg
		cfg.Concurrency = eng.MaxConcurrency()
		cfg.OnThrottle = eng.Throttled
		cfg.OnRequest = counter.Count
		client, err := s3store.NewClient(ctx, cfg)
		if err != nil {
			return 0, 0, nil, err
		}
		src, err := s3url.ParseRaw(srcURL)
		if err != nil {
			return 0, 0, nil, err
		}
		dst, err := s3url.ParseRaw(dstURL)
		if err != nil {
			return 0, 0, nil, err
		}
		job := engine.Job{
			Src:       engine.Endpoint{Store: client.Bucket(src.Bucket), Loc: src},
			Dst:       engine.Endpoint{Store: client.Bucket(dst.Bucket), Loc: dst.AsDir()},
			Recursive: true,
		}
		sum, err := eng.Run(ctx, job, engine.Options{})
		if err == nil && sum.Failed > 0 {
			err = fmt.Errorf("copy %s to %s: %d object(s) failed", srcURL, dstURL, sum.Failed)
		}
		return sum.Objects, sum.Bytes, counter.Counts(), err
	}
}
