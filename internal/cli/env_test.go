package cli

import (
	"testing"

	"github.com/s3bulk/s3bulk/store/s3store"
)

// The precedence of the AWS_ variables is s3store.Config.WithEnv's (its
// tests); the environment of a command line is its own.
func TestTheLastOfARepeatedVariableWins(t *testing.T) {
	t.Parallel()
	got := newEnviron([]string{"AWS_REGION=first", "AWS_REGION=last"}).s3Config(s3store.Config{})
	if got.Region != "last" {
		t.Errorf("region %q, want last", got.Region)
	}
}

func TestAnEmptyEnvironmentIsNotTheProcesss(t *testing.T) {
	t.Parallel()
	if got := newEnviron([]string{}).get("PATH"); got != "" {
		t.Errorf("an empty environment has PATH=%q", got)
	}
	if newEnviron(nil).get(hermeticEnv) == "" {
		t.Errorf("a nil environment does not read the process's (no %s)", hermeticEnv)
	}
}
