package progress

import (
	"bytes"
	"strings"
	"testing"

	"github.com/s3bulk/s3bulk/internal/bench"
)

func TestBenchSeededAndStages(t *testing.T) {
	t.Parallel()
	dst := bench.Target{Bucket: "b", Prefix: "seed/"}
	st := bench.SeedStats{Objects: 5000, Bytes: 512000000}
	tests := []struct {
		name       string
		b          Bench
		out, stage string
	}{
		{"text", Bench{}, "seeded 5000 objects (488.28 MiB) under s3://b/seed/ in 12.3 s\n", "bench: s3bulk: running\n"},
		{"JSON", Bench{JSON: true}, `{"dest":"s3://b/seed/","objects":5000,"bytes":512000000,"seconds":12.346}` + "\n", "bench: s3bulk: running\n"},
		{"quiet", Bench{Quiet: true}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			tt.b.Out, tt.b.Err = &out, &errOut
			if err := tt.b.Seeded(dst, st, 12.3456); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != tt.out {
				t.Errorf("seeded:\n%q\nwant\n%q", got, tt.out)
			}
			if obs := tt.b.Observer(); obs != nil {
				obs(bench.Event{Method: "s3bulk", Stage: "start"})
				obs(bench.Event{Method: "s3bulk", Stage: "clear"})
			}
			if got := errOut.String(); got != tt.stage {
				t.Errorf("stages:\n%q\nwant\n%q", got, tt.stage)
			}
		})
	}
}

func TestBenchReportIsATableOrOneJSONDocument(t *testing.T) {
	t.Parallel()
	r := &bench.Report{Methods: []bench.Result{{Method: "s3bulk", Status: bench.StatusOK, Objects: 10}}}
	var table, doc bytes.Buffer
	if err := (Bench{Out: &table}).Report(r); err != nil {
		t.Fatal(err)
	}
	if err := (Bench{Out: &doc, JSON: true}).Report(r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "s3bulk") || strings.HasPrefix(table.String(), "{") {
		t.Errorf("table:\n%s", table.String())
	}
	if !strings.HasPrefix(doc.String(), "{") || !strings.Contains(doc.String(), `"s3bulk"`) {
		t.Errorf("JSON:\n%s", doc.String())
	}
}
