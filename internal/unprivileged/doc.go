//go:build unix

// Package unprivileged owns rerunning a test as an unprivileged user.
// Permissions are not enforced for root, so a test of an unreadable file run
// as root must run again as someone else.
package unprivileged
