package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/s3bulk/s3bulk/engine/parts"
	"github.com/s3bulk/s3bulk/store"
)

// NoMatchError is a source that named no object: a wildcard that matched
// no key, or a single key or file that does not exist. Nothing was done.
// The AWS CLI and s5cmd both fail such a command; so does s3bulk.
type NoMatchError struct {
	URL string
	// Exact is set when the source named one key (no wildcard, not
	// Job.Recursive): a prefix of that name may still hold objects.
	Exact bool
	// Hint, when set, says what the user may have meant.
	Hint string
}

func (e *NoMatchError) Error() string {
	if e.Hint != "" {
		return fmt.Sprintf("no object matches %s (%s)", e.URL, e.Hint)
	}
	return "no object matches " + e.URL
}

// EmptySourceError is a sync with deletes whose source listed no object
// while the destination holds some: most likely a directory that is not
// mounted or a mistyped prefix, not a wish to empty the destination. It
// deleted nothing. SyncOptions.AllowEmptySource lets such a sync through.
type EmptySourceError struct {
	Src, Dst string
	// Count is the number of destination objects the sync would delete.
	Count int64
}

// held is the number of deletes refused, counted as skips.
func (e *EmptySourceError) held() int64 { return e.Count }

func (e *EmptySourceError) Error() string {
	return fmt.Sprintf("sync %s to %s: the source lists no object, so deleting what it lacks would delete all %d at the destination: deleted none", e.Src, e.Dst, e.Count)
}

// ErrPrefix is the cause of a job whose source names a prefix or a
// directory ("dir/") while it has no wildcard and Job.Recursive is not set:
// set it, or use a wildcard.
var ErrPrefix = errors.New("is a prefix or directory")

// ReasonExists is the Reason of a task skipped because its destination
// exists (Options.NoClobber).
const ReasonExists = "destination exists"

// PartsLimitError is an upload of unknown length (PutStream) that grew
// past S3's 10,000 parts: a larger Options.PartSize holds it. It was
// aborted.
type PartsLimitError struct {
	// Size is the bytes read when the last part was full.
	Size int64
}

func (e *PartsLimitError) Error() string {
	return fmt.Sprintf("the stream is longer than %d parts (%d bytes so far)", parts.MaxParts, e.Size)
}

// isFolderMarker reports whether o is a "folder marker": a zero-byte
// object whose key ends in '/', which the S3 console and other tools
// create to show an empty folder. Copies, moves and syncs skip them in
// every direction, as the AWS CLI and s5cmd do: they hold no data, and a
// local tree has no file to make of them.
func isFolderMarker(o store.Object) bool {
	return !o.IsPrefix && o.Size == 0 && strings.HasSuffix(o.Key, "/")
}
