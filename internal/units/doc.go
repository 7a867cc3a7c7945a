// Package units owns byte sizes as users type and read them on a command
// line: it parses 100KiB, 64MiB, 5GiB, 1.5GB or 1024, and formats sizes the
// same way.
package units
