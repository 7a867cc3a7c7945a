package bench

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSampleKeepsEveryCompanyInProportion(t *testing.T) {
	groups := groupByCompany(func() []Entry {
		l := DefaultLayout()
		var es []Entry
		for i := range l.Objects {
			es = append(es, Entry{Key: l.Key(i), Size: l.Size})
		}
		return es
	}())
	var sizes []int
	for _, g := range sampleGroups(groups, SimSample) {
		sizes = append(sizes, len(g.Objects))
	}
	want := []int{34, 34, 34, 34, 34, 34, 34, 34, 34, 34, 34, 34, 17}
	if diff := cmp.Diff(want, sizes); diff != "" {
		t.Errorf("sample of the report's 13 companies (-want +got):\n%s", diff)
	}
	if got := sampleGroups(groups, 0); len(got[0].Objects) != 400 {
		t.Errorf("no sample kept %d objects of the first company, want all 400", len(got[0].Objects))
	}
}

func TestCalibrationComparesWithTheReport(t *testing.T) {
	methods := []Result{
		{Method: MethodCopyPerCompany, Status: StatusOK, ObjectsPerSecond: 27},                          // -10%
		{Method: MethodAWS, Status: StatusOK, ObjectsPerSecond: 150, Seconds: 10, ClientCPUSeconds: 19}, // -40%, 95% of 2 CPUs
		{Method: MethodS3bulk, Status: StatusOK, ObjectsPerSecond: 3000},                                // not the report's
		{Method: MethodRclone, Status: StatusFailed, ObjectsPerSecond: 1},                               // not the report's
	}
	got := calibrate(methods, 2)
	var within []bool
	for _, c := range got {
		within = append(within, c.Within)
	}
	if diff := cmp.Diff([]bool{true, false}, within); diff != "" {
		t.Errorf("within tolerance (-want +got):\n%s", diff)
	}
	r := &Report{Methods: methods, Calibration: got, Environment: Environment{Regime: RegimeSimulated, Latency: "120ms", Objects: 5000, Bytes: 5000 << 10}}
	var b bytes.Buffer
	if err := WriteTable(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"copy-per-company: 27.0 objects/s, the report's 29.99: -10%, within ±15%",
		"aws: 150.0 objects/s, the report's 251.43: -40%, OUTSIDE ±25% (its client used 95% of this machine's CPUs; the report's had 4 cores: the client was the bound, not the region)",
		"Regime: a simulated S3 region",
		"`--server local` shows the other regime",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	if n := got[0].ClientNote(); n != "" {
		t.Errorf("a calibration within its tolerance got a client note %q", n)
	}
	idle := calibrate([]Result{{Method: MethodAWS, Status: StatusOK, ObjectsPerSecond: 150, Seconds: 10, ClientCPUSeconds: 5}}, 2)
	if n := idle[0].ClientNote(); n != "" {
		t.Errorf("a miss with the client at 25%% of the CPUs was put down to the client: %q", n)
	}
	if title := chartTitle(r); !strings.Contains(title, "in a simulated S3 region (120ms/request") {
		t.Errorf("chart title %q does not name the regime", title)
	}
}
