package transfer_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/batchops/fakecontrol"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store/s3store"
	"github.com/s3bulk/s3bulk/transfer"
)

// Copy a bucket by an S3 Batch Operations job, from the same job and
// options a local run takes; then ask a job for what it cannot do, and get
// a typed refusal. S3 is the test server here and S3 Control the fake the
// tests use; against AWS, JobsConfig.AWS comes from config.LoadDefaultConfig
// and ControlEndpoint stays empty.
func ExampleRunner_Run() {
	ctx := context.Background()
	srv, err := s3test.Shared()
	if err != nil {
		log.Fatal(err)
	}
	sdk := srv.SDK()
	src, dst := newBucket(ctx, sdk), newBucket(ctx, sdk)
	defer removeBuckets(sdk, src, dst)
	for _, k := range []string{"a.txt", "logs/b.txt"} {
		if _, err := sdk.PutObject(ctx, &s3.PutObjectInput{Bucket: &src, Key: aws.String(k), Body: nil}); err != nil {
			log.Fatal(err)
		}
	}
	fake := fakecontrol.Start(sdk, fakecontrol.Options{Region: srv.Region})
	defer fake.Close()

	eng := engine.New(engine.Config{})
	client, err := s3store.NewClient(ctx, s3store.Config{
		EndpointURL: srv.Endpoint, Region: srv.Region, AccessKey: srv.AccessKey, SecretKey: srv.SecretKey,
		ChecksumWhenRequired: true, Concurrency: eng.MaxConcurrency(), OnThrottle: eng.Throttled,
	})
	if err != nil {
		log.Fatal(err)
	}
	jobs, err := transfer.NewJobs(transfer.JobsConfig{
		S3:        client,
		AWS:       aws.Config{Region: srv.Region, Credentials: credentials.NewStaticCredentialsProvider(srv.AccessKey, srv.SecretKey, "")},
		AccountID: fake.AccountID(), ControlEndpoint: fake.URL, Poll: 10 * time.Millisecond, Engine: eng,
	})
	if err != nil {
		log.Fatal(err)
	}
	from, _ := s3url.Parse("s3://" + src + "/")
	to, _ := s3url.Parse("s3://" + dst + "/copy/")
	choice := transfer.DefaultChoice()
	choice.Engine, choice.RoleArn = transfer.BatchOps, "arn:aws:iam::"+fake.AccountID()+":role/s3bulk-batch"
	q := transfer.Request{
		Choice: choice,
		Job: engine.Job{
			Src:       engine.Endpoint{Store: client.Bucket(src), Loc: from},
			Dst:       engine.Endpoint{Store: client.Bucket(dst), Loc: to},
			Recursive: true,
		},
	}
	r := &transfer.Runner{Engine: eng, Jobs: jobs}
	if _, err := r.Run(ctx, q); err != nil {
		log.Fatal(err)
	}
	out, err := sdk.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &dst, Prefix: aws.String("copy/")})
	if err != nil {
		log.Fatal(err)
	}
	for _, o := range out.Contents {
		fmt.Println("copied by the job:", *o.Key)
	}

	// A job overwrites keys that exist: it cannot honour NoClobber.
	q.Options.NoClobber = true
	_, err = r.Run(ctx, q)
	var refused *transfer.RefusedError
	if errors.As(err, &refused) && refused.Refusal.Kind == transfer.RefuseNoClobber {
		fmt.Println("refused:", refused.Refusal.Why)
	}
	// Output:
	// copied by the job: copy/a.txt
	// copied by the job: copy/logs/b.txt
	// refused: a job overwrites keys that exist (it has no condition on the destination)
}

var buckets int64

// newBucket creates a bucket of the test server for an Example.
func newBucket(ctx context.Context, sdk *s3.Client) string {
	buckets++
	name := s3test.BucketName("ExampleRunner", buckets)
	if _, err := sdk.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &name}); err != nil {
		log.Fatal(err)
	}
	return name
}

// removeBuckets empties and removes an Example's buckets.
func removeBuckets(sdk *s3.Client, names ...string) {
	ctx := context.Background()
	for _, b := range names {
		out, err := sdk.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &b})
		if err != nil {
			log.Fatal(err)
		}
		for _, o := range out.Contents {
			if _, err := sdk.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &b, Key: o.Key}); err != nil {
				log.Fatal(err)
			}
		}
		if _, err := sdk.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: &b}); err != nil {
			log.Fatal(err)
		}
	}
}
