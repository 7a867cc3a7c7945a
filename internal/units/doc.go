// Package units owns byte sizes and ages as users type and read them on a
// command line: it parses 100KiB, 64MiB, 5GiB, 1.5GB or 1024, and formats
// sizes the same way; it parses ages such as 90m, 24h, 7d, 2w, 1.5d or
// 1d12h, for mpu abort and the filters alike.
package units
