package batchops

import (
	"context"
	"crypto/md5"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/s3bulk/s3bulk/store"
)

// ReportFormat is the completion report format s3bulk asks for.
const ReportFormat = "Report_CSV_20180820"

// Task statuses in a completion report.
const (
	TaskSucceeded = "succeeded"
	TaskFailed    = "failed"
	// TaskUnreadable marks a report line s3bulk could not read; Message
	// says why and holds the line. One such line does not hide the others.
	TaskUnreadable = "unreadable"
)

// TaskResult is one line of a completion report: what happened to one
// manifest object.
type TaskResult struct {
	Bucket     string
	Key        string // decoded
	VersionID  string
	Status     string // TaskSucceeded or TaskFailed
	ErrorCode  string // e.g. NoSuchKey, AccessDenied; empty on success
	HTTPStatus int
	Message    string
}

// ReportManifest is a report's manifest.json: the list of result files.
type ReportManifest struct {
	Format             string       `json:"Format"`
	ReportCreationDate string       `json:"ReportCreationDate"`
	Results            []ResultFile `json:"Results"`
	ReportSchema       string       `json:"ReportSchema"`
}

// ResultFile is one CSV file of a report.
type ResultFile struct {
	TaskExecutionStatus string `json:"TaskExecutionStatus"`
	Bucket              string `json:"Bucket"`
	MD5Checksum         string `json:"MD5Checksum"`
	Key                 string `json:"Key"`
}

// ReportSummary folds a report's results.
type ReportSummary struct {
	Created   time.Time
	Files     int
	Succeeded int64
	Failed    int64
	// Errors counts failed tasks by error code ("" when AWS gave none).
	Errors map[string]int64
	// Unreadable counts report lines that could not be read.
	Unreadable int64
}

// ReportManifestKey is where a job's report lists its result files:
// <prefix>/job-<id>/manifest.json.
func ReportManifestKey(prefix, jobID string) string {
	k := "job-" + jobID + "/manifest.json"
	if p := strings.TrimSuffix(prefix, "/"); p != "" {
		k = p + "/" + k
	}
	return k
}

// ParseResults reads one result CSV and calls fn for each line.
//
// The report schema says "Bucket, Key, VersionId, TaskStatus, ErrorCode,
// HTTPStatusCode, ResultMessage", but AWS's own examples put the HTTP status
// before the error code (`b,k,,failed,404,NoSuchKey,msg`). ParseResults takes
// whichever of the two columns is a number as the status, so it reads both.
//
// A line that cannot be read (too few fields, a key that does not decode,
// broken quoting) is passed to fn as a TaskUnreadable result whose Message
// says why, and reading goes on: one bad line must not hide every failed
// key after it.
func ParseResults(r io.Reader, fn func(TaskResult) error) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var perr *csv.ParseError
		if errors.As(err, &perr) {
			if ferr := fn(TaskResult{Status: TaskUnreadable, Message: fmt.Sprintf("line %d: %v", perr.StartLine, perr.Err)}); ferr != nil {
				return ferr
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("parse report: %w", err)
		}
		line, _ := cr.FieldPos(0)
		res := parseRow(rec, line)
		if err := fn(res); err != nil {
			return err
		}
	}
}

