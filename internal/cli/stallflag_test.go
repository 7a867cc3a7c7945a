package cli

import (
	"testing"
	"time"

	"github.com/s3bulk/s3bulk/store/s3store"
)

func TestStallTimeoutFlagSetsTheStoresFloor(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want time.Duration
	}{
		{"left out, it is the store's default", nil, s3store.DefaultStallTimeout},
		{"given, it is the floor", []string{"--stall-timeout", "30s"}, 30 * time.Second},
		{"0 turns stall detection off", []string{"--stall-timeout", "0"}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &app{env: newEnviron([]string{})}
			if err := a.rootCmd().PersistentFlags().Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if got := a.flagConfig().StallTimeout; got != tt.want {
				t.Errorf("StallTimeout = %v; want %v", got, tt.want)
			}
		})
	}
}
