// Package shard owns the deterministic split of a plan across machines: with
// --shard i/n, n processes that each keep the keys of their own shard
// together cover every key exactly once, with no coordinator.
//
// # Decisions
//
// The hash. A key's shard is FNV-1a 64 of the key's bytes, finished with
// MurmurHash3's 64-bit mixer and reduced to [0, n) by multiplying the high
// 64 bits (Lemire's reduction). FNV-1a is in the standard library and is
// stable across processes, machines and Go versions; hash/maphash is not (its
// seeds are random per process), and neither is Go's map order. The mixer
// spreads FNV's weak low bits so that keys differing only in their last
// characters ("part-0001", "part-0002") still scatter evenly for any n. The
// function is part of the on-disk and cross-machine contract: a resumed run
// or a re-run of one shard must pick the same keys, so it never changes; a
// test pins it to known values.
//
// Which key. Callers hash the key relative to the source's base (the part
// that names the object at the destination), not the full source key. For
// sync this puts a source object and the destination object of the same name
// in the same shard, so the copy and the delete of one name are decided by
// one process.
//
// Numbering. Shards are numbered from 0, as a Kubernetes Indexed Job numbers
// its pods in JOB_COMPLETION_INDEX: "--shard 0/3", "1/3", "2/3". "3/3" is an
// error that says so, rather than a silent empty shard.
package shard
