// Package fakecontrol is a FAKE of the AWS S3 Control plane's Batch
// Operations API, for tests only. No emulator runs Batch Operations jobs
// (moto has no jobs API, LocalStack only in its paid tier), so s3bulk's tests
// run against this one.
//
// It is faithful where s3bulk depends on it and simple elsewhere. It speaks
// the real REST-XML wire format of CreateJob, DescribeJob, UpdateJobStatus
// and ListJobs (paths under /v20180820/jobs, the x-amz-account-id header,
// the 2018-08-20 XML namespace, wrapped <ErrorResponse> errors), so the
// unmodified SDK client talks to it; it also answers STS GetCallerIdentity.
// A job reads its manifest from a real S3 server, checks its ETag, copies
// each object there with CopyObject, moves through the real statuses (New,
// Preparing, Ready, Active, then Completing/Complete, Failing/Failed or
// Cancelling/Cancelled) and writes a Report_CSV_20180820 completion report
// with its manifest.json. It does not check signatures beyond their form,
// runs one task at a time, and supports only S3PutObjectCopy with CSV
// manifests.
package fakecontrol
