// Package manifest reads the lists of objects a run can be given instead
// of a listing: S3 Inventory reports (manifest.json and its CSV, Parquet
// or ORC files, checked against the manifest's MD5 checksums) and key
// lists (one key a line, or the `bucket,key[,version]` lines of an S3
// Batch Operations CSV manifest).
//
// Both are read twice: once when opened, to check every line or every
// file, so that bad input is refused before anything is copied, and then
// as the run plans, streamed, so that memory stays flat whatever the
// number of entries. Both hand the engine store.Objects with the key they
// have in the source bucket (engine.Job.From).
package manifest
