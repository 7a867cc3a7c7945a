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
// Wildcards. Those of the AWS CLI, which matches its filters with Python's
// fnmatch ([Compile] says it exactly): "*" is any run of characters, '/'
// included (so "**" is the same); "?" is one character, '/' included;
// "[seq]" is one character of seq and "[!seq]" one character not in it,
// with ranges ("[0-9]"). No character escapes another, and '[' without a
// closing ']' is itself. The whole relative key must match, and nothing is
// anchored or unanchored behind the user's back:
//
//	"*.tmp"    matches a.tmp and x/y/a.tmp (the star crosses '/')
//	"sub/*"    matches sub/a and sub/deep/h.tmp, not x/sub/a
//	"*/sub/*"  matches x/sub/a, not sub/a
//	"sub/"     matches only the key "sub/" (write "sub/*" for what is below)
//
// Include and exclude. The rules apply in the order given and the last one
// that matches a key decides: "--exclude '*' --include '*.json'" keeps the
// JSON files, "--include '*.json' --exclude 'tmp/*'" keeps them except under
// tmp/. A key that no rule matches is kept, as in aws, except when the first
// rule is an --include: then it is left out, so that "--include '*.tmp'"
// alone selects only .tmp files, as in s5cmd (aws would keep everything,
// which is never what such a command means). The AWS CLI idiom of an
// exclude of everything first gives the same answer either way.
//
// A sync applies the same rules to destination keys before deleting any: an
// excluded destination object is never deleted.
//
// Sizes and ages. --min-size and --max-size are inclusive bounds.
// --newer-than T keeps objects modified at or after T, --older-than T those
// modified strictly before it, so the two with the same T split a listing in
// two with nothing lost or kept twice. An age ("36h", "7d", "2w", "1d12h")
// counts back from the time the filter was built; a date or time is RFC 3339
// ("2026-01-02T15:04:05Z") or a day ("2026-01-02", midnight UTC). An object
// with no modification time is older than every cutoff.
package filter
