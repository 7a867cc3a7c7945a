package bench

// Extrapolation projects each method to bigger data sets the way the report
// did: linearly from the measured time per object. It ignores fixed start-up
// costs and the throttling a bigger run may meet, so it is a lower bound for
// slow methods and a rough guide for fast ones.
type Extrapolation struct {
	Model        string       `json:"model"`
	ObjectCounts []int64      `json:"object_counts"`
	Methods      []Projection `json:"methods"`
}

// Projection is one method's projected time and cost at each object count.
// Seconds is null for methods that did not finish.
type Projection struct {
	Method           string    `json:"method"`
	Seconds          []float64 `json:"seconds"`
	EstimatedCostUSD []float64 `json:"estimated_cost_usd"`
}

// reportObjectCounts are the report's projection points.
var reportObjectCounts = []int64{50_000, 100_000, 150_000}

// extrapolate projects every result to counts. Request costs scale with the
// object count; Batch Operations keeps its one job fee.
func extrapolate(results []Result, counts []int64, prices Prices) Extrapolation {
	ex := Extrapolation{Model: "linear in object count", ObjectCounts: counts, Methods: []Projection{}}
	for _, r := range results {
		if r.Method == MethodBatchOps && (r.Status == StatusOK || r.Status == StatusNotRun) {
			p := Projection{Method: r.Method}
			for _, n := range counts {
				if r.Status == StatusOK && r.Objects > 0 {
					p.Seconds = append(p.Seconds, r.Seconds*float64(n)/float64(r.Objects))
				}
				p.EstimatedCostUSD = append(p.EstimatedCostUSD, prices.BatchOpsCost(n))
			}
			ex.Methods = append(ex.Methods, p)
			continue
		}
		if r.Status != StatusOK || r.Objects == 0 {
			continue
		}
		p := Projection{Method: r.Method}
		for _, n := range counts {
			scale := float64(n) / float64(r.Objects)
			p.Seconds = append(p.Seconds, r.Seconds*scale)
			p.EstimatedCostUSD = append(p.EstimatedCostUSD, r.EstimatedCostUSD*scale)
		}
		ex.Methods = append(ex.Methods, p)
	}
	return ex
}

// setSpeedups picks the baseline (put when it finished, else the first
// method that did) and fills every finished method's speed-up against it.
func setSpeedups(results []Result) (baseline string) {
	var base *Result
	for i := range results {
		if results[i].Status == StatusOK && results[i].ObjectsPerSecond > 0 {
			if base == nil || results[i].Method == MethodPut {
				base = &results[i]
			}
		}
	}
	if base == nil {
		return ""
	}
	rate := base.ObjectsPerSecond
	for i := range results {
		if results[i].Status == StatusOK && results[i].ObjectsPerSecond > 0 {
			s := results[i].ObjectsPerSecond / rate
			results[i].SpeedupVsBaseline = &s
		}
	}
	return base.Method
}
