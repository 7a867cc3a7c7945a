package progress

import (
	"fmt"
	"io"
	"sync"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/engine/diff"
	"github.com/s3bulk/s3bulk/store"
)

// Uploads prints mpu's records, whole lines from concurrent aborts:
// results on Out, failures on ErrOut; JSON on Out with JSON set.
type Uploads struct {
	Out, ErrOut io.Writer
	JSON        bool
	Quiet       bool // no line per abort (failures still)
	mu          sync.Mutex
	enc         *JSON
}

// Print writes r.
func (p *Uploads) Print(r UploadRecord) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var err error
	switch {
	case p.JSON:
		if p.enc == nil {
			p.enc = NewJSON(p.Out)
		}
		r.Initiated = r.Initiated.UTC()
		err = p.enc.Encode(r)
	case r.Status == "failed":
		_, err = fmt.Fprintf(p.ErrOut, "ERROR abort %s (upload %s): %s\n", r.URL, r.UploadID, r.Error)
	case p.Quiet && r.Op != "":
		return nil
	case r.Status == "dry-run":
		_, err = fmt.Fprintf(p.Out, "DRY-RUN abort %s %s\n", r.URL, r.UploadID)
	case r.Op == "abort":
		_, err = fmt.Fprintf(p.Out, "abort %s %s\n", r.URL, r.UploadID)
	default:
		_, err = fmt.Fprintf(p.Out, "%s  %s  %s\n", r.Initiated.Local().Format("2006-01-02 15:04:05"), r.UploadID, r.URL)
	}
	return err
}

// Upload prints the unfinished upload u of bucket (mpu ls).
func (p *Uploads) Upload(bucket string, u store.Upload) error {
	return p.Print(UploadRecord{URL: "s3://" + bucket + "/" + u.Key, UploadID: u.UploadID, Initiated: u.Initiated})
}

// Aborted prints the end of one abort of an upload of bucket (mpu abort,
// an engine.AbortOptions.Observer).
func (p *Uploads) Aborted(bucket string, r engine.UploadResult) {
	rec := UploadRecord{Op: "abort", Status: string(r.Status), URL: "s3://" + bucket + "/" + r.Upload.Key, UploadID: r.Upload.UploadID, Initiated: r.Upload.Initiated}
	if r.Err != nil {
		rec.Error = r.Err.Error()
	}
	_ = p.Print(rec)
}

// Verify prints verify's findings on Out, one line each (a JSON document
// each with JSON), and its summary on Err unless Quiet.
type Verify struct {
	Out, Err    io.Writer
	JSON, Quiet bool
	enc         *JSON
}

// Finding prints one finding (a diff.Check callback).
func (v *Verify) Finding(f diff.Finding) error {
	if v.JSON {
		if v.enc == nil {
			v.enc = NewJSON(v.Out)
		}
		return v.enc.Encode(f)
	}
	_, err := fmt.Fprintln(v.Out, FindingText(f))
	return err
}

// Summary prints the summary of a verify that took seconds.
func (v *Verify) Summary(s diff.CheckStats, seconds float64) {
	switch {
	case v.JSON:
		_ = NewJSON(v.Err).Encode(NewVerifySummary(s, seconds))
	case !v.Quiet:
		fmt.Fprintln(v.Err, VerifyText(s))
	}
}
