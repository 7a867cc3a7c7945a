package transfer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/batchops"
	"github.com/s3bulk/s3bulk/internal/progress"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// JobsConfig is how NewJobs reaches S3 and S3 Control.
type JobsConfig struct {
	// S3 lists the sources and writes the manifests and reads the reports.
	S3 *s3store.Client
	// AWS is the configuration of S3 Control and STS: credentials and a
	// region (a job is created in its destination bucket's region, which
	// S3 is asked for).
	AWS aws.Config
	// AccountID is the account the jobs run in ("": asked from STS).
	AccountID string
	// ControlEndpoint is the S3 Control endpoint URL ("": AWS's).
	ControlEndpoint string
	// Poll is how often a job is asked for its state (0: 5s).
	Poll time.Duration
	// Engine lists the sources and copies what a job cannot (objects over
	// a job's size limit); nil: engine.New with the default budgets.
	Engine *engine.Engine
	// Out and Err receive the job's lines as text (its plan and
	// summary; notes and progress); nil: discarded.
	Out, Err io.Writer
}

// PartialError is a job that ended with objects failed or left out; the
// rest is copied.
type PartialError struct{ Failed int64 }

func (e *PartialError) Error() string { return fmt.Sprintf("%d object(s) failed", e.Failed) }

// NewJobs returns the Jobs of c: each Copy plans the source here, writes
// the manifest next to the destination, creates one job, copies here what
// a job cannot, waits for the job and reads its completion report. A job
// that ends with failures is a *PartialError.
func NewJobs(c JobsConfig) (Jobs, error) {
	jc, err := batchops.NewClient(c.AWS, batchops.ClientOptions{AccountID: c.AccountID, ControlEndpoint: c.ControlEndpoint})
	if err != nil {
		return nil, err
	}
	out, errw := c.Out, c.Err
	if out == nil {
		out = io.Discard
	}
	if errw == nil {
		errw = io.Discard
	}
	poll := c.Poll
	if poll <= 0 {
		poll = 5 * time.Second
	}
	r := &batchops.Runner{
		Store: func(b string) store.Store { return c.S3.Bucket(b) },
		Jobs: func(ctx context.Context, bucket string) (*batchops.Client, error) {
			return jc.ForBucket(ctx, c.S3.SDK(), bucket, func(msg string) { fmt.Fprintln(errw, msg) })
		},
		Observer: &progress.JobOutput{Out: out, Err: errw},
		Poll:     poll,
	}
	if c.Engine != nil {
		r.Engine = c.Engine
	}
	return s3Jobs{r}, nil
}

type s3Jobs struct{ r *batchops.Runner }

func (j s3Jobs) Copy(ctx context.Context, q JobRequest) error {
	o, err := batchops.CpRequest(q.Src, q.Dst, q.StartAfter, q.RoleArn, q.ObjectLock, q.ChecksumAlgorithm).Options(q.DryRun)
	if err != nil {
		return err
	}
	err = j.r.Copy(ctx, o)
	var pe *batchops.PartialError
	if errors.As(err, &pe) {
		return &PartialError{Failed: pe.Failed}
	}
	return err
}
