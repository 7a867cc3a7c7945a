// Package bench owns s3bulk's built-in benchmark: the seed layout of the
// field report (companies, users, JSON files of an exact size), the methods
// it compared (PutObject baseline, per-company CopyObject, external tools,
// S3 Batch Operations) next to s3bulk's engine, their measurement (wall and
// CPU time, requests by type, verified results), the cost model, the linear
// extrapolation, and the renderers: terminal table, JSON document, Markdown
// report and PNG chart.
//
// Unlike the engine, this package talks to S3 through the plain SDK client on
// purpose: the baseline methods reproduce what the report's own programs did
// (one attempt per request, per-company parallelism), so they must not get
// the engine's scheduler, retries or store abstraction.
package bench
