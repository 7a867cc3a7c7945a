package compattest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// The peers' versions: recorded results are only comparable between runs of
// the same versions, and s5cmd is built at exactly this one.
const s5cmdModule, s5cmdVersion = "github.com/peak/s5cmd/v2", "v2.3.0"

// Environment variables that pick the peers.
const (
	// s5cmdEnv names a prebuilt s5cmd v2.3.0 binary, or "off" to use the
	// recorded results without trying to build one.
	s5cmdEnv = "S3BULK_COMPAT_S5CMD"
	// awsEnv names the aws CLI (v1 or v2) to run, or "off" to use the
	// recorded results even when aws is on PATH.
	awsEnv = "S3BULK_COMPAT_AWS"
)

// peer is one tool the cases compare s3bulk with.
type peer struct {
	name string // "aws" or "s5cmd"
	path string // executable; "" when the peer is replayed from testdata
	why  string // why it is replayed
}

func (p peer) live() bool { return p.path != "" }

func (p peer) mode() string {
	if p.live() {
		return "live (" + p.path + ")"
	}
	return "recorded results from testdata (" + p.why + ")"
}

// findAWS returns the aws CLI named by S3BULK_COMPAT_AWS or found on PATH.
func findAWS() peer {
	p := peer{name: "aws"}
	switch v := os.Getenv(awsEnv); v {
	case "off":
		p.why = awsEnv + "=off"
	case "":
		path, err := exec.LookPath("aws")
		if err != nil {
			p.why = "aws is not on PATH"
			break
		}
		p.path = path
	default:
		p.path = v
	}
	return p
}

// findS5cmd returns the s5cmd named by S3BULK_COMPAT_S5CMD, or the one
// cached under the user cache directory, building it there from the Go
// module proxy on first use.
func findS5cmd(ctx context.Context) peer {
	p := peer{name: "s5cmd"}
	switch v := os.Getenv(s5cmdEnv); v {
	case "off":
		p.why = s5cmdEnv + "=off"
		return p
	case "":
	default:
		p.path = v
		return p
	}
	path, err := buildS5cmd(ctx)
	if err != nil {
		p.why = err.Error()
		return p
	}
	p.path = path
	return p
}

// buildS5cmd returns the cached s5cmd binary, building it once into
// <user cache dir>/s3bulk-test/s5cmd-v2.3.0 in a throwaway module. Test
// binaries that build at the same time each write their own file and rename
// it into place, so none sees half a binary.
func buildS5cmd(ctx context.Context) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for s5cmd: %w", err)
	}
	dir := filepath.Join(cache, "s3bulk-test", "s5cmd-"+s5cmdVersion)
	bin := filepath.Join(dir, "s5cmd")
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() {
		return bin, nil
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", errors.New("cannot build s5cmd: go is not on PATH")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("cannot build s5cmd: %w", err)
	}
	mod, err := os.MkdirTemp("", "s3bulk-s5cmd-build-")
	if err != nil {
		return "", fmt.Errorf("cannot build s5cmd: %w", err)
	}
	defer os.RemoveAll(mod)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	tmp := filepath.Join(dir, fmt.Sprintf(".s5cmd-%d", os.Getpid()))
	defer os.Remove(tmp)
	for _, args := range [][]string{
		{"mod", "init", "s5cmdbuild"},
		{"get", s5cmdModule + "@" + s5cmdVersion},
		{"build", "-o", tmp, s5cmdModule},
	} {
		cmd := exec.CommandContext(ctx, goTool, args...)
		cmd.Dir = mod
		// The build is not part of this module: no workspace, vendoring
		// or flags of the caller's apply to it.
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("cannot build s5cmd %s: go %s: %v: %s", s5cmdVersion, args[0], err, lastLine(out))
		}
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", fmt.Errorf("cannot build s5cmd: %w", err)
	}
	return bin, nil
}

func lastLine(b []byte) string {
	s := string(b)
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			return s[i+1:]
		}
	}
	return s
}
