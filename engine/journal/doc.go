// Package journal owns the append-only job journal that makes a rerun after
// an interruption (Ctrl-C, a crash, kill -9) cheap: it records which objects
// are done, which failed, and the checkpoints of multipart uploads, and reads
// them back as a [State] the planner asks before moving an object again.
//
// # Format
//
// A journal is a text file of JSON lines. The first line is a header naming
// the format, its version and the job the journal belongs to (a fingerprint
// of the command, see [Fingerprint]); a journal of another job is refused
// rather than silently skipping objects of a different copy. Every further
// line is one record:
//
//	{"format":"s3bulk-journal","version":2,"job":"…","crc":"…"}
//	{"t":"done","src":"a/k","dst":"b/k","size":12,"etag":"…","crc":"…"}
//	{"t":"failed","src":"a/j","dst":"b/j","size":3,"etag":"…","err":"…","crc":"…"}
//	{"t":"intent","src":"a/v","dst":"b/v","version":"…","size":5,"etag":"…","after":"…","at":…,"crc":"…"}
//	{"t":"done","src":"a/v","dst":"b/v","version":"…","size":5,"etag":"…","dst_version":"…","crc":"…"}
//	{"t":"mpu","src":"a/big","dst":"b/big","size":…,"etag":"…","upload":"…","part_size":…,"crc":"…"}
//	{"t":"part","upload":"…","part":1,"etag":"…","size":…,"crc":"…"}
//	{"t":"complete","dst":"b/big","upload":"…","crc":"…"}
//	{"t":"abort","dst":"b/big","upload":"…","crc":"…"}
//
// The last field of every line is a CRC-32C of the line's bytes before it,
// in eight hex digits. JSON lines rather than a binary format because a
// journal is something people open when a run went wrong: it reads with
// grep and jq, and new fields can be added without a new decoder. The CRC is
// what JSON alone lacks: a line cut short by a crash usually still ends
// where a valid JSON value could, and a bit flip inside a string is valid
// JSON too. With the CRC a torn or damaged line is always detected.
//
// Keys that are not valid UTF-8 (possible for local file names) are written
// base64-encoded in src_b64/dst_b64, because JSON would replace the bad
// bytes and two different keys could then read back as one.
//
// # Crashes
//
// Records are written with write(2) as soon as the writer's goroutine is
// free, batching whatever arrived meanwhile, and fsynced every second, on
// [Writer.Flush] and on [Writer.Close]. A process killed with SIGKILL loses
// only its user-space buffer, not what it handed to the kernel, so writing
// early bounds a rerun's repeated work to the objects that were in flight;
// fsync, which costs milliseconds, only guards against losing the machine.
//
// A copy of every version writes an intent before each version's write
// ([Writer.Intent]), and waits until it is in the file, not in the
// buffer: a write that lands is then never unrecorded, and a key's
// records read intent, done, intent, done... A resumed run finds at most
// the last write of each key in doubt ([State.Interrupted]) and asks the
// destination whether it landed; the done records carry the version ID
// the destination gave, which the next intent names as the one it
// follows ("after").
//
// Only the last line of a journal can be torn by a crash. [Load] ignores a
// torn or damaged last line and says so in [State.Notes]; [Open] also cuts
// it off before appending. A damaged line followed by more lines is not a
// crash but a damaged file, and is an error.
//
// # Memory
//
// A [State] keeps 24 bytes per finished object: a 16-byte hash of the
// source and destination keys and an 8-byte hash of the source's size and
// ETag (or modification time when it has no ETag), in one sorted slice;
// and, for each key whose last version write is in doubt, its intent.
package journal
