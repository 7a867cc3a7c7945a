package bench

import (
	"time"
)

// Status is how a method's run ended.
type Status string

// A method is "ok" only when every source object arrived with its size.
const (
	StatusOK      Status = "ok"
	StatusSkipped Status = "skipped" // its tool is not installed, or it was not asked for
	StatusFailed  Status = "failed"  // it returned an error, or copied less than the source
	StatusNotRun  Status = "not-run" // it cannot run here (Batch Operations off AWS); cost still estimated
)

// Method names, in the order Run measures them.
const (
	MethodPut            = "put"
	MethodCopyPerCompany = "copy-per-company"
	MethodS3bulk         = "s3bulk"
	MethodAWS            = "aws"
	MethodS5cmd          = "s5cmd"
	MethodRclone         = "rclone"
	MethodBatchOps       = "batchops"
)

// AllMethods lists every method Run knows, in the order it runs them.
var AllMethods = []string{MethodPut, MethodCopyPerCompany, MethodS3bulk, MethodAWS, MethodS5cmd, MethodRclone, MethodBatchOps}

// Result is one method's measurement. Field names in JSON are stable: scripts
// and the golden schema test depend on them.
type Result struct {
	Method string `json:"method"`
	Status Status `json:"status"`
	// Reason explains a status other than ok, or notes how the method ran.
	Reason string `json:"reason"`
	// Description says what the method does, for reports.
	Description string `json:"description"`
	// Objects and Bytes count what arrived at the destination, verified.
	Objects int64   `json:"objects"`
	Bytes   int64   `json:"bytes"`
	Seconds float64 `json:"seconds"`
	// ObjectsPerSecond and MiBPerSecond are Objects and Bytes over Seconds.
	ObjectsPerSecond float64 `json:"objects_per_second"`
	MiBPerSecond     float64 `json:"mib_per_second"`
	// ClientCPUSeconds is user+system time of this process (in-process
	// methods) or of the tool's processes (external tools).
	ClientCPUSeconds float64 `json:"client_cpu_seconds"`
	// Requests counts HTTP attempts by S3 operation name.
	Requests map[string]int64 `json:"requests"`
	// RequestsEstimated is true when Requests was worked out from the
	// objects and listing pages rather than counted (external tools).
	RequestsEstimated bool    `json:"requests_estimated"`
	EstimatedCostUSD  float64 `json:"estimated_cost_usd"`
	// SpeedupVsBaseline is objects/s over the baseline method's objects/s;
	// null when either did not finish.
	SpeedupVsBaseline *float64 `json:"speedup_vs_baseline"`
}

// TotalRequests sums Requests.
func (r Result) TotalRequests() int64 {
	var n int64
	for _, c := range r.Requests {
		n += c
	}
	return n
}

// finish fills the rates from Objects, Bytes and Seconds.
func (r *Result) finish() {
	if r.Seconds > 0 {
		r.ObjectsPerSecond = float64(r.Objects) / r.Seconds
		r.MiBPerSecond = float64(r.Bytes) / (1 << 20) / r.Seconds
	}
}

// Report is the whole benchmark, rendered as a table, one JSON document,
// Markdown and a chart.
type Report struct {
	Methods []Result `json:"methods"`
	// Baseline names the method speed-ups are measured against: put when it
	// ran, else the first method that finished.
	Baseline      string        `json:"baseline"`
	Extrapolation Extrapolation `json:"extrapolation"`
	Environment   Environment   `json:"environment"`
	Huge          *HugeReport   `json:"huge,omitempty"`
	// Calibration compares the report's own methods with its figures, in
	// the simulated region only.
	Calibration []Calibration `json:"calibration,omitempty"`
}

// Environment records where and on what the numbers were taken.
type Environment struct {
	Endpoint           string `json:"endpoint"` // empty: AWS
	Region             string `json:"region"`
	PriceRegion        string `json:"price_region"`
	Source             string `json:"source"`
	Dest               string `json:"dest"`
	Objects            int64  `json:"objects"`
	Bytes              int64  `json:"bytes"`
	Companies          int    `json:"companies"`
	CompanyConcurrency int    `json:"company_concurrency"`
	Latency            string `json:"latency,omitempty"` // added per request by demo's proxy or the simulated region
	// Regime is RegimeSimulated or RegimeLocal when demo or bench
	// --simulate started the endpoint; empty for an endpoint given.
	Regime    string    `json:"regime,omitempty"`
	GoVersion string    `json:"go_version"`
	OS        string    `json:"os"`
	Arch      string    `json:"arch"`
	CPUs      int       `json:"cpus"`
	Started   time.Time `json:"started"`
	// Tools maps each external tool found to its version line.
	Tools map[string]string `json:"tools"`
}

// HugeReport is report 3's experiment: one big object copied server-side in
// parts of several sizes.
type HugeReport struct {
	Key         string `json:"key"`
	Size        int64  `json:"size"`
	Concurrency int    `json:"concurrency"`
	// Repeat is how many copies each row is the fastest of.
	Repeat int       `json:"repeat"`
	Rows   []HugeRow `json:"rows"`
	// BestPartSize is the fastest fixed part size measured.
	BestPartSize int64 `json:"best_part_size"`
	// AutoVsBest is the automatic choice's time over the best fixed time
	// (1.05 = 5% slower); null when the automatic choice did not run.
	AutoVsBest *float64 `json:"auto_vs_best"`
}

// HugeRow is one part size's copy of the huge object.
type HugeRow struct {
	Label        string           `json:"label"` // "8 MiB" or "auto (N MiB)"
	Auto         bool             `json:"auto"`
	Status       Status           `json:"status"`
	Reason       string           `json:"reason"`
	PartSize     int64            `json:"part_size"`
	Parts        int              `json:"parts"`
	Seconds      float64          `json:"seconds"`
	MiBPerSecond float64          `json:"mib_per_second"`
	Requests     map[string]int64 `json:"requests"`
}
