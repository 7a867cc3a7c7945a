package cli

import (
	"os"
	"strings"

	"github.com/s3bulk/s3bulk/store/s3store"
)

// environ is the environment one Run sees: Stdio.Env, else the process's.
// Every variable s3bulk reads goes through it, so that tests can give each
// command line its own environment and run in parallel.
type environ map[string]string

// newEnviron reads "KEY=value" entries; the last of a repeated key wins,
// as for exec.Cmd.Env. nil reads the process's environment.
func newEnviron(kv []string) environ {
	if kv == nil {
		kv = os.Environ()
	}
	e := environ{}
	for _, s := range kv {
		if k, v, ok := strings.Cut(s, "="); ok && k != "" {
			e[k] = v
		}
	}
	return e
}

func (e environ) get(key string) string { return e[key] }

func (e environ) lookup(key string) (string, bool) {
	v, ok := e[key]
	return v, ok
}

// list is the environment as os.Environ returns it, for a child process.
func (e environ) list() []string {
	out := make([]string, 0, len(e))
	for k, v := range e {
		out = append(out, k+"="+v)
	}
	return out
}

// tempDir is os.TempDir for this environment.
func (e environ) tempDir() string {
	if d := e.get("TMPDIR"); d != "" {
		return d
	}
	return os.TempDir()
}

// s3Config fills what cfg leaves empty from the environment's AWS_
// variables (s3store.Config.WithEnv), so that an S3 client depends on this
// environment and not the process's.
func (e environ) s3Config(cfg s3store.Config) s3store.Config { return cfg.WithEnv(e.get) }
