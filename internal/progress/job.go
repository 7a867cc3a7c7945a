package progress

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/s3bulk/s3bulk/internal/batchops"
)

// JobOutput renders S3 Batch Operations workflows (batchops.Observer) and
// the batch verbs' answers: text on Out and Err, or with JSON one record
// (docs/json.md) a line on Out. With Bar a job being waited for is drawn
// as a bar on Err; without it, one line per change of status.
type JobOutput struct {
	Out, Err io.Writer
	JSON     bool
	Quiet    bool
	Bar      bool

	mu   sync.Mutex // the bar's decorators read last from mpb's goroutine
	p    *mpb.Progress
	bar  *mpb.Bar
	last batchops.Job
	seen bool
}

func (o *JobOutput) encode(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// Note prints msg on Err.
func (o *JobOutput) Note(msg string) { fmt.Fprintln(o.Err, msg) }

// Warning prints msg on Err.
func (o *JobOutput) Warning(msg string) { fmt.Fprintln(o.Err, msg) }

// sizeLimit names the object sizes a job leaves to this machine.
func sizeLimit(maxSize int64) string {
	if maxSize == batchops.MaxCopySize || maxSize <= 0 {
		return "5 GB or more"
	}
	return "over " + HumanBytes(maxSize)
}

// Plan prints a batch copy's plan.
func (o *JobOutput) Plan(r batchops.PlanRecord) {
	if o.JSON {
		o.encode(o.Out, r)
		return
	}
	action := "copied from this machine"
	if r.OversizeAction == batchops.ActionExcluded {
		action = "EXCLUDED (--no-local-fallback)"
	}
	where := r.ManifestPlanned
	if r.DryRun {
		where = "(dry run: not written)"
	}
	kind := ""
	if r.Versioned {
		kind = ", versioned"
	}
	fmt.Fprintf(o.Err, "plan: %d objects (%s) for the job, manifest %s%s\n", r.Objects, HumanBytes(r.Bytes), where, kind)
	if r.Oversize > 0 {
		fmt.Fprintf(o.Err, "plan: %d objects (%s) are %s, which a job cannot copy: %s with multipart copy\n",
			r.Oversize, HumanBytes(r.OversizeBytes), sizeLimit(r.MaxSize), action)
	}
	if r.Archived > 0 {
		fmt.Fprintf(o.Err, "plan: %d objects (%s) are in GLACIER or DEEP_ARCHIVE, which a job fails on until they are restored: %s (restore them first, or their copies fail)\n",
			r.Archived, HumanBytes(r.ArchivedBytes), action)
	}
}

// GeneratorPlan prints the plan of a job whose manifest S3 generates.
func (o *JobOutput) GeneratorPlan(r batchops.GeneratorPlanRecord, t batchops.GeneratorText) {
	if o.JSON {
		o.encode(o.Out, r)
		return
	}
	fmt.Fprintf(o.Err, "plan: S3 lists s3://%s/%s itself (manifest generator); objects %s are left out: copy them with `s3bulk cp --recursive --min-size %d`\n",
		t.Bucket, t.Prefix, sizeLimit(t.MaxSize), r.SizeBelow)
}

// Excluded prints an object left out of a copy.
func (o *JobOutput) Excluded(r batchops.ExcludedRecord) {
	if o.JSON {
		o.encode(o.Out, r)
		return
	}
	why := r.Reason
	if why == batchops.ReasonTooBig {
		why = sizeLimit(r.MaxSize) + ", a job cannot copy it"
	}
	fmt.Fprintf(o.Err, "EXCLUDED %s (%s): %s\n", r.Src, HumanBytes(r.Size), why)
}

// JobCreated prints a new job's id on Out.
func (o *JobOutput) JobCreated(r batchops.JobCreatedRecord) {
	if o.JSON {
		o.encode(o.Out, r)
		return
	}
	fmt.Fprintf(o.Out, "job %s\n", r.JobID)
}

// Progress shows the state of a job being waited for.
func (o *JobOutput) Progress(j batchops.Job) {
	o.mu.Lock()
	changed := !o.seen || j.Status != o.last.Status
	o.last, o.seen = j, true
	if o.Bar && o.p == nil {
		o.startBar()
	}
	bar := o.bar
	o.mu.Unlock()
	if bar != nil {
		bar.SetTotal(max(j.Total, 1), false)
		bar.SetCurrent(j.Succeeded + j.Failed)
		return
	}
	if changed && !o.Quiet && !o.JSON {
		fmt.Fprintf(o.Err, "job %s: %s, %d/%d tasks done, %d failed, %s active\n",
			j.ID, j.Status, j.Succeeded+j.Failed, j.Total, j.Failed, j.Active)
	}
}

// startBar draws the job's bar; o.mu is held.
func (o *JobOutput) startBar() {
	o.p = mpb.New(mpb.WithOutput(o.Err), mpb.WithWidth(40))
	o.bar = o.p.AddBar(1,
		mpb.PrependDecorators(decor.Any(func(decor.Statistics) string { return o.snapshot().Status })),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string {
			j := o.snapshot()
			return fmt.Sprintf("%d/%d tasks  %d failed  %s active", j.Succeeded+j.Failed, j.Total, j.Failed, j.Active)
		})),
	)
}

