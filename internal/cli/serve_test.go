package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/s3bulk/s3bulk/internal/gateway"
)

// serveChild runs `s3bulk serve` in a child process with no AWS
// credentials in its environment but those in env. It returns the child,
// its stdout lines as they come, and its stderr. The child is stopped
// when the test ends, pass or fail.
func serveChild(t *testing.T, env []string, args ...string) (*exec.Cmd, <-chan string, *lockedBuffer) {
	t.Helper()
	raw, _ := json.Marshal(append([]string{"serve"}, args...))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(append(cmd.Env, env...), childArgsEnv+"="+string(raw))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		wg.Wait()
		_ = cmd.Wait()
	})
	return cmd, lines, stderr
}

// readBanner reads stdout up to the banner's last line.
func readBanner(t *testing.T, lines <-chan string, stderr *lockedBuffer) []string {
	t.Helper()
	var got []string
	timeout := time.After(time.Minute)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("serve ended after:\n%s\nstderr:\n%s", strings.Join(got, "\n"), stderr)
			}
			got = append(got, l)
			if strings.HasPrefix(l, "Serving until Ctrl-C") {
				return got
			}
		case <-timeout:
			t.Fatalf("no banner after a minute:\n%s\nstderr:\n%s", strings.Join(got, "\n"), stderr)
		}
	}
}

// stop interrupts the server as Ctrl-C would and waits for it.
func stopServe(t *testing.T, cmd *exec.Cmd, lines <-chan string) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve ended with %v after Ctrl-C, want exit 0", err)
	}
}

func TestServeExplainsItself(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		env, args  []string
		secretSeen bool // the banner prints the secret
		verbose    bool
	}{
		{"with the built-in credentials it prints them", nil, nil, true, false},
		{"with credentials given it never prints the secret", []string{"AWS_ACCESS_KEY_ID=tester", "AWS_SECRET_ACCESS_KEY=very-secret-value"}, nil, false, false},
		{"with --verbose the server's log is on stderr", nil, []string{"--verbose"}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{}, tt.args...), "--dir", t.TempDir())
			cmd, lines, stderr := serveChild(t, tt.env, args...)
			banner := readBanner(t, lines, stderr)
			t.Logf("serve printed:\n%s", strings.Join(banner, "\n"))
			endpoint, ok := strings.CutPrefix(banner[0], gateway.EndpointPrefix)
			if !ok || !strings.HasPrefix(endpoint, "http://127.0.0.1:") {
				t.Fatalf("first line %q, want %shttp://127.0.0.1:PORT", banner[0], gateway.EndpointPrefix)
			}
			text := strings.Join(banner, "\n")
			access, secret := gateway.DefaultAccessKey, gateway.DefaultSecretKey
			if !tt.secretSeen {
				access, secret = "tester", "very-secret-value"
			}
			for _, want := range []string{"export AWS_ENDPOINT_URL=" + endpoint, "export AWS_ACCESS_KEY_ID=" + access, "export AWS_REGION=us-east-1", "access key: " + access} {
				if !strings.Contains(text, want) {
					t.Errorf("banner does not say %q", want)
				}
			}
			if got := strings.Contains(text, secret); got != tt.secretSeen {
				t.Errorf("banner shows the secret: %t, want %t", got, tt.secretSeen)
			}

			// A client that follows the banner gets in.
			var out, errOut bytes.Buffer
			env := []string{"AWS_ENDPOINT_URL=" + endpoint, "AWS_ACCESS_KEY_ID=" + access, "AWS_SECRET_ACCESS_KEY=" + secret, "AWS_REGION=us-east-1", "AWS_ENDPOINT_URL_S3=", "AWS_PROFILE="}
			if code := Run(context.Background(), []string{"mb", "s3://banner-bucket"}, Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut, Env: env}); code != ExitOK {
				t.Errorf("mb with the banner's exports: exit %d: %s", code, errOut.String())
			}
			stopServe(t, cmd, lines)
			logged := strings.Contains(stderr.String(), "PUT /banner-bucket")
			if logged != tt.verbose {
				t.Errorf("request logged on stderr: %t, want %t; stderr:\n%s", logged, tt.verbose, stderr)
			}
			if !tt.verbose && stderr.String() != "" {
				t.Errorf("stderr without --verbose:\n%s", stderr)
			}
		})
	}
}

func TestServeRefusesBuiltinCredentialsOffLoopback(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:9000"} {
		t.Run(addr, func(t *testing.T) {
			var out, errOut bytes.Buffer
			// No credentials in the environment: the built-in ones.
			code := Run(context.Background(), []string{"serve", "--dir", t.TempDir(), "--addr", addr}, Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut, Env: []string{"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY="}})
			if code != ExitUsage {
				t.Errorf("exit %d, want %d", code, ExitUsage)
			}
			lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], "--access-key") || !strings.Contains(lines[0], "built-in credentials") {
				t.Errorf("want one line naming the built-in credentials and --access-key, got:\n%s", errOut.String())
			}
			if out.Len() != 0 {
				t.Errorf("stdout: %s", out.String())
			}
		})
	}
}

func TestServeOnAPortInUseSaysSoOnce(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cmd, lines, stderr := serveChild(t, nil, "--dir", t.TempDir(), "--addr", ln.Addr().String())
	for range lines {
	}
	err = cmd.Wait()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != ExitFatal {
		t.Errorf("serve ended with %v, want exit %d", err, ExitFatal)
	}
	want := "s3bulk: serve: " + ln.Addr().String() + " is already in use: stop what listens there, or pick another --addr (port 0 picks a free one)\n"
	if got := stderr.String(); got != want {
		t.Errorf("stderr:\n%q\nwant:\n%q", got, want)
	}
}
