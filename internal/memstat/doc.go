// Package memstat owns one measurement: this process's peak resident
// memory, for the benchmarks that hold a run to a memory budget.
package memstat
