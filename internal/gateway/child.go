package gateway

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	// startTimeout bounds how long Spawn waits for the endpoint line. A
	// race-instrumented child on a loaded machine takes a few seconds.
	startTimeout = 60 * time.Second
	// stopTimeout is versitygw's own shutdown bound (10s) plus slack.
	stopTimeout = 15 * time.Second
	// tailSize is how much of the child's stderr is kept for error messages.
	tailSize = 16 << 10
)

// Child is a gateway running in a child process.
type Child struct {
	// Endpoint is the URL the child reported, "http://HOST:PORT".
	Endpoint string

	cmd      *exec.Cmd
	stderr   *tail
	exited   chan struct{} // closed once cmd.Wait returned
	waitErr  error         // set before exited is closed
	stopOnce sync.Once
	stopErr  error
}

// Spawn starts cmd, a process that runs Main, and returns once the child
// has reported its endpoint and answers on HealthPath. cmd.Stdout must be
// unset: Spawn reads it. The child's stderr goes to cmd.Stderr when set and
// is also kept, in part, for error messages. On Linux the child is killed
// when the parent dies.
//
// When ctx is done before the child is ready, the child is stopped. After
// Spawn returns, ctx no longer matters: call Stop.
func Spawn(ctx context.Context, cmd *exec.Cmd) (*Child, error) {
	if cmd.Stdout != nil {
		return nil, errors.New("spawn gateway: cmd.Stdout must be nil")
	}
	c := &Child{cmd: cmd, stderr: &tail{max: tailSize}, exited: make(chan struct{})}
	if cmd.Stderr != nil {
		cmd.Stderr = io.MultiWriter(cmd.Stderr, c.stderr)
	} else {
		cmd.Stderr = c.stderr
	}
	setParentDeathSignal(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("spawn gateway %s: %w", cmd.Path, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("spawn gateway %s: %w", cmd.Path, err)
	}

	endpoint := make(chan string, 1)
	go func() {
		// Reads until EOF so the child never blocks on a full pipe, then
		// reaps it: Wait must not run before reads from the pipe finish.
		sc := bufio.NewScanner(stdout)
		found := false
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), EndpointPrefix); ok && !found {
				found = true
				endpoint <- strings.TrimSpace(line)
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()

	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	select {
	case c.Endpoint = <-endpoint:
	case <-c.exited:
		return nil, fmt.Errorf("spawn gateway %s: exited before reporting its endpoint (%v)%s",
			cmd.Path, c.waitErr, c.stderr.suffix())
	case <-ctx.Done():
		_ = c.Stop()
		return nil, fmt.Errorf("spawn gateway %s: no endpoint reported: %w%s",
			cmd.Path, ctx.Err(), c.stderr.suffix())
	}
	if err := waitHealthy(ctx, c.Endpoint, c.exited); err != nil {
		_ = c.Stop()
		return nil, fmt.Errorf("spawn gateway %s: %w%s", cmd.Path, err, c.stderr.suffix())
	}
	return c, nil
}

// Stop asks the child to shut down with SIGTERM, kills it when it has not
// exited within a bound, and reports how it ended: nil for a clean exit,
// otherwise an error carrying the end of its stderr (a race report, a
// panic). Safe to call more than once.
func (c *Child) Stop() error {
	c.stopOnce.Do(func() { c.stopErr = c.stop() })
	return c.stopErr
}

func (c *Child) stop() error {
	select {
	case <-c.exited:
		return c.exitError("exited early")
	default:
	}
	// Signal fails on systems without SIGTERM; the timer below then kills.
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	timer := time.NewTimer(stopTimeout)
	defer timer.Stop()
	select {
	case <-c.exited:
		return c.exitError("exited")
	case <-timer.C:
	}
	_ = c.cmd.Process.Kill()
	<-c.exited
	return fmt.Errorf("stop gateway %s: killed after %v without exiting%s",
		c.Endpoint, stopTimeout, c.stderr.suffix())
}

func (c *Child) exitError(what string) error {
	if c.waitErr == nil {
		return nil
	}
	return fmt.Errorf("stop gateway %s: %s: %w%s", c.Endpoint, what, c.waitErr, c.stderr.suffix())
}

// Done is closed once the child has exited.
func (c *Child) Done() <-chan struct{} { return c.exited }

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// suffix formats the tail for the end of an error message.
func (t *tail) suffix() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if s == "" {
		return ""
	}
	return "; stderr:\n" + s
}