// parseRow reads one report row; a row it cannot read becomes a
// TaskUnreadable result.
func parseRow(rec []string, line int) TaskResult {
	unreadable := func(why string) TaskResult {
		return TaskResult{Status: TaskUnreadable, Message: fmt.Sprintf("line %d: %s: %s", line, why, strings.Join(rec, ","))}
	}
	if len(rec) < 4 {
		return unreadable(fmt.Sprintf("%d fields, want at least 4", len(rec)))
	}
	key, err := DecodeKey(rec[1])
	if err != nil {
		return unreadable(err.Error())
	}
	// A version ID is written as the manifest gave it, URL-encoded; S3's
	// own IDs may hold '+', which path decoding keeps whether or not it
	// was encoded.
	version, err := url.PathUnescape(rec[2])
	if err != nil {
		return unreadable(fmt.Sprintf("decode version ID %q: %v", rec[2], err))
	}
	res := TaskResult{Bucket: rec[0], Key: key, VersionID: version, Status: rec[3]}
	a, b := field(rec, 4), field(rec, 5)
	if n, err := strconv.Atoi(b); err == nil && !isNumber(a) {
		res.ErrorCode, res.HTTPStatus = a, n
	} else {
		res.HTTPStatus, _ = strconv.Atoi(a)
		res.ErrorCode = b
	}
	res.Message = field(rec, 6)
	return res
}

func field(rec []string, i int) string {
	if i < len(rec) {
		return rec[i]
	}
	return ""
}

func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// Opener gives a store for a bucket; reports may live in any bucket.
type Opener func(bucket string) (store.Store, error)

// ReadReport reads the completion report of jobID under bucket/prefix (the
// job's report location), checks each result file against the MD5 in
// manifest.json, calls fn for every task (nil fn only counts) and returns
// the summary. Results stream: memory does not grow with the job.
func ReadReport(ctx context.Context, open Opener, bucket, prefix, jobID string, fn func(TaskResult) error) (ReportSummary, error) {
	sum := ReportSummary{Errors: map[string]int64{}}
	st, err := open(bucket)
	if err != nil {
		return sum, err
	}
	mkey := ReportManifestKey(prefix, jobID)
	rc, err := st.Get(ctx, mkey, 0, -1, "")
	if err != nil {
		return sum, fmt.Errorf("read report %s: %w", st.URL(mkey), err)
	}
	var m ReportManifest
	err = json.NewDecoder(io.LimitReader(rc, 64<<20)).Decode(&m)
	rc.Close()
	if err != nil {
		return sum, fmt.Errorf("read report %s: %w", st.URL(mkey), err)
	}
	if m.Format != ReportFormat {
		return sum, fmt.Errorf("read report %s: format %q, want %q", st.URL(mkey), m.Format, ReportFormat)
	}
	sum.Created, _ = time.Parse(time.RFC3339Nano, m.ReportCreationDate)
	for _, f := range m.Results {
		fst := st
		if f.Bucket != "" && f.Bucket != bucket {
			if fst, err = open(f.Bucket); err != nil {
				return sum, err
			}
		}
		if err := readResultFile(ctx, fst, f, &sum, fn); err != nil {
			return sum, err
		}
		sum.Files++
	}
	return sum, nil
}

func readResultFile(ctx context.Context, st store.Store, f ResultFile, sum *ReportSummary, fn func(TaskResult) error) error {
	rc, err := st.Get(ctx, f.Key, 0, -1, "")
	if err != nil {
		return fmt.Errorf("read report %s: %w", st.URL(f.Key), err)
	}
	defer rc.Close()
	h := md5.New()
	err = ParseResults(io.TeeReader(rc, h), func(r TaskResult) error {
		switch r.Status {
		case TaskSucceeded:
			sum.Succeeded++
		case TaskUnreadable:
			sum.Unreadable++
		default:
			sum.Failed++
			sum.Errors[r.ErrorCode]++
		}
		if fn != nil {
			return fn(r)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read report %s: %w", st.URL(f.Key), err)
	}
	if f.MD5Checksum != "" {
		// csv.Reader may stop before EOF on the last line; hash the rest.
		if _, err := io.Copy(h, rc); err != nil {
			return fmt.Errorf("read report %s: %w", st.URL(f.Key), err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); !strings.EqualFold(got, f.MD5Checksum) {
			return fmt.Errorf("read report %s: md5 %s, manifest.json says %s: %w", st.URL(f.Key), got, f.MD5Checksum, store.ErrChecksumMismatch)
		}
	}
	return nil
}
