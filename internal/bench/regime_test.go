package bench

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// reportGroups are the report's 5,000 objects by company.
func reportGroups() []Group {
	l := DefaultLayout()
	var es []Entry
	for i := range l.Objects {
		es = append(es, Entry{Key: l.Key(i), Size: l.Size})
	}
	return groupByCompany(es)
}

func TestSampleKeepsEveryCompanyInProportion(t *testing.T) {
	groups := reportGroups()
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
	got := calibrate(methods, 2, nil)
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
	idle := calibrate([]Result{{Method: MethodAWS, Status: StatusOK, ObjectsPerSecond: 150, Seconds: 10, ClientCPUSeconds: 5}}, 2, nil)
	if n := idle[0].ClientNote(); n != "" {
		t.Errorf("a miss with the client at 25%% of the CPUs was put down to the client: %q", n)
	}
	if title := chartTitle(r); !strings.Contains(title, "in a simulated S3 region (120ms/request") {
		t.Errorf("chart title %q does not name the regime", title)
	}
}

func TestScheduleIsTheReportsFourSlots(t *testing.T) {
	groups := reportGroups()
	// 12 companies of 400 and one of 200 on 4 slots: three rounds of 400,
	// then the last company alone.
	for _, tc := range []struct {
		slots int
		want  float64
	}{{4, 14}, {1, 50}, {13, 4}, {0, 50}} {
		if got := scheduledSeconds(groups, tc.slots, 0.01); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%d slots at 10 ms an object: %.2f s, want %.2f", tc.slots, got, tc.want)
		}
	}
}

func TestCalibrationOfAClientBoundCLIUsesItsProcessAlone(t *testing.T) {
	aws := Result{Method: MethodAWS, Status: StatusOK, ObjectsPerSecond: 164, Seconds: 30, ClientCPUSeconds: 57} // 95% of 2 CPUs
	alone := &AloneRun{Company: "company-0001/", Objects: 400, Seconds: 6.5, ScheduledObjectsPerSecond: 219.8}
	for _, tc := range []struct {
		name   string
		m      Result
		alone  *AloneRun
		within bool
		line   string
	}{
		{"a client-bound miss is judged by the process alone", aws, alone, true,
			"aws: 164.0 objects/s, the report's 251.43: -35%, with its client at 95% of this machine's CPUs (the report's had 4 cores, one a process); one process alone: 400 objects of company-0001/ in 6.5 s, on the report's schedule with a core a process 219.8 objects/s: -13%, within ±25%"},
		{"a process alone that misses too stays outside", aws, &AloneRun{Company: "company-0001/", Objects: 400, Seconds: 20, ScheduledObjectsPerSecond: 71.4}, false,
			"one process alone: 400 objects of company-0001/ in 20.0 s, on the report's schedule with a core a process 71.4 objects/s: -72%, OUTSIDE ±25%"},
		{"a miss on a machine busy with other work is judged by the process alone", Result{Method: MethodAWS, Status: StatusOK, ObjectsPerSecond: 70, Seconds: 71, ClientCPUSeconds: 31}, alone, true,
			"aws: 70.0 objects/s, the report's 251.43: -72%, with its client at 22% of this machine's CPUs (the report's had 4 cores, one a process); one process alone"},
		{"a miss without a process alone stays outside", Result{Method: MethodAWS, Status: StatusOK, ObjectsPerSecond: 150, Seconds: 10, ClientCPUSeconds: 5}, nil, false,
			"aws: 150.0 objects/s, the report's 251.43: -40%, OUTSIDE ±25%"},
		{"a measured rate within stays the measured one", Result{Method: MethodAWS, Status: StatusOK, ObjectsPerSecond: 240, Seconds: 21, ClientCPUSeconds: 40}, alone, true,
			"aws: 240.0 objects/s, the report's 251.43: -5%, within ±25%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := calibrate([]Result{tc.m}, 2, tc.alone)
			if len(got) != 1 {
				t.Fatalf("%d calibrations, want 1", len(got))
			}
			if got[0].Within != tc.within {
				t.Errorf("within = %v, want %v", got[0].Within, tc.within)
			}
			if line := got[0].Line(); !strings.Contains(line, tc.line) {
				t.Errorf("line %q lacks %q", line, tc.line)
			}
		})
	}
}
