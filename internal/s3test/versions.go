package s3test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// The versioned server of this test binary: started by the first test
// that asks for it (StartVersioned), stopped by Main. Tests without
// versions never pay for it.
var versioned struct {
	once   sync.Once
	server *Server
	tmp    string
	err    error
}

// StartVersioned returns a server shared by this binary's tests whose
// buckets can keep versions and hold Object Lock settings
// (NewVersionedBucket), starting it on first use. Against an external
// endpoint (EndpointEnv) it is that endpoint.
func StartVersioned(t testing.TB) *Server {
	t.Helper()
	if os.Getenv(EndpointEnv) != "" {
		return Start(t)
	}
	versioned.once.Do(func() {
		versioned.tmp, versioned.err = os.MkdirTemp("", "s3bulk-s3test-versioned-")
		if versioned.err != nil {
			return
		}
		versioned.server, versioned.err = startGateway(versioned.tmp, WithVersioning())
		if versioned.err == nil {
			versioned.server.shared = true
		}
	})
	if versioned.err != nil {
		t.Fatalf("s3test: start versioned server: %v", versioned.err)
	}
	return versioned.server
}

// stopVersioned stops the versioned server, if one was started.
func stopVersioned() error {
	var err error
	if s := versioned.server; s != nil && s.child != nil {
		err = s.child.Stop()
	}
	if versioned.tmp != "" {
		_ = os.RemoveAll(versioned.tmp)
	}
	return err
}

// BucketOptions say how NewVersionedBucket makes a bucket.
type BucketOptions struct {
	// Versioning is the status set on the bucket: "Enabled",
	// "Suspended", or "" to leave it unversioned.
	Versioning types.BucketVersioningStatus
	// ObjectLock creates the bucket with Object Lock enabled (which
	// enables versioning too).
	ObjectLock bool
}

// NewVersionedBucket is NewBucket with versioning or Object Lock. At
// cleanup every version and delete marker goes, legal holds are lifted
// and GOVERNANCE retention bypassed; tests that lock objects use
// GOVERNANCE mode (or COMPLIANCE only with a retention already past).
func (s *Server) NewVersionedBucket(t testing.TB, o BucketOptions) string {
	t.Helper()
	name := BucketName(t.Name(), bucketSeq.Add(1))
	client := s.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	in := &s3.CreateBucketInput{Bucket: aws.String(name)}
	if o.ObjectLock {
		in.ObjectLockEnabledForBucket = aws.Bool(true)
	}
	if _, err := client.CreateBucket(ctx, in); err != nil {
		t.Fatalf("s3test: create bucket %s: %v", name, err)
	}
	t.Cleanup(func() {
		if s.stopped() {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		if err := removeBucket(ctx, client, name); err != nil {
			t.Errorf("s3test: %v", err)
		}
	})
	if o.Versioning != "" {
		_, err := client.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(name),
			VersioningConfiguration: &types.VersioningConfiguration{Status: o.Versioning}})
		if err != nil {
			t.Fatalf("s3test: set versioning of %s to %s: %v", name, o.Versioning, err)
		}
	}
	return name
}

// deleteVersion deletes one version for good, lifting its legal hold and
// bypassing GOVERNANCE retention when it has them.
func deleteVersion(ctx context.Context, client *s3.Client, bucket string, key, id *string) error {
	in := &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: key, VersionId: id, BypassGovernanceRetention: aws.Bool(true)}
	_, err := client.DeleteObject(ctx, in)
	if err == nil {
		return nil
	}
	// A legal hold keeps a version whatever the mode: lift it and retry.
	_, herr := client.PutObjectLegalHold(ctx, &s3.PutObjectLegalHoldInput{Bucket: aws.String(bucket), Key: key, VersionId: id,
		LegalHold: &types.ObjectLockLegalHold{Status: types.ObjectLockLegalHoldStatusOff}})
	if herr != nil {
		return errors.Join(err, fmt.Errorf("lift legal hold: %w", herr))
	}
	_, err = client.DeleteObject(ctx, in)
	return err
}
