package filter

import (
	"strings"
	"testing"
	"time"

	"github.com/s3bulk/s3bulk/engine/shard"
	"github.com/s3bulk/s3bulk/store"
)

// set applies flag values to a Selection as a command line would.
func set(t *testing.T, s *Selection, flags ...string) error {
	t.Helper()
	for i := 0; i+1 < len(flags); i += 2 {
		var v interface{ Set(string) error }
		switch flags[i] {
		case "--include":
			v = s.IncludeValue()
		case "--exclude":
			v = s.ExcludeValue()
		case "--min-size":
			v = &s.MinSize
		case "--max-size":
			v = &s.MaxSize
		case "--newer-than":
			v = &s.NewerThan
		case "--older-than":
			v = &s.OlderThan
		case "--shard":
			v = &s.Shard
		default:
			t.Fatalf("no flag %s", flags[i])
		}
		if err := v.Set(flags[i+1]); err != nil {
			return err
		}
	}
	return nil
}

func TestSelectionValuesAreCheckedWhenSet(t *testing.T) {
	t.Parallel()
	for _, bad := range [][]string{
		{"--min-size", "ten"},
		{"--max-size", "-"},
		{"--newer-than", "yesterday"},
		{"--older-than", ""},
		{"--shard", "4/4"},
		{"--shard", "1"},
	} {
		var s Selection
		if err := set(t, &s, bad...); err == nil {
			t.Errorf("%s %q: taken", bad[0], bad[1])
		}
	}
}

func TestSelectionKeepsWhatItsFlagsSay(t *testing.T) {
	t.Parallel()
	now := time.Now()
	tests := []struct {
		name       string
		flags      []string
		shardCount int
		active     bool
		none       bool // Keep returns no filter
		keep, drop []store.Object
	}{
		{name: "no flags select nothing", none: true},
		{name: "a shard alone is active but filters nothing", flags: []string{"--shard", "0/2"}, active: true, none: true},
		{name: "a shard count alone is active", shardCount: 3, active: true, none: true},
		{
			name: "the rules keep their order", flags: []string{"--exclude", "*", "--include", "*.json"}, active: true,
			keep: []store.Object{{Key: "a.json"}}, drop: []store.Object{{Key: "a.txt"}},
		},
		{
			name: "sizes are inclusive bounds", flags: []string{"--min-size", "1KiB", "--max-size", "2KiB"}, active: true,
			keep: []store.Object{{Key: "a", Size: 1024}, {Key: "b", Size: 2048}}, drop: []store.Object{{Key: "c", Size: 1023}, {Key: "d", Size: 2049}},
		},
		{
			name: "an age counts back from now", flags: []string{"--newer-than", "1h"}, active: true,
			keep: []store.Object{{Key: "new", ModTime: now}}, drop: []store.Object{{Key: "old", ModTime: now.Add(-2 * time.Hour)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Selection{ShardCount: tt.shardCount}
			if err := set(t, &s, tt.flags...); err != nil {
				t.Fatal(err)
			}
			if got := s.Active(); got != tt.active {
				t.Errorf("Active %t, want %t", got, tt.active)
			}
			keep, err := s.Keep()
			if err != nil {
				t.Fatal(err)
			}
			if (keep == nil) != tt.none {
				t.Fatalf("filter %v, want none: %t", keep != nil, tt.none)
			}
			for _, o := range tt.keep {
				if !keep(o) {
					t.Errorf("%+v left out", o)
				}
			}
			for _, o := range tt.drop {
				if keep(o) {
					t.Errorf("%+v kept", o)
				}
			}
		})
	}
}

func TestSelectionKeepRefusesBoundsThatKeepNothing(t *testing.T) {
	t.Parallel()
	var s Selection
	if err := set(t, &s, "--min-size", "2MiB", "--max-size", "1MiB"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Keep(); err == nil || !strings.Contains(err.Error(), "nothing would be kept") {
		t.Errorf("Keep: %v, want nothing would be kept", err)
	}
}

func TestSelectionShardOf(t *testing.T) {
	t.Parallel()
	env := func(index string) func(string) string {
		return func(k string) string {
			if k == shard.JobIndexEnv {
				return index
			}
			return ""
		}
	}
	tests := []struct {
		name    string
		shard   string
		count   int
		index   string
		want    shard.Shard
		wantErr string
	}{
		{name: "no shard is the whole listing"},
		{name: "--shard i/n is that shard", shard: "1/4", want: shard.Shard{Index: 1, Count: 4}},
		{name: "--shard-count takes the pod's index", count: 3, index: "2", want: shard.Shard{Index: 2, Count: 3}},
		{name: "both are refused", shard: "0/2", count: 2, index: "0", wantErr: "--shard and --shard-count: give one or the other"},
		{name: "an unset index is refused", count: 2, wantErr: "--shard-count 2: shard from " + shard.JobIndexEnv},
		{name: "an index past the count is refused", count: 2, index: "2", wantErr: "--shard-count 2:"},
		{name: "a negative count is refused", count: -1, wantErr: "--shard-count -1: must be at least 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Selection{ShardCount: tt.count}
			if tt.shard != "" {
				if err := set(t, &s, "--shard", tt.shard); err != nil {
					t.Fatal(err)
				}
			}
			got, err := s.ShardOf(env(tt.index))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ShardOf: %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// The fingerprint names a journal's job: a change to it makes every
// journal written before it a journal of another job.
func TestSelectionFingerprintIsStable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		flags []string
		want  string
	}{
		{name: "no flags add nothing, as journals before filters had", want: ""},
		{name: "includes only", flags: []string{"--include", "*.json", "--include", "*.csv"},
			want: ` include=["*.json" "*.csv"] exclude=[] min= max= newer= older= shard=0/0`},
		{name: "both kinds add their order", flags: []string{"--exclude", "tmp/*", "--include", "*.json", "--min-size", "1MiB", "--newer-than", "7d", "--shard", "1/4"},
			want: ` include=["*.json"] exclude=["tmp/*"] min=1MiB max= newer=7d older= shard=1/4 rules=["--exclude \"tmp/*\"" "--include \"*.json\""]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Selection
			if err := set(t, &s, tt.flags...); err != nil {
				t.Fatal(err)
			}
			if got := s.Fingerprint(func(string) string { return "" }); got != tt.want {
				t.Errorf("Fingerprint\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestPatternValueListsItsOwnKind(t *testing.T) {
	t.Parallel()
	var s Selection
	if err := set(t, &s, "--include", "a*", "--exclude", "b*", "--include", "c?"); err != nil {
		t.Fatal(err)
	}
	if got := s.IncludeValue().String(); got != "a*,c?" {
		t.Errorf("--include %q", got)
	}
	if got := s.ExcludeValue().String(); got != "b*" {
		t.Errorf("--exclude %q", got)
	}
	if got := s.MinSize.String() + s.NewerThan.String() + s.Shard.String(); got != "" {
		t.Errorf("unset values print %q", got)
	}
}
