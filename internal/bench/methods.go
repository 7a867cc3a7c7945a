package bench

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3bulk/s3bulk/store/s3store"
	"golang.org/x/sync/errgroup"
)

// reportAttempts is the report's SDK configuration: retries fixed at one
// attempt per request, so its baseline numbers include no retry help.
const reportAttempts = 1

// perCompany runs fn for each company, CompanyConcurrency at a time, and fn
// goes through its company's objects one by one: the report's shape.
func (r *runner) perCompany(ctx context.Context, groups []Group, fn func(ctx context.Context, e Entry, index int) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(r.cfg.CompanyConcurrency)
	index := 0
	for _, grp := range groups {
		first := index
		index += len(grp.Objects)
		g.Go(func() error {
			for i, e := range grp.Objects {
				if err := fn(ctx, e, first+i); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// put is the report's baseline: upload every object with PutObject.
func (r *runner) put(ctx context.Context) (outcome, error) {
	counter := s3store.NewRequestCounter()
	client := r.cfg.Conn.Client(counter, reportAttempts)
	// The source listing order gives each key the index it was seeded with,
	// when it was seeded by Seed; bodies need not match the source anyway.
	bodies := newBodies(DefaultLayout().Seed)
	dst := r.cfg.Dest
	err := r.perCompany(ctx, sampleGroups(r.groups, r.sample), func(ctx context.Context, e Entry, index int) error {
		key := dst.Prefix + e.Key
		return putObject(ctx, client, dst.Bucket, key, bodies.Body(key, index, e.Size))
	})
	return outcome{requests: counter.Counts()}, err
}

// copyPerCompany is the report's SDK method: list the source, group keys by
// company, CopyObject one at a time inside each company.
func (r *runner) copyPerCompany(ctx context.Context) (outcome, error) {
	counter := s3store.NewRequestCounter()
	client := r.cfg.Conn.Client(counter, reportAttempts)
	src, dst := r.cfg.Source, r.cfg.Dest
	// The report timed its listing too, so list again with the measured client.
	entries, err := listEntries(ctx, client, src)
	if err != nil {
		return outcome{requests: counter.Counts()}, err
	}
	err = r.perCompany(ctx, sampleGroups(groupByCompany(entries), r.sample), func(ctx context.Context, e Entry, _ int) error {
		_, err := client.CopyObject(ctx, &s3.CopyObjectInput{
			Bucket: aws.String(dst.Bucket), Key: aws.String(dst.Prefix + e.Key),
			CopySource: aws.String(s3store.CopySource(src.Bucket, src.Prefix+e.Key)),
		})
		if err != nil {
			return fmt.Errorf("copy %s%s to %s%s: %w", src, e.Key, dst, e.Key, err)
		}
		return nil
	})
	return outcome{requests: counter.Counts()}, err
}
