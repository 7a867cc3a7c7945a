package progress

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/batchops"
)

var updateJobGolden = flag.Bool("update-job", false, "rewrite the job output golden files")

// renderJobOutputs drives every method of JobOutput with one fixed value
// each, as a batch copy with a fallback, a failed task and a summary, then
// the answers of status, run, priority and ls.
func renderJobOutputs(t *testing.T, o *JobOutput) {
	t.Helper()
	created := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	j := batchops.Job{
		ID: "job-1", Status: batchops.StatusComplete, Description: "s3bulk cp s3://src s3://dst", Priority: 10,
		Total: 3, Succeeded: 2, Failed: 1, Active: 12 * time.Second, Created: created, Terminated: created.Add(time.Minute),
		FailureReasons: []string{"1 task failed"},
		Report:         batchops.ReportLocation{Enabled: true, Bucket: "dst", Prefix: "_batch/report"},
	}
	o.Note("note: a job keeps whole source keys")
	o.Plan(batchops.PlanRecord{Type: "plan", Manifest: "s3://dst/_batch/manifest/m.csv", ETag: "abc", Versioned: true,
		Objects: 3, Bytes: 3072, Oversize: 1, OversizeBytes: 6 << 30, OversizeAction: batchops.ActionExcluded,
		ManifestPlanned: "s3://dst/_batch/manifest/m.csv", MaxSize: batchops.MaxCopySize})
	o.GeneratorPlan(batchops.GeneratorPlanRecord{Type: "plan", Generator: "s3://src/logs/", SizeBelow: 5_000_000_000},
		batchops.GeneratorText{Bucket: "src", Prefix: "logs/", MaxSize: batchops.MaxCopySize})
	o.Excluded(batchops.ExcludedRecord{Type: "excluded", Src: "s3://src/big.bin", Size: 6 << 30, Reason: batchops.ReasonTooBig, MaxSize: batchops.MaxCopySize})
	o.JobCreated(batchops.JobCreatedRecord{Type: "job", JobID: "job-1", Region: "eu-west-1"})
	o.Progress(j)
	o.StopProgress(j)
	if err := o.Task(j, batchops.TaskResult{Bucket: "src", Key: "gone, really.json", VersionID: "v1", Status: batchops.TaskFailed,
		ErrorCode: "NoSuchKey", HTTPStatus: 404, Message: "The specified key\ndoes not exist."}); err != nil {
		t.Fatal(err)
	}
	o.Summary(j)
	o.Job(j)
	o.JobStatus("job-1", "Ready")
	o.JobPriority("job-1", 77)
	if err := o.JobListed(batchops.JobSummary{ID: "job-1", Status: "Complete", Operation: "S3PutObjectCopy", Description: "d",
		Total: 3, Succeeded: 2, Failed: 1, Created: created}); err != nil {
		t.Fatal(err)
	}
}

func TestJobOutputGolden(t *testing.T) {
	for _, tt := range []struct {
		name string
		json bool
	}{{"text", false}, {"json", true}} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			renderJobOutputs(t, &JobOutput{Out: &out, Err: &errOut, JSON: tt.json})
			got := "# stdout\n" + out.String() + "# stderr\n" + errOut.String()
			path := filepath.Join("testdata", "job-"+tt.name+".golden")
			if *updateJobGolden {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

// TestJobRecordsAreDocumented checks that docs/json.md names every field of
// every batch record.
func TestJobRecordsAreDocumented(t *testing.T) {
	var out, errOut bytes.Buffer
	renderJobOutputs(t, &JobOutput{Out: &out, Err: &errOut, JSON: true})
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "json.md"))
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()+errOut.String()), "\n") {
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		for k := range rec {
			if !bytes.Contains(doc, []byte("`"+k+"`")) && !slices.Contains(missing, k) {
				missing = append(missing, k)
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("docs/json.md does not document %v", missing)
	}
}
