// Package testfs owns the tests' view of directory trees: it writes and reads
// them as maps from slash-separated relative paths to contents.
package testfs
