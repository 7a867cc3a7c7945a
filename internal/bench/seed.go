package bench

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"golang.org/x/sync/errgroup"
)

// defaultSeedConcurrency is how many PutObject requests seeding keeps in
// flight. Seeding is set-up, not a measured method, so it is parallel.
const defaultSeedConcurrency = 32

// SeedOptions tune Seed.
type SeedOptions struct {
	// Concurrency is the number of objects written at once; 0 means
	// defaultSeedConcurrency.
	Concurrency int
	// Progress, when set, is called after each object with the totals so
	// far. It is called from many goroutines.
	Progress func(objects, bytes int64)
}

// SeedStats is what Seed wrote.
type SeedStats struct {
	Objects int64
	Bytes   int64
}

// Seed writes the layout's objects under dst with PutObject.
func Seed(ctx context.Context, conn Conn, dst Target, l Layout, opts SeedOptions) (SeedStats, error) {
	if err := l.Validate(); err != nil {
		return SeedStats{}, err
	}
	n := opts.Concurrency
	if n <= 0 {
		n = defaultSeedConcurrency
	}
	client := conn.Client(nil, 0)
	bodies := newBodies(l.Seed)
	var objects, bytes atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(n)
	for i := range l.Objects {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			key := dst.Prefix + l.Key(i)
			if err := putObject(gctx, client, dst.Bucket, key, bodies.Body(key, i, l.Size)); err != nil {
				return err
			}
			o, b := objects.Add(1), bytes.Add(l.Size)
			if opts.Progress != nil {
				opts.Progress(o, b)
			}
			return nil
		})
	}
	err := g.Wait()
	if err == nil {
		err = ctx.Err()
	}
	st := SeedStats{Objects: objects.Load(), Bytes: bytes.Load()}
	if err != nil {
		return st, fmt.Errorf("seed %s: %w", dst, err)
	}
	return st, nil
}

// multipartFrom is the size from which putObject uploads in parts: one
// request per 64 MiB keeps a multi-GiB seed object retryable piecewise.
const multipartFrom = 64 << 20

// putObject writes body under key: in one PutObject, or in 64 MiB parts,
// four at a time, for big bodies.
func putObject(ctx context.Context, client *s3.Client, bucket, key string, body *Body) error {
	if body.Size() < multipartFrom {
		_, err := client.PutObject(ctx, &s3.PutObjectInput{
			Bucket: aws.String(bucket), Key: aws.String(key), Body: body,
			ContentLength: aws.Int64(body.Size()), ContentType: aws.String("application/json"),
		})
		if err != nil {
			return fmt.Errorf("put s3://%s/%s: %w", bucket, key, err)
		}
		return nil
	}
	up, err := client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{
		Bucket: aws.String(bucket), Key: aws.String(key), ContentType: aws.String("application/json"),
	})
	if err != nil {
		return fmt.Errorf("put s3://%s/%s: %w", bucket, key, err)
	}
	nparts := int((body.Size() + multipartFrom - 1) / multipartFrom)
	parts := make([]types.CompletedPart, nparts)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for i := range nparts {
		g.Go(func() error {
			off := int64(i) * multipartFrom
			size := min(int64(multipartFrom), body.Size()-off)
			out, err := client.UploadPart(gctx, &s3.UploadPartInput{
				Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId,
				PartNumber: aws.Int32(int32(i + 1)), ContentLength: aws.Int64(size),
				Body: io.NewSectionReader(body, off, size),
			})
			if err != nil {
				return err
			}
			parts[i] = types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(int32(i + 1))}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		abort(client, bucket, key, up.UploadId)
		return fmt.Errorf("put s3://%s/%s: %w", bucket, key, err)
	}
	_, err = client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
	})
	if err != nil {
		abort(client, bucket, key, up.UploadId)
		return fmt.Errorf("put s3://%s/%s: %w", bucket, key, err)
	}
	return nil
}

// abort gives up a multipart upload so its parts are not billed forever. It
// runs on its own context: the caller's may be why we abort.
func abort(client *s3.Client, bucket, key string, uploadID *string) {
	ctx, cancel := context.WithTimeout(context.Background(), abortTimeout)
	defer cancel()
	_, _ = client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: uploadID})
}
