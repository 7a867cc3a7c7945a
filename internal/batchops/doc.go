// Package batchops owns s3bulk's S3 Batch Operations engine: it streams the
// engine's plan of a copy (engine.Plan) into an S3BatchOperations_CSV_20180820
// manifest, submits an S3PutObjectCopy job through the S3 Control API,
// follows the job to its end, and reads its Report_CSV_20180820 completion
// report. Runner holds the whole workflow of `batch cp`, `batch retry` and
// `batch report` (plan, manifest, job, local fallback, watch, report, exit
// policy); Auto holds `cp --engine auto`'s decision. What they do is told to
// an Observer, which internal/progress renders; their JSON records are the
// named types of records.go (docs/json.md).
//
// It also holds the two decisions that go with a job: Estimate, which weighs
// a job (about a minute of start-up, a fee per job and per object) against
// copying from this machine, and Policies, which writes the IAM role
// documents a job needs.
//
// Batch Operations' Copy cannot copy objects over 5 GB (CopyObject's limit),
// so the plan routes those aside: Runner copies them with one engine run
// (multipart copy), named by s3url's rule under JobDest as the job names its
// copies, or reports them as excluded.
package batchops
