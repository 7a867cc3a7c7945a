package cli

import (
	"github.com/s3bulk/s3bulk/internal/units"
)

// defaultConcurrency mirrors engine.DefaultConcurrency (where the search for
// the requests in flight starts) for the flag's help.
const defaultConcurrency = 256

// sizeFlag is a pflag.Value for byte sizes such as 64MiB.
type sizeFlag int64

func (s *sizeFlag) String() string {
	if *s == 0 {
		return ""
	}
	return units.FormatSize(int64(*s))
}
func (s *sizeFlag) Set(v string) error {
	n, err := units.ParseSize(v)
	if err != nil {
		return err
	}
	*s = sizeFlag(n)
	return nil
}
func (s *sizeFlag) Type() string { return "size" }

// defaultMaxConcurrency mirrors engine.DefaultMaxConcurrency for the flag's
// help.
const defaultMaxConcurrency = 4096

// ceiling is the most requests the run may have in flight: --concurrency
// when given, else the search's ceiling. The connection pool is sized to it.
func (a *app) ceiling() int {
	if a.g.concurrency > 0 {
		return a.g.concurrency
	}
	return a.g.maxConcurrency
}

// concurrencyOr is --concurrency when given, else def: for the commands
// whose parallelism is not a searched budget of requests.
func (a *app) concurrencyOr(def int) int {
	if a.g.concurrency > 0 {
		return a.g.concurrency
	}
	return def
}
