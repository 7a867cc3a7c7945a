package objopts

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

func TestLockPlan(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	s3, local := loc(t, "s3://bkt/k"), loc(t, "./k")
	tests := []struct {
		name     string
		lock     Lock
		src, dst string
		want     LockPlan
		err      string
	}{
		{"nothing asked", Lock{}, "s3", "s3", LockPlan{}, ""},
		{"a retention of fixed values", Lock{Mode: "governance", RetainUntil: "2027-01-02T03:04:05+01:00"}, "s3", "s3",
			LockPlan{Fixed: store.ObjectLock{Mode: "GOVERNANCE", RetainUntil: time.Date(2027, 1, 2, 2, 4, 5, 0, time.UTC)}}, ""},
		{"a date is midnight UTC", Lock{Mode: "COMPLIANCE", RetainUntil: "2027-01-02"}, "local", "s3",
			LockPlan{Fixed: store.ObjectLock{Mode: "COMPLIANCE", RetainUntil: time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC)}}, ""},
		{"everything copied", Lock{Mode: "copy", RetainUntil: "COPY", LegalHold: "copy"}, "s3", "s3",
			LockPlan{Copy: engine.LockCopy{Retention: true, LegalHold: true}}, ""},
		{"a legal hold alone", Lock{LegalHold: "off"}, "s3", "s3", LockPlan{Fixed: store.ObjectLock{LegalHold: "OFF"}}, ""},
		{"a mode alone", Lock{Mode: "GOVERNANCE"}, "s3", "s3", LockPlan{}, "needs both"},
		{"a date alone", Lock{RetainUntil: "2027-01-02"}, "s3", "s3", LockPlan{}, "needs both"},
		{"half copied", Lock{Mode: "copy", RetainUntil: "2027-01-02"}, "s3", "s3", LockPlan{}, "copied whole"},
		{"the past", Lock{Mode: "GOVERNANCE", RetainUntil: "2026-12-02T12:00:00Z"}, "s3", "s3", LockPlan{}, "in the future"},
		{"a bad mode", Lock{Mode: "x", RetainUntil: "2027-01-02"}, "s3", "s3", LockPlan{}, "want GOVERNANCE"},
		{"a bad hold", Lock{LegalHold: "yes"}, "s3", "s3", LockPlan{}, "want ON, OFF or copy"},
		{"a local destination", Lock{LegalHold: "ON"}, "s3", "local", LockPlan{}, "is local"},
		{"copied from a local source", Lock{LegalHold: "copy"}, "local", "s3", LockPlan{}, "is local"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pick := map[string]s3url.Location{"s3": s3, "local": local}
			got, err := tt.lock.Plan(pick[tt.src], pick[tt.dst], now)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParseRetainUntil(f *testing.F) {
	for _, s := range []string{"2027-01-02", "2027-01-02T03:04:05Z", "2027-01-02T03:04:05.5+02:00", "copy", "", "2027-13-40"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, err := parseRetainUntil(v)
		if err != nil {
			if !strings.Contains(err.Error(), "--object-lock-retain-until-date") {
				t.Errorf("error %q does not name the flag", err)
			}
			return
		}
		if got.Location() != time.UTC {
			t.Errorf("%q parsed to %v, not in UTC", v, got)
		}
	})
}
