// Package runfile owns the format of the files of `s3bulk run`: one command
// a line, split into words as a POSIX shell does without its expansions,
// with comments and blank lines skipped.
package runfile
