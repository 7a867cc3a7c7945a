// Package diff owns the comparison of a source and a destination listing for
// sync: it pairs objects by key, streaming, in bounded memory whatever the
// number of keys and whatever order the listings come in, and [Decide] says
// whether a pair needs a copy.
//
// # Keys
//
// Both listings yield keys relative to their side's base: "2026/a.jpg" for
// s3://src/photos/2026/a.jpg synced to s3://dst/backup/2026/a.jpg, the same
// string on both sides. [Relative] makes such a listing from a store. A
// mapping function from source keys to destination keys was the other
// choice; it was not taken because a merge needs both sides in one order,
// and only the identity (after cutting a fixed prefix, which keeps byte
// order) is sure to preserve it.
//
// # Order, and why deletes come last
//
// S3 lists general purpose buckets in ascending byte order, and the local
// store walks directories in the same order, so a merge-join can pair the
// two listings as they stream, holding one object of each side. Directory
// buckets and some S3-compatible stores list in another order (aws-cli issue
// 8470: sync then copies and deletes the wrong things), so [Run] never
// trusts the order, it checks every key against the one before.
//
// A merge-join decides "only at the source" for a key as soon as the
// destination listing has gone past it; that is only right if the
// destination listing is in order to its end, which is known only at its
// end. Run therefore:
//
//  1. Reads the first keys of both listings ([Options.Probe], 10,000 by
//     default) before it reports anything. A listing in hash or page order
//     shows it within them; then both listings are sorted on disk (below)
//     and every result is exact.
//  2. Otherwise it merges as the listings stream: [Handler.Both] and
//     [Handler.OnlySource] are called at once, so copies start while the
//     listings are still running. [Handler.OnlyDest] is held back, on disk,
//     until both listings have ended: a delete cannot be undone, and a source
//     key that arrives late must be able to cancel it. (rclone's default,
//     --delete-after, makes the same choice.)
//  3. If a listing breaks its order later, the rest of both listings is
//     sorted on disk and merged with what was held back, so that every later
//     result is right and no object is deleted whose source exists. What
//     cannot be taken back is an "only at the source" already reported for a
//     key whose destination object arrived late: that copy was not needed.
//     [Stats.Late] counts them (when OnlyDest is handled); they are
//     overwrites of the destination by the source, never losses.
//
// [Options.Order] = [Sort] skips the streaming and sorts from the start, for
// stores known to list out of order: then no copy starts before both
// listings have ended, and every result is exact.
//
// # Sorting on disk
//
// Each side fills a buffer of at most half of [Options.Memory] bytes
// (estimated from the objects' sizes), sorts it and writes it to a temporary
// file as a run of length-prefixed binary records; at the end the runs are
// merged through a heap, at most 64 at a time (more runs are first merged
// into longer ones). The last buffer stays in memory. What streaming holds
// back goes to disk in the same encoding once it passes 64 KiB, so a small
// sync writes nothing. Temporary files live in one directory that Run
// removes on every return. Memory is therefore the two sort buffers (or,
// while streaming, the probe's read-ahead, bounded the same way), a 32 KiB
// read buffer per run being merged, and the bounded queues between the
// listings and the merge. A modification time read back from disk is in
// UTC.
//
// For 1,000,000 keys listed in a shuffled order, with the default 64 MiB,
// the heap peaks near twice the budget (the garbage collector's headroom)
// and the process's resident memory stays under 150 MB; BenchmarkRun
// measures it.
//
// # Concurrency
//
// Each listing runs in its own goroutine and sends batches into a bounded
// channel, so a slow consumer slows the listing rather than growing a
// queue. Run owns those goroutines and waits for them on every return; when
// it stops early (an error, a handler's error, ctx cancelled) it cancels
// them first. The handler is called from the goroutine that called Run, one
// call at a time, in ascending key order within each kind.
package diff
