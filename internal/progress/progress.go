package progress

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/units"
)

// verbs names an operation the way users read it in s5cmd and aws output.
var verbs = map[engine.Op]string{
	engine.OpCopy:     "cp",
	engine.OpUpload:   "cp",
	engine.OpDownload: "cp",
	engine.OpStream:   "cp",
	engine.OpDelete:   "rm",
	engine.OpMarker:   "cp", // a delete marker copied
	engine.OpSkip:     "skip",
}

// verbOf returns the user-facing verb of an operation ("cp", "rm"...).
func verbOf(op engine.Op, move bool) string {
	if move && op != engine.OpDelete && op != engine.OpSkip {
		return "mv"
	}
	return verbs[op]
}

// Lines prints one line per result: successes on out, failures on errOut.
// Skips are counted by reason and told in one line by Skips, unless
// Verbose, which prints one line per skip. It is safe for concurrent use.
type Lines struct {
	Out, ErrOut io.Writer
	Quiet       bool // only failures
	Verbose     bool // one line per skip
	// Explain, when set, returns what a user can do about a failure, or
	// "": it ends the failure's line.
	Explain func(error) string
	mu      sync.Mutex
	skips   map[string]int64
	order   []string
}

// Result prints r.
func (l *Lines) Result(r engine.Result) {
	l.mu.Lock()
	defer l.mu.Unlock()
	verb := verbOf(r.Task.Op, r.Task.DeleteSource)
	switch r.Status {
	case engine.StatusDone, engine.StatusDryRun:
		if l.Quiet {
			break
		}
		line := verb + " " + r.Task.Src
		if r.Task.Dst != "" {
			line += " " + r.Task.Dst
		}
		if r.Status == engine.StatusDryRun {
			line = "DRY-RUN " + line
		}
		fmt.Fprintln(l.Out, line)
	case engine.StatusSkipped:
		switch {
		case l.Quiet:
		case l.Verbose:
			fmt.Fprintf(l.ErrOut, "SKIP %s: %s\n", r.Task.Src, r.Task.Reason)
		default:
			// "cannot compare checksums: <why>" and the like group by
			// what comes before the details.
			why, _, _ := strings.Cut(r.Task.Reason, ": ")
			if l.skips == nil {
				l.skips = map[string]int64{}
			}
			if l.skips[why] == 0 {
				l.order = append(l.order, why)
			}
			l.skips[why]++
		}
	case engine.StatusFailed:
		hint := ""
		if l.Explain != nil {
			if h := l.Explain(r.Err); h != "" {
				hint = "; " + h
			}
		}
		fmt.Fprintf(l.ErrOut, "ERROR %v%s\n", r.Err, hint)
	}
}

// Skips prints the one line that tells the skips Result counted, if any:
// "skipped 3,067 objects: done in journal".
func (l *Lines) Skips() {
	l.mu.Lock()
	defer l.mu.Unlock()
	var n int64
	parts := make([]string, 0, len(l.order))
	for _, why := range l.order {
		n += l.skips[why]
		parts = append(parts, Count(l.skips[why])+" "+why)
	}
	switch {
	case n == 0:
		return
	case len(parts) == 1:
		fmt.Fprintf(l.ErrOut, "skipped %s: %s (--verbose lists them)\n", plural(n, "object"), l.order[0])
	default:
		fmt.Fprintf(l.ErrOut, "skipped %s: %s (--verbose lists them)\n", plural(n, "object"), strings.Join(parts, ", "))
	}
	l.skips, l.order = nil, nil
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
	// Unverified marks an object read with nothing to check it against
	// (engine.Result.Unverified).
	Unverified bool `json:"unverified,omitempty"`
	// Attempts is how many times the whole object was tried, when it was
	// restarted (engine.Result.Attempts above 1).
	Attempts int `json:"attempts,omitempty"`
}

// newRecord converts a result.
func newRecord(r engine.Result) Record {
	rec := Record{
		Op: verbOf(r.Task.Op, r.Task.DeleteSource), Kind: string(r.Task.Op), Status: string(r.Status),
		Src: r.Task.Src, Dst: r.Task.Dst, Size: r.Task.Size, Parts: r.Parts,
		Seconds: r.Duration.Seconds(), Reason: r.Task.Reason, Unverified: r.Unverified,
	}
	if r.Attempts > 1 {
		rec.Attempts = r.Attempts
	}
	if r.Err != nil {
		rec.Error = r.Err.Error()
	}
	return rec
}

// JSONLines prints one JSON document per result on Out. Safe for
// concurrent use.
type JSONLines struct {
	Out  io.Writer
	once sync.Once
	enc  *JSON
}

// Result prints r as one line.
func (j *JSONLines) Result(r engine.Result) {
	j.once.Do(func() { j.enc = NewJSON(j.Out) })
	_ = j.enc.Encode(newRecord(r))
}

