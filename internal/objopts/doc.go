// Package objopts owns the options s3bulk writes and reads objects with,
// as a user types them: metadata (storage class, content headers, user
// metadata, the COPY or REPLACE directive) and the request options of the
// stores (server-side encryption, SSE-C keys, canned ACL, Requester Pays,
// the source's region), and Object Lock settings (a retention, a legal
// hold, given or copied from each source). It checks every value against the direction of a
// transfer and turns them into engine.MetadataOptions and s3store.Options,
// so that a bad value fails before the first request. Its messages name the
// flags of cp, mv and sync; the CLI only registers the flags and treats
// every error here as a usage error.
package objopts
