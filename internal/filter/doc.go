// Package filter owns the selection of source objects by name, size and age:
// the --include, --exclude, --min-size, --max-size, --newer-than and
// --older-than flags, compiled once by [New] and asked about every listed
// object by [Filter.Keep].
//
// # Decisions
//
// What a pattern is matched against. The key relative to the source's base
// ([Options.Base]): for "sync s3://b/photos/ dst" the key "photos/2026/a.jpg"
// is matched as "2026/a.jpg". This is what aws s3's --exclude does, and it
// makes a pattern mean the same thing at the source and at the destination.
//
// Wildcards. Those of s3url, so that a pattern means the same in a location
// and in a filter: "*" is any run of characters within one segment, "?" one
// character other than '/', "**" any run of characters including '/', and
// "**/" at the start of a segment zero or more whole segments. '[' and '\'
// are ordinary characters. "***" is an error.
//
// Anchoring. Because "*" stops at '/', a pattern matched against the whole
// relative key would make --exclude '*.tmp' skip only top-level files, where
// aws (whose "*" crosses '/') skips them at every depth. To keep that
// expectation the rules of .gitignore apply:
//
//	a pattern with no '/' matches a name at any depth   "*.tmp"   matches a.tmp, x/y/a.tmp
//	a pattern with a '/' is anchored at the base        "logs/*"  matches logs/a, not x/logs/a
//	a leading '/' anchors a pattern without another     "/*.tmp"  matches a.tmp, not x/a.tmp
//	a trailing '/' means everything below               ".git/"   matches .git/HEAD, x/.git/HEAD
//
// So "logs/*" keeps aws's meaning for files directly in logs/ but, unlike
// aws, not for logs/2026/a.json: write "logs/**" (or "logs/") for that.
//
// Include and exclude. An object is kept when it matches no exclude pattern
// and, if any include pattern is given, at least one of them. Exclude wins
// and the order of the flags does not matter. This differs from aws s3, where
// filters apply in order and the last match wins, and where --include alone
// selects nothing less than everything; it is what s5cmd and rclone users
// expect, and a set of flags means the same whatever order a script writes
// them in.
//
// Sizes and ages. --min-size and --max-size are inclusive bounds.
// --newer-than T keeps objects modified at or after T, --older-than T those
// modified strictly before it, so the two with the same T split a listing in
// two with nothing lost or kept twice. An age ("36h", "7d", "2w", "1d12h")
// counts back from the time the filter was built; a date or time is RFC 3339
// ("2026-01-02T15:04:05Z") or a day ("2026-01-02", midnight UTC). An object
// with no modification time is older than every cutoff.
package filter
