package batchops

import "time"

// The JSON records of the `batch` verbs and `cp --engine batchops` (with
// --json), one document a line. docs/json.md documents each; a golden test
// keeps them so. Every record has a "type".

// PlanRecord is the plan of a batch copy: what goes into the manifest and
// what a job cannot copy (type "plan", stdout).
type PlanRecord struct {
	Type          string `json:"type"`
	Manifest      string `json:"manifest,omitempty"`
	ETag          string `json:"etag,omitempty"`
	Versioned     bool   `json:"versioned,omitempty"`
	Objects       int64  `json:"objects"`
	Bytes         int64  `json:"bytes"`
	Oversize      int64  `json:"oversize"`
	OversizeBytes int64  `json:"oversize_bytes"`
	Archived      int64  `json:"archived"`
	ArchivedBytes int64  `json:"archived_bytes"`
	// OversizeAction is local-multipart-copy or excluded, when a job
	// cannot copy some objects.
	OversizeAction string `json:"oversize_action,omitempty"`

	// For the text form only.
	ManifestPlanned string `json:"-"` // where the manifest goes, also in a dry run
	DryRun          bool   `json:"-"`
	MaxSize         int64  `json:"-"`
}

// Actions for objects a job cannot copy.
const (
	ActionLocalCopy = "local-multipart-copy"
	ActionExcluded  = "excluded"
)

// GeneratorPlanRecord is the plan of a job whose manifest S3 generates
// (type "plan", stdout).
type GeneratorPlanRecord struct {
	Type      string `json:"type"`
	Generator string `json:"manifest_generator"`
	SizeBelow int64  `json:"size_below"`
}

// ExcludedRecord is an object left out of the copy (type "excluded",
// stdout).
type ExcludedRecord struct {
	Type   string `json:"type"`
	Src    string `json:"src"`
	Size   int64  `json:"size"`
	Reason string `json:"reason"`

	MaxSize int64 `json:"-"` // for the text form
}

// JobRecord is a job's state: `batch status`, and the end of a watched job
// (type "job").
type JobRecord struct {
	Type           string   `json:"type"`
	JobID          string   `json:"job_id"`
	Status         string   `json:"status"`
	Description    string   `json:"description,omitempty"`
	Priority       int32    `json:"priority"`
	Total          int64    `json:"total"`
	Succeeded      int64    `json:"succeeded"`
	Failed         int64    `json:"failed"`
	ActiveSeconds  float64  `json:"active_seconds"`
	Created        string   `json:"created,omitempty"`
	Terminated     string   `json:"terminated,omitempty"`
	FailureReasons []string `json:"failure_reasons,omitempty"`
	Report         string   `json:"report,omitempty"`
}

// NewJobRecord is j's record.
func NewJobRecord(j Job) JobRecord {
	r := JobRecord{
		Type: "job", JobID: j.ID, Status: j.Status, Description: j.Description, Priority: j.Priority,
		Total: j.Total, Succeeded: j.Succeeded, Failed: j.Failed, ActiveSeconds: j.Active.Seconds(),
		FailureReasons: j.FailureReasons,
	}
	if !j.Created.IsZero() {
		r.Created = j.Created.UTC().Format(time.RFC3339)
	}
	if !j.Terminated.IsZero() {
		r.Terminated = j.Terminated.UTC().Format(time.RFC3339)
	}
	if j.Report.Enabled {
		r.Report = "s3://" + j.Report.Bucket + "/" + ReportManifestKey(j.Report.Prefix, j.ID)
	}
	return r
}

// WallClock is how long j ran from its creation to its end; 0 while it
// runs.
func (j Job) WallClock() time.Duration {
	if j.Created.IsZero() || j.Terminated.IsZero() {
		return 0
	}
	return j.Terminated.Sub(j.Created)
}

// JobCreatedRecord names a job just created (type "job", stdout).
type JobCreatedRecord struct {
	Type  string `json:"type"`
	JobID string `json:"job_id"`

	Region string `json:"-"` // for the text form
}

// JobStatusRecord is a job's status after `batch run` or `batch cancel`
// (type "job", stdout).
type JobStatusRecord struct {
	Type   string `json:"type"`
	JobID  string `json:"job_id"`
	Status string `json:"status"`
}

// JobPriorityRecord is a job's priority after `batch priority` (type
// "job", stdout).
type JobPriorityRecord struct {
	Type     string `json:"type"`
	JobID    string `json:"job_id"`
	Priority int64  `json:"priority"`
}

// JobListRecord is one job of `batch ls` (type "job", stdout).
type JobListRecord struct {
	Type        string `json:"type"`
	JobID       string `json:"job_id"`
	Status      string `json:"status"`
	Operation   string `json:"operation"`
	Description string `json:"description,omitempty"`
	Total       int64  `json:"total"`
	Succeeded   int64  `json:"succeeded"`
	Failed      int64  `json:"failed"`
	Created     string `json:"created"`
}

// NewJobListRecord is s's record.
func NewJobListRecord(s JobSummary) JobListRecord {
	return JobListRecord{"job", s.ID, s.Status, s.Operation, s.Description, s.Total, s.Succeeded, s.Failed, s.Created.UTC().Format(time.RFC3339)}
}

// TaskRecord is a failed task of a job's completion report (type "task",
// stdout).
type TaskRecord struct {
	Type       string `json:"type"`
	Status     string `json:"status"`
	Src        string `json:"src"`
	VersionID  string `json:"version_id,omitempty"`
	ErrorCode  string `json:"error_code"`
	HTTPStatus int    `json:"http_status"`
	Error      string `json:"error"`
}

// NewTaskRecord is r's record.
func NewTaskRecord(r TaskResult) TaskRecord {
	return TaskRecord{"task", r.Status, "s3://" + r.Bucket + "/" + r.Key, r.VersionID, r.ErrorCode, r.HTTPStatus, r.Message}
}
