package progress

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/s3bulk/s3bulk/engine/diff"
	"github.com/s3bulk/s3bulk/internal/units"
	"github.com/s3bulk/s3bulk/store"
)

// Every JSON document s3bulk prints is one of the named types of this file
// (or Record, SummaryRecord, engine.Task, diff.Finding), written by a JSON
// encoder: docs/json.md documents each, and a golden test keeps them as
// documented.

// JSON writes one JSON document a line, whole lines only, from any number
// of goroutines. HTML characters are not escaped: keys and URLs stay as
// they are.
type JSON struct {
	mu  sync.Mutex
	enc *json.Encoder
}

// NewJSON returns a JSON writer on w.
func NewJSON(w io.Writer) *JSON {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &JSON{enc: enc}
}

// Encode writes v as one line.
func (j *JSON) Encode(v any) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.enc.Encode(v)
}

// rfc3339 is the time format of every JSON record: UTC, to the second.
const rfc3339 = "2006-01-02T15:04:05Z"

// ListRecord is one object or common prefix of `ls --json`.
type ListRecord struct {
	Key          string `json:"key,omitempty"`
	URL          string `json:"url"`
	Size         int64  `json:"size"`
	ModTime      string `json:"mtime,omitempty"` // RFC 3339, UTC
	ETag         string `json:"etag,omitempty"`
	StorageClass string `json:"storage_class,omitempty"`
	IsPrefix     bool   `json:"is_prefix,omitempty"`
	// VersionID, IsLatest and DeleteMarker describe one entry of a
	// key's history (ls --all-versions).
	VersionID    string `json:"version_id,omitempty"`
	IsLatest     bool   `json:"is_latest,omitempty"`
	DeleteMarker bool   `json:"delete_marker,omitempty"`
}

// NewListRecord is the record of o, listed at url.
func NewListRecord(o store.Object, url string) ListRecord {
	return ListRecord{Key: o.Key, URL: url, Size: o.Size, ModTime: o.ModTime.UTC().Format(rfc3339), ETag: o.ETag, StorageClass: o.StorageClass, IsPrefix: o.IsPrefix}
}

// BucketRecord is one bucket of `ls --json` without an argument.
type BucketRecord struct {
	Bucket  string `json:"bucket"`
	Created string `json:"created"` // RFC 3339, UTC
}

// NewBucketRecord is the record of a bucket made at created.
func NewBucketRecord(name string, created time.Time) BucketRecord {
	return BucketRecord{Bucket: name, Created: created.UTC().Format(rfc3339)}
}

// UsageRecord is one line of `du --json`: a location's objects and bytes,
// per storage class with --group.
type UsageRecord struct {
	URL          string `json:"url"`
	StorageClass string `json:"storage_class,omitempty"`
	Objects      int64  `json:"objects"`
	Bytes        int64  `json:"bytes"`
}

// UsageText is a du line without --json: "2048 bytes in 2 objects:
// s3://b/logs/" (the size as Human with human; the storage class before
// the colon with group).
func UsageText(r UsageRecord, human, group bool) string {
	size := fmt.Sprintf("%d bytes", r.Bytes)
	if human {
		size = units.Human(r.Bytes)
	}
	class := ""
	if group {
		class = " STANDARD"
		if r.StorageClass != "" {
			class = " " + r.StorageClass
		}
	}
	noun := "objects"
	if r.Objects == 1 {
		noun = "object"
	}
	return fmt.Sprintf("%s in %d %s%s: %s", size, r.Objects, noun, class, r.URL)
}

// UploadRecord is one line of `mpu ls --json` and `mpu abort --json`.
type UploadRecord struct {
	Op        string    `json:"op,omitempty"`     // "abort"; empty for ls
	Status    string    `json:"status,omitempty"` // done, failed, dry-run (abort)
	URL       string    `json:"url"`
	UploadID  string    `json:"upload_id"`
	Initiated time.Time `json:"initiated"`
	Error     string    `json:"error,omitempty"`
}

// VerifySummary is the summary document of `verify --json` (stderr).
type VerifySummary struct {
	Type          string  `json:"type"` // "summary"
	Source        int64   `json:"source"`
	Destination   int64   `json:"destination"`
	Identical     int64   `json:"identical"`
	SizeOnly      int64   `json:"size_only"` // of Identical: compared by size alone
	Missing       int64   `json:"missing"`
	Extra         int64   `json:"extra"`
	Differing     int64   `json:"differing"`
	NotComparable int64   `json:"not_comparable"`
	Seconds       float64 `json:"seconds"`
}

// NewVerifySummary is the summary of a verify that took seconds.
func NewVerifySummary(s diff.CheckStats, seconds float64) VerifySummary {
	return VerifySummary{Type: "summary", Source: s.Source, Destination: s.Destination, Identical: s.Identical, SizeOnly: s.SizeOnly,
		Missing: s.Missing, Extra: s.Extra, Differing: s.Differing, NotComparable: s.NotComparable, Seconds: seconds}
}

// SeedRecord is the document `seed --json` prints.
type SeedRecord struct {
	Dest    string  `json:"dest"`
	Objects int64   `json:"objects"`
	Bytes   int64   `json:"bytes"`
	Seconds float64 `json:"seconds"`
}

// FindingText is a verify finding's line without --json.
func FindingText(f diff.Finding) string {
	switch f.Type {
	case diff.FindingMissing:
		return fmt.Sprintf("MISSING %s: %s", f.Src, f.Reason)
	case diff.FindingExtra:
		return fmt.Sprintf("EXTRA %s: %s", f.Dst, f.Reason)
	}
	return fmt.Sprintf("%s %s %s: %s", strings.ToUpper(f.Type), f.Src, f.Dst, f.Reason)
}

// VerifyText is verify's summary line without --json.
func VerifyText(s diff.CheckStats) string {
	return fmt.Sprintf("%d source and %d destination objects: %d identical (%d by size only), %d missing, %d extra, %d differing, %d not comparable",
		s.Source, s.Destination, s.Identical, s.SizeOnly, s.Missing, s.Extra, s.Differing, s.NotComparable)
}

// Locked returns writers that write through one lock: a Write to any of
// them is whole before another starts. Renderers write whole lines with
// one call, so lines from goroutines writing at once never interleave.
func Locked(ws ...io.Writer) []io.Writer {
	mu := &sync.Mutex{}
	out := make([]io.Writer, len(ws))
	for i, w := range ws {
		out[i] = &lockedWriter{mu: mu, w: w}
	}
	return out
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
