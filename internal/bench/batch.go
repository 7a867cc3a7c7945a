package bench

import (
	"context"
	"fmt"

	"github.com/s3bulk/s3bulk/internal/batchops"
	"github.com/s3bulk/s3bulk/s3url"
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
		src, err := (s3url.Options{Raw: true}).Parse(srcURL)
		if err != nil {
			return out, err
		}
		dst, err := (s3url.Options{Raw: true}).Parse(dstURL)
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
