package engine

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"syscall"
)

// DefaultStopAfter is how many objects in a row must fail with the same
// server error before a run stops (Options.StopAfter). Each of them has
// already outlived its retries, so the server is not about to recover; ten
// is few enough to stop within one round of retries at any concurrency,
// and many enough that a handful of unlucky objects never stop a run.
const DefaultStopAfter = 10

// StoppedError is the error of a run that stopped early because Count
// objects in a row failed with the same server error: a failure every
// object shares, such as a server answering 500 to every request or a
// destination that denies every write. First is the first of them.
type StoppedError struct {
	Count int
	First *TaskError
}

func (e *StoppedError) Error() string {
	return fmt.Sprintf("stopped: %d objects in a row failed the same way: %v", e.Count, e.First)
}

// Unwrap is the cause, not the object's TaskError: the run, not one
// object, failed.
func (e *StoppedError) Unwrap() error { return e.First.Err }

// failureKind names what a failed object shares with others that failed the
// same way, or "" when its failure is its own (a missing key, an unreadable
// file). Only the server's side counts: a status of 5xx, 401 or 403, or a
// connection that failed, each after the request's retries.
func failureKind(err error) string {
	var status interface{ HTTPStatusCode() int }
	if errors.As(err, &status) {
		st := status.HTTPStatusCode()
		if st < 500 && st != 401 && st != 403 {
			return ""
		}
		kind := strconv.Itoa(st)
		var code interface{ ErrorCode() string }
		if errors.As(err, &code) {
			kind = code.ErrorCode() + " " + kind
		}
		return kind
	}
	var opErr *net.OpError
	var errno syscall.Errno
	if errors.As(err, &opErr) && errors.As(err, &errno) {
		return "network " + errno.Error()
	}
	return ""
}

// streak holds the failures of the latest run of objects that failed the
// same way. They are reported when the streak breaks; when it reaches its
// limit, the run stops and they are not reported one by one, nor are the
// failures of the same kind that end while the run stops.
type streak struct {
	limit   int // <= 0: never stop
	mu      sync.Mutex
	kind    string
	held    []Result
	stopped string // the kind that stopped the run
}

// add takes the result of one task. It returns the results to report now,
// in order, and those to count without reporting them: the failures the
// stop error stands for. stop is set once, when r makes limit failures of
// one kind in a row.
func (s *streak) add(r Result) (report, quiet []Result, stop *StoppedError) {
	kind := ""
	if r.Status == StatusFailed && s.limit > 0 {
		kind = failureKind(r.Err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if kind != "" && kind == s.stopped {
		return nil, []Result{r}, nil
	}
	if kind == "" || kind != s.kind {
		report = s.held
		s.held, s.kind = nil, kind
		if kind == "" {
			return append(report, r), nil, nil
		}
	}
	s.held = append(s.held, r)
	if len(s.held) < s.limit {
		return report, nil, nil
	}
	quiet, s.held, s.kind, s.stopped = s.held, nil, "", kind
	first, _ := quiet[0].Err.(*TaskError)
	if first == nil {
		first = &TaskError{Op: string(quiet[0].Task.Op), Src: quiet[0].Task.Src, Dst: quiet[0].Task.Dst, Err: quiet[0].Err}
	}
	return report, quiet, &StoppedError{Count: len(quiet), First: first}
}

// pass reports whether r is reported now and alone, as add would report it,
// when no streak is held and r cannot start one: every success while
// nothing fails, without add's slice of one result per task.
func (s *streak) pass(r Result) bool {
	if r.Status == StatusFailed && s.limit > 0 {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.held) == 0
}

// drain returns the failures still held, at the end of a run.
func (s *streak) drain() []Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	held := s.held
	s.held, s.kind = nil, ""
	return held
}
