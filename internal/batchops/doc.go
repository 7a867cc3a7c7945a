// Package batchops owns s3bulk's S3 Batch Operations engine: it streams a
// source listing into an S3BatchOperations_CSV_20180820 manifest, submits an
// S3PutObjectCopy job through the S3 Control API, follows the job to its end,
// and reads its Report_CSV_20180820 completion report.
//
// It also holds the two decisions that go with a job: Estimate, which weighs
// a job (about a minute of start-up, a fee per job and per object) against
// copying from this machine, and Policies, which writes the IAM role
// documents a job needs.
//
// Batch Operations' Copy cannot copy objects over 5 GB (CopyObject's limit),
// so the manifest writer hands those to a callback: the caller copies them
// with multipart copy, or reports them as excluded.
package batchops