// SummaryRecord is the JSON form of the final summary (--json, on stderr).
type SummaryRecord struct {
	Type             string           `json:"type"` // "summary"
	Objects          int64            `json:"objects"`
	Deleted          int64            `json:"deleted"`
	Bytes            int64            `json:"bytes"`
	Failed           int64            `json:"failed"`
	Skipped          int64            `json:"skipped"`
	Seconds          float64          `json:"seconds"`
	ObjectsPerSecond float64          `json:"objects_per_second"`
	MiBPerSecond     float64          `json:"mib_per_second"`
	ConcurrencyLimit int              `json:"concurrency_limit,omitempty"`
	Requests         map[string]int64 `json:"requests,omitempty"`
	Unverified       int64            `json:"unverified,omitempty"`
	// Restarted counts the objects started over (engine.Summary.Restarted).
	Restarted int64 `json:"restarted,omitempty"`
	// Shard is the run's shard, with --shard or --shard-count.
	Shard *ShardRecord `json:"shard,omitempty"`
}

// ShardRecord is a shard in the JSON summary: index of count, from 0.
type ShardRecord struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// PrintSummary writes the run's summary line(s) to w; verb is summaryText's.
func PrintSummary(w io.Writer, s engine.Summary, asJSON bool, limit int, verb string) {
	if asJSON {
		var sh *ShardRecord
		if s.Shard.Count > 1 {
			sh = &ShardRecord{Index: s.Shard.Index, Count: s.Shard.Count}
		}
		_ = NewJSON(w).Encode(SummaryRecord{
			Shard: sh,
			Type:  "summary", Objects: s.Objects, Deleted: s.Deleted, Bytes: s.Bytes, Failed: s.Failed, Skipped: s.Skipped,
			Seconds: s.Seconds, ObjectsPerSecond: s.ObjectsPerSecond(), MiBPerSecond: s.MiBPerSecond(),
			ConcurrencyLimit: limit, Requests: s.Requests, Unverified: s.Unverified, Restarted: s.Restarted,
		})
		return
	}
	fmt.Fprintln(w, summaryText(s, verb))
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
	return fmt.Sprintf("WARNING %d %s read without a check: the server keeps no full-object checksum"+
		" and no MD5 or multipart ETag for them (SSE-KMS, SSE-C, or a server that does not say), they were streamed in parts"+
		" from a source with only an MD5 or multipart ETag, or checksums are off (--checksum-when-required)", n, objects)
}

// summaryText is the one-line summary of a run: copies and deletes apart,
// each with the rates that mean something for it. verb names the copies
// ("copied", "moved"), which are then always told; with "" they are called
// copied and told unless the run only deleted.
//
//	copied 12 objects, 1.5 GiB in 20.41s: 75.3 MiB/s; deleted 4,000 objects; 0 failed, 0 skipped
//	copied 3 objects, 48 MiB in 2.10s: 22.86 MiB/s; 0 failed, 0 skipped, 1 restarted
func summaryText(s engine.Summary, verb string) string {
	var parts []string
	secs := fmt.Sprintf("%.2fs", s.Seconds)
	copied := s.Copied()
	if verb != "" || copied > 0 || s.Deleted == 0 {
		if verb == "" {
			verb = "copied"
		}
		p := fmt.Sprintf("%s %s, %s in %s", verb, plural(copied, "object"), units.Human(s.Bytes), secs)
		var rates []string
		if s.Bytes > 0 && s.Seconds > 0 {
			rates = append(rates, fmt.Sprintf("%.2f MiB/s", s.MiBPerSecond()))
		}
		if objectRateMeans(copied, s.Bytes) && s.Seconds > 0 {
			rates = append(rates, fmt.Sprintf("%.1f objects/s", float64(copied)/s.Seconds))
		}
		if len(rates) > 0 {
			p += ": " + strings.Join(rates, ", ")
		}
		parts = append(parts, p)
		secs = "" // said once
	}
	if s.Deleted > 0 {
		p := "deleted " + plural(s.Deleted, "object")
		if secs != "" {
			p += " in " + secs
			if s.Deleted >= 2 && s.Seconds > 0 {
				p += fmt.Sprintf(": %.1f objects/s", float64(s.Deleted)/s.Seconds)
			}
		}
		parts = append(parts, p)
	}
	outcome := fmt.Sprintf("%s failed, %s skipped", Count(s.Failed), Count(s.Skipped))
	if s.Restarted > 0 {
		// Objects started over (engine.Options.Restarts), whether they
		// then arrived or failed.
		outcome += ", " + Count(s.Restarted) + " restarted"
	}
	parts = append(parts, outcome)
	return strings.Join(parts, "; ")
}

// Count formats n with thousands separators: 4,000.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Count(n) + " " + noun + "s"
}
