package transfer

import (
	"strings"
	"testing"

	"github.com/s3bulk/s3bulk/internal/batchops"
	"github.com/s3bulk/s3bulk/s3url"
)

func TestChoicePick(t *testing.T) {
	t.Parallel()
	s3 := func(s string) s3url.Location {
		l, err := s3url.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	prefix := Asks{Src: s3("s3://src/"), Dst: s3("s3://dst/"), Recursive: true}
	ok := Choice{Engine: BatchOps, Prefer: PreferTime, RoleArn: "arn", JobRate: 1}
	tests := []struct {
		name     string
		c        Choice
		t        Asks
		want     string
		blockers int
		wantErr  string
	}{
		{name: "no engine is local", c: Choice{}, t: prefix, want: Local},
		{name: "local needs nothing else", c: Choice{Engine: Local, Prefer: "nonsense"}, t: prefix, want: Local},
		{name: "an unknown engine is refused", c: Choice{Engine: "cloud"}, wantErr: `Engine "cloud"`},
		{name: "an unknown preference is refused", c: Choice{Engine: Auto, Prefer: "fun", JobRate: 1}, wantErr: `Prefer "fun"`},
		{name: "a rate of zero is refused", c: Choice{Engine: Auto, Prefer: PreferCost}, wantErr: "JobStartup/JobRate 0s 0"},
		{name: "batchops takes a prefix", c: ok, t: prefix, want: BatchOps},
		{name: "batchops needs a role", c: Choice{Engine: BatchOps, Prefer: PreferTime, JobRate: 1}, t: prefix, wantErr: ErrNoRole.Error()},
		{name: "batchops refuses one object", c: ok, t: Asks{Src: s3("s3://src/k"), Dst: s3("s3://dst/")}, wantErr: "a copy job cannot do this transfer: a job copies a prefix or a wildcard match, not one object"},
		{name: "batchops refuses a move first", c: ok, t: Asks{Src: s3("s3://src/"), Dst: s3("s3://dst/"), Recursive: true, Move: true, Journal: true}, wantErr: "a copy job cannot do this transfer: a job cannot delete the sources"},
		{name: "batchops refuses a local source", c: ok, t: Asks{Src: s3("./d/"), Dst: s3("s3://dst/"), Recursive: true}, wantErr: "a copy job cannot do this transfer: the source is local"},
		{name: "auto lists every refusal", c: Choice{Engine: Auto, Prefer: PreferTime, JobRate: 1},
			t:    Asks{Src: s3("s3://src/"), Dst: s3("s3://dst/"), Recursive: true, NoClobber: true, Selected: true, Object: true, Journal: true},
			want: Auto, blockers: 4},
		{name: "auto without a role still decides", c: Choice{Engine: Auto, Prefer: PreferTime, JobRate: 1}, t: prefix, want: Auto},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, blockers, err := tt.c.Pick(tt.t)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Pick: %v, want an error saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want || len(blockers) != tt.blockers {
				t.Errorf("Pick: %q %q %v; want %q with %d blockers", got, blockers, err, tt.want, tt.blockers)
			}
		})
	}
}

// The names are the estimates' (batchops.Choose says which engine wins
// in them): one spelling of each.
func TestChoiceNamesAreTheEstimates(t *testing.T) {
	t.Parallel()
	for _, n := range [][2]string{{Local, batchops.EngineLocal}, {BatchOps, batchops.EngineBatchOps}, {Auto, batchops.EngineAuto}, {PreferTime, batchops.PreferTime}, {PreferCost, batchops.PreferCost}} {
		if n[0] != n[1] {
			t.Errorf("%q here, %q in batchops", n[0], n[1])
		}
	}
}
