// Package progress renders a run's results and counters: one text line per
// object, JSON lines, a progress bar on a terminal, and the final summary.
// It knows engine types and writers, never the engine's internals.
package progress

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/s3bulk/s3bulk/engine"
)

// verbs names an operation the way users read it in s5cmd and aws output.
var verbs = map[engine.Op]string{
	engine.OpCopy:     "cp",
	engine.OpUpload:   "cp",
	engine.OpDownload: "cp",
	engine.OpStream:   "cp",
	engine.OpDelete:   "rm",
	engine.OpSkip:     "skip",
}

// Verb returns the user-facing verb of an operation ("cp", "rm"...).
func Verb(op engine.Op, move bool) string {
	if move && op != engine.OpDelete && op != engine.OpSkip {
		return "mv"
	}
	return verbs[op]
}

// Lines prints one line per result: successes on out, failures and skips on
// errOut. It is safe for concurrent use.
type Lines struct {
	Out, ErrOut io.Writer
	Quiet       bool // only failures
	mu          sync.Mutex
}

// Result prints r.
func (l *Lines) Result(r engine.Result) {
	l.mu.Lock()
	defer l.mu.Unlock()
	verb := Verb(r.Task.Op, r.Task.DeleteSource)
	switch r.Status {
	case engine.StatusDone:
		if !l.Quiet {
			if r.Task.Dst == "" {
				fmt.Fprintf(l.Out, "%s %s\n", verb, r.Task.Src)
			} else {
				fmt.Fprintf(l.Out, "%s %s %s\n", verb, r.Task.Src, r.Task.Dst)
			}
		}
	case engine.StatusDryRun:
		if !l.Quiet {
			if r.Task.Dst == "" {
				fmt.Fprintf(l.Out, "DRY-RUN %s %s\n", verb, r.Task.Src)
			} else {
				fmt.Fprintf(l.Out, "DRY-RUN %s %s %s\n", verb, r.Task.Src, r.Task.Dst)
			}
		}
	case engine.StatusSkipped:
		if !l.Quiet {
			fmt.Fprintf(l.ErrOut, "SKIP %s: %s\n", r.Task.Src, r.Task.Reason)
		}
	case engine.StatusFailed:
		fmt.Fprintf(l.ErrOut, "ERROR %v\n", r.Err)
	}
}

// Record is the JSON form of one result: one line per object with --json.
// Its fields are the documented, stable schema (docs/json.md).
type Record struct {
	Op      string  `json:"op"`     // cp, mv, rm, skip
	Kind    string  `json:"kind"`   // copy, upload, download, stream, delete, skip
	Status  string  `json:"status"` // done, skipped, failed, dry-run
	Src     string  `json:"src"`
	Dst     string  `json:"dst,omitempty"`
	Size    int64   `json:"size"`
	Parts   int     `json:"parts,omitempty"`
	Seconds float64 `json:"seconds"`
	Reason  string  `json:"reason,omitempty"`
	Error   string  `json:"error,omitempty"`
	// Unverified marks an object downloaded with nothing to check it
	// against (engine.Result.Unverified).
	Unverified bool `json:"unverified,omitempty"`
}

// NewRecord converts a result.
func NewRecord(r engine.Result) Record {
	rec := Record{
		Op: Verb(r.Task.Op, r.Task.DeleteSource), Kind: string(r.Task.Op), Status: string(r.Status),
		Src: r.Task.Src, Dst: r.Task.Dst, Size: r.Task.Size, Parts: r.Parts,
		Seconds: r.Duration.Seconds(), Reason: r.Task.Reason, Unverified: r.Unverified,
	}
	if r.Err != nil {
		rec.Error = r.Err.Error()
	}
	return rec
}

// JSONLines prints one JSON document per result on Out. Safe for
// concurrent use.
type JSONLines struct {
	Out io.Writer
	mu  sync.Mutex
	enc *json.Encoder
}

// Result prints r as one line.
func (j *JSONLines) Result(r engine.Result) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.enc == nil {
		j.enc = json.NewEncoder(j.Out)
		j.enc.SetEscapeHTML(false)
	}
	_ = j.enc.Encode(NewRecord(r))
}

// SummaryRecord is the JSON form of the final summary (--json, on stderr).
type SummaryRecord struct {
	Type             string           `json:"type"` // "summary"
	Objects          int64            `json:"objects"`
	Bytes            int64            `json:"bytes"`
	Failed           int64            `json:"failed"`
	Skipped          int64            `json:"skipped"`
	Seconds          float64          `json:"seconds"`
	ObjectsPerSecond float64          `json:"objects_per_second"`
	MiBPerSecond     float64          `json:"mib_per_second"`
	ConcurrencyLimit int              `json:"concurrency_limit,omitempty"`
	Requests         map[string]int64 `json:"requests,omitempty"`
	Unverified       int64            `json:"unverified,omitempty"`
}

// PrintSummary writes the run's summary line(s) to w.
func PrintSummary(w io.Writer, s engine.Summary, asJSON bool, limit int) {
	if asJSON {
		enc := json.NewEncoder(w)
		_ = enc.Encode(SummaryRecord{
			Type: "summary", Objects: s.Objects, Bytes: s.Bytes, Failed: s.Failed, Skipped: s.Skipped,
			Seconds: s.Seconds, ObjectsPerSecond: s.ObjectsPerSecond(), MiBPerSecond: s.MiBPerSecond(),
			ConcurrencyLimit: limit, Requests: s.Requests, Unverified: s.Unverified,
		})
		return
	}
	fmt.Fprintf(w, "%d objects, %s in %.2fs: %.1f objects/s, %.2f MiB/s; %d failed, %d skipped\n",
		s.Objects, HumanBytes(s.Bytes), s.Seconds, s.ObjectsPerSecond(), s.MiBPerSecond(), s.Failed, s.Skipped)
	if s.Unverified > 0 {
		fmt.Fprintln(w, unverifiedNote(s.Unverified))
	}
}

// unverifiedNote is the one line a run prints when some downloads had
// nothing to be checked against.
func unverifiedNote(n int64) string {
	objects := "objects were"
	if n == 1 {
		objects = "object was"
	}
	return fmt.Sprintf("WARNING %d %s downloaded in parts without a check: the server keeps no full-object checksum"+
		" and no MD5 or multipart ETag for them (SSE-KMS, SSE-C, or a server that does not say), or checksums are off (--checksum-when-required)", n, objects)
}

// HumanBytes formats n with binary units: 1.5 MiB.
func HumanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