func (o *JobOutput) snapshot() batchops.Job {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.last
}

// StopProgress ends the watch with the last state seen.
func (o *JobOutput) StopProgress(j batchops.Job) {
	o.mu.Lock()
	p, bar := o.p, o.bar
	o.p, o.bar, o.seen = nil, nil, false
	o.mu.Unlock()
	if bar == nil {
		return
	}
	if j.ID != "" {
		o.mu.Lock()
		o.last = j
		o.mu.Unlock()
		bar.SetTotal(max(j.Total, 1), false)
		bar.SetCurrent(j.Succeeded + j.Failed)
	}
	bar.Abort(false)
	p.Wait()
}

// Task prints a failed task of a report as cp prints a failed object.
func (o *JobOutput) Task(j batchops.Job, r batchops.TaskResult) error {
	if r.Status == batchops.TaskUnreadable {
		_, err := fmt.Fprintf(o.Err, "WARNING report of job %s: %s\n", j.ID, oneLine(r.Message))
		return err
	}
	if o.JSON {
		o.encode(o.Out, batchops.NewTaskRecord(r))
		return nil
	}
	src := "s3://" + r.Bucket + "/" + r.Key
	if r.VersionID != "" {
		src += " (version " + r.VersionID + ")"
	}
	_, err := fmt.Fprintf(o.Err, "ERROR copy %s: %s (%d): %s\n", src, r.ErrorCode, r.HTTPStatus, oneLine(r.Message))
	return err
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Summary prints the end of a job on Err.
func (o *JobOutput) Summary(j batchops.Job) {
	if o.JSON {
		o.encode(o.Err, batchops.NewJobRecord(j))
		return
	}
	if o.Quiet && j.Status == batchops.StatusComplete && j.Failed == 0 {
		return
	}
	fmt.Fprintf(o.Err, "job %s: %s, %d of %d tasks succeeded, %d failed; %s active, %s wall clock\n",
		j.ID, j.Status, j.Succeeded, j.Total, j.Failed, j.Active, j.WallClock().Round(time.Second))
	for _, r := range j.FailureReasons {
		fmt.Fprintf(o.Err, "job %s: %s\n", j.ID, r)
	}
}

// Job prints a job's state on Out (batch status).
func (o *JobOutput) Job(j batchops.Job) {
	r := batchops.NewJobRecord(j)
	if o.JSON {
		o.encode(o.Out, r)
		return
	}
	out := o.Out
	fmt.Fprintf(out, "job:         %s\n", j.ID)
	fmt.Fprintf(out, "status:      %s\n", j.Status)
	if j.Description != "" {
		fmt.Fprintf(out, "description: %s\n", j.Description)
	}
	fmt.Fprintf(out, "priority:    %d\n", j.Priority)
	fmt.Fprintf(out, "tasks:       %d succeeded, %d failed, %d total\n", j.Succeeded, j.Failed, j.Total)
	fmt.Fprintf(out, "active:      %s\n", j.Active)
	if r.Created != "" {
		fmt.Fprintf(out, "created:     %s\n", r.Created)
	}
	if r.Terminated != "" {
		fmt.Fprintf(out, "terminated:  %s (wall clock %s)\n", r.Terminated, j.WallClock().Round(time.Second))
	}
	if j.StatusReason != "" {
		fmt.Fprintf(out, "reason:      %s\n", j.StatusReason)
	}
	for _, f := range j.FailureReasons {
		fmt.Fprintf(out, "failure:     %s\n", f)
	}
	if r.Report != "" {
		fmt.Fprintf(out, "report:      %s\n", r.Report)
	}
}

// JobStatus prints a job's status after a change (batch run, cancel).
func (o *JobOutput) JobStatus(id, status string) {
	if o.JSON {
		o.encode(o.Out, batchops.JobStatusRecord{Type: "job", JobID: id, Status: status})
		return
	}
	fmt.Fprintf(o.Out, "job %s: %s\n", id, status)
}

// JobPriority prints a job's new priority (batch priority).
func (o *JobOutput) JobPriority(id string, priority int64) {
	if o.JSON {
		o.encode(o.Out, batchops.JobPriorityRecord{Type: "job", JobID: id, Priority: priority})
		return
	}
	fmt.Fprintf(o.Out, "job %s: priority %d\n", id, priority)
}

// JobListed prints one job of batch ls.
func (o *JobOutput) JobListed(s batchops.JobSummary) error {
	if o.JSON {
		enc := json.NewEncoder(o.Out)
		enc.SetEscapeHTML(false)
		return enc.Encode(batchops.NewJobListRecord(s))
	}
	_, err := fmt.Fprintf(o.Out, "%s  %-10s %s  %d/%d done, %d failed  %s\n",
		s.Created.UTC().Format("2006-01-02 15:04:05"), s.Status, s.ID, s.Succeeded+s.Failed, s.Total, s.Failed, s.Description)
	return err
}
