// Package store owns the contract between the engine and storage: the small
// interface every backend implements (an S3 bucket, a local directory), the
// optional capabilities the engine looks for (server-side copy, multipart
// upload and copy, batch deletes, random-access temp files, checksums), the
// Object and Metadata types and the sentinel errors. It imports no SDK.
package store
