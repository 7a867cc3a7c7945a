package shard

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// JobIndexEnv is the environment variable in which a Kubernetes Indexed Job
// gives each pod its index. The CLI reads it; this package never reads the
// environment.
const JobIndexEnv = "JOB_COMPLETION_INDEX"

// Shard is shard Index of Count. The zero value (Count 0) and any Shard with
// Count 1 keep every key.
type Shard struct {
	Index int
	Count int
}

// Parse reads "i/n": shard i of n, numbered from 0 (0 <= i < n).
func Parse(s string) (Shard, error) {
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Shard{}, fmt.Errorf("parse shard %q: want i/n, such as 0/4", s)
	}
	i, err := strconv.Atoi(strings.TrimSpace(is))
	if err != nil {
		return Shard{}, fmt.Errorf("parse shard %q: index %q is not a whole number", s, is)
	}
	n, err := strconv.Atoi(strings.TrimSpace(ns))
	if err != nil {
		return Shard{}, fmt.Errorf("parse shard %q: count %q is not a whole number", s, ns)
	}
	sh, err := New(i, n)
	if err != nil {
		return Shard{}, fmt.Errorf("parse shard %q: %w", s, err)
	}
	return sh, nil
}

// FromJobIndex builds a shard from the index a Kubernetes Indexed Job puts
// in JOB_COMPLETION_INDEX and the count given separately (the Job's
// completions, passed as a flag).
func FromJobIndex(index string, count int) (Shard, error) {
	if strings.TrimSpace(index) == "" {
		return Shard{}, fmt.Errorf("shard from %s: the variable is empty or unset", JobIndexEnv)
	}
	i, err := strconv.Atoi(strings.TrimSpace(index))
	if err != nil {
		return Shard{}, fmt.Errorf("shard from %s=%q: not a whole number", JobIndexEnv, index)
	}
	sh, err := New(i, count)
	if err != nil {
		return Shard{}, fmt.Errorf("shard from %s=%q: %w", JobIndexEnv, index, err)
	}
	return sh, nil
}

// New checks and returns shard i of n.
func New(i, n int) (Shard, error) {
	switch {
	case n < 1:
		return Shard{}, fmt.Errorf("shard count %d: must be at least 1", n)
	case i < 0 || i >= n:
		return Shard{}, fmt.Errorf("shard index %d: must be from 0 to %d (shards are numbered from 0)", i, n-1)
	}
	return Shard{Index: i, Count: n}, nil
}

// Keep reports whether key belongs to s.
func (s Shard) Keep(key string) bool {
	if s.Count <= 1 {
		return true
	}
	return Of(key, s.Count) == s.Index
}

// String formats s as Parse reads it: "i/n".
func (s Shard) String() string { return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count) }

// Of returns the shard, from 0 to n-1, that key belongs to among n. It
// panics when n < 1.
func Of(key string, n int) int {
	if n < 1 {
		panic("shard.Of: n < 1")
	}
	hi, _ := bits.Mul64(Hash(key), uint64(n))
	return int(hi)
}

// Hash is the stable 64-bit hash of key that Of reduces. It never changes
// between versions (see the package documentation).
func Hash(key string) uint64 {
	return mix(fnv1a(key))
}

// fnv1a is hash/fnv's New64a over key, written out so that hashing millions
// of keys allocates nothing; a test holds it equal to hash/fnv.
func fnv1a(key string) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= prime
	}
	return h
}

// mix is MurmurHash3's fmix64 finalizer: every input bit affects every
// output bit, so the high bits Of uses are as good as the low ones.
func mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}
