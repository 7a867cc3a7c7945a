package engine

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// statusError is a server's answer as the stores wrap it: a code and an
// HTTP status, found with errors.As.
type statusError struct {
	code   string
	status int
}

func (e statusError) Error() string       { return fmt.Sprintf("%s, status %d", e.code, e.status) }
func (e statusError) ErrorCode() string   { return e.code }
func (e statusError) HTTPStatusCode() int { return e.status }

func TestStreak(t *testing.T) {
	var (
		e500 = statusError{"InternalError", 500}
		e503 = statusError{"ServiceUnavailable", 503}
		e403 = statusError{"AccessDenied", 403}
		e404 = statusError{"NoSuchKey", 404}
		own  = errors.New("open f: permission denied")
	)
	// Each step is one result: an error fails the object, nil finishes it.
	tests := []struct {
		name    string
		steps   []error
		limit   int
		reports []int // how many results each step reports
		stopAt  int   // the step that stops the run, -1 none
	}{
		{"the same server error limit times in a row stops the run", []error{e500, e500, e500}, 3, []int{0, 0, 0}, 2},
		{"after the stop, the same failure is not reported", []error{e500, e500, e500, e500, e503}, 2, []int{0, 0, 0, 0, 0}, 1},
		{"a success breaks the streak and reports what it held", []error{e500, e500, nil, e500, e500}, 3, []int{0, 0, 3, 0, 0}, -1},
		{"another server error starts a new streak", []error{e500, e500, e503, e503, e503}, 3, []int{0, 0, 2, 0, 0}, 4},
		{"access denied on every object counts", []error{e403, e403}, 2, []int{0, 0}, 1},
		{"a missing key is the object's own failure", []error{e404, e404, e404}, 2, []int{1, 1, 1}, -1},
		{"a local error is the object's own failure", []error{own, own, own}, 2, []int{1, 1, 1}, -1},
		{"an own failure breaks the streak", []error{e500, own, e500}, 2, []int{0, 2, 0}, -1},
		{"a negative limit never stops", []error{e500, e500, e500}, -1, []int{1, 1, 1}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &streak{limit: tt.limit}
			var reports []int
			stopAt := -1
			for i, err := range tt.steps {
				r := Result{Task: Task{Op: OpCopy, Src: fmt.Sprintf("s3://a/%d", i)}, Status: StatusDone}
				if err != nil {
					r.Status, r.Err = StatusFailed, &TaskError{Op: "copy", Src: r.Task.Src, Err: err}
				}
				// pass, settle's way around add, must say yes exactly
				// when add reports r alone, now, and holds nothing.
				passed := s.pass(r)
				report, quiet, stop := s.add(r)
				reports = append(reports, len(report))
				alone := len(report) == 1 && report[0].Task.Src == r.Task.Src && len(quiet) == 0 && stop == nil && len(s.held) == 0
				if passed && !alone {
					t.Errorf("step %d: pass said yes, but add reported %d, held %d", i, len(report), len(s.held))
				}
				if !passed && alone && r.Status != StatusFailed {
					t.Errorf("step %d: pass said no to a success that add reported alone", i)
				}
				if stop != nil {
					stopAt = i
					if len(quiet) != tt.limit || stop.Count != tt.limit {
						t.Errorf("stop after %d objects holding %d, want %d", stop.Count, len(quiet), tt.limit)
					}
					if !errors.Is(stop, tt.steps[i]) {
						t.Errorf("stop error %v does not wrap the cause", stop)
					}
				}
			}
			if diff := cmp.Diff(tt.reports, reports); diff != "" {
				t.Errorf("results reported per step (-want +got):\n%s", diff)
			}
			if stopAt != tt.stopAt {
				t.Errorf("stopped at step %d, want %d", stopAt, tt.stopAt)
			}
		})
	}
}
