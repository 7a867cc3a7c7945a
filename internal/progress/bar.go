package progress

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/units"
)

// Bar draws a progress bar for a run on a terminal. mpb redraws in place,
// handles terminal width and leaves the final state on screen.
type Bar struct {
	p      *mpb.Progress
	bar    *mpb.Bar
	cancel context.CancelFunc
	done   chan struct{}
	above  aboveBar
}

// aboveBar holds the lines written to print above the bar until the next
// redraw: written straight to the terminal they would be drawn over, and
// mpb's own writer waits for a redraw on every write.
type aboveBar struct {
	mu  sync.Mutex
	buf []byte
}

func (a *aboveBar) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.buf = append(a.buf, p...)
	return len(p), nil
}

func (a *aboveBar) take() []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	b := a.buf
	a.buf = nil
	return b
}

// Lines returns a writer for lines to print above the bar, on the bar's
// terminal: results and errors, while the bar runs. They appear at the
// next redraw, in the order written.
func (b *Bar) Lines() io.Writer { return &b.above }

func (b *Bar) flush() {
	if buf := b.above.take(); len(buf) > 0 {
		_, _ = b.p.Write(buf)
	}
}

// StartBar polls src every refresh and draws BarText's two halves around
// a bar filled by barFill.
func StartBar(w io.Writer, src *engine.Progress) *Bar {
	// ctx stops the polling only: mpb must draw the final state after it.
	ctx, cancel := context.WithCancel(context.Background())
	p := mpb.New(mpb.WithOutput(w), mpb.WithRefreshRate(150*time.Millisecond), mpb.WithWidth(40),
		// Draw to any writer: the caller decides when a bar is wanted (a
		// terminal), and a test draws into a buffer.
		mpb.WithAutoRefresh())
	b := &Bar{p: p, cancel: cancel, done: make(chan struct{})}
	b.bar = p.AddBar(0,
		mpb.PrependDecorators(decor.Any(func(decor.Statistics) string {
			left, _ := BarText(src.Snapshot())
			return left
		})),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string {
			_, right := BarText(src.Snapshot())
			return right
		})),
	)
	go func() {
		defer close(b.done)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				b.set(src.Snapshot())
				b.flush()
			}
		}
	}()
	return b
}

func (b *Bar) set(s engine.Snapshot) {
	cur, total := barFill(s)
	b.bar.SetTotal(total, false)
	b.bar.SetCurrent(cur)
}

// Stop draws the final state and releases the terminal.
func (b *Bar) Stop(final engine.Snapshot) {
	b.cancel()
	<-b.done
	b.set(final)
	b.flush()
	if cur, total := barFill(final); cur >= total && final.PlanComplete {
		b.bar.SetTotal(total, true) // complete: drawn once more, full
	} else {
		b.bar.Abort(false) // stopped short: drawn once more, as it is
	}
	b.p.Wait()
}

// barFill is how full the bar is: by bytes once the run knows how many
// bytes it will move (so that one big object fills it part by part), by
// objects before and for runs without bytes to move (deletes).
func barFill(s engine.Snapshot) (current, total int64) {
	if s.PlanComplete && s.Bytes+s.RemainingBytes > 0 {
		return s.Bytes, s.Bytes + s.RemainingBytes
	}
	return s.Done + s.Failed + s.Skipped, max(s.Planned, 1)
}

// BarText is the text either side of the bar: objects ended out of
// planned on the left; bytes moved (out of the total once known), the
// byte rate, the time left, the object rate where it means something,
// failures, restarts of whole objects and requests in flight on the
// right.
func BarText(s engine.Snapshot) (left, right string) {
	total := Count(s.Planned)
	if !s.PlanComplete {
		total += "+"
	}
	left = fmt.Sprintf("%s/%s objects", Count(s.Done+s.Failed+s.Skipped), total)

	var r []string
	moved := units.Human(s.Bytes)
	if s.PlanComplete && s.Bytes+s.RemainingBytes > 0 {
		moved += "/" + units.Human(s.Bytes+s.RemainingBytes)
	}
	r = append(r, moved)
	if s.Seconds > 0 && s.Bytes > 0 {
		rate := float64(s.Bytes) / s.Seconds
		r = append(r, units.Human(int64(rate))+"/s")
		if s.PlanComplete && s.RemainingBytes > 0 {
			r = append(r, "ETA "+eta(time.Duration(float64(s.RemainingBytes)/rate*float64(time.Second))))
		}
	}
	if copied := s.Done - s.Deleted; objectRateMeans(copied, s.Bytes) && s.Seconds > 0 {
		r = append(r, fmt.Sprintf("%.0f obj/s", float64(copied)/s.Seconds))
	}
	if s.Deleted > 0 {
		r = append(r, Count(s.Deleted)+" deleted")
	}
	if s.Failed > 0 {
		r = append(r, Count(s.Failed)+" failed")
	}
	if s.Restarted > 0 {
		r = append(r, Count(s.Restarted)+" restarted")
	}
	r = append(r, fmt.Sprintf("in-flight %d/%d", s.InFlight, s.Limit))
	return left, strings.Join(r, "  ")
}

// objectRateMeans reports whether objects per second says something about
// n objects of total bytes: for many small objects it is the figure that
// matters; for a few big ones (a 3 GiB upload is 0.05 objects/s) it is
// noise next to the byte rate.
func objectRateMeans(n, bytes int64) bool {
	return n >= 2 && bytes/n < smallObject
}

// smallObject is the average size below which objects per second is shown.
const smallObject = 16 << 20

// eta formats a time left the way people read it: 45s, 3m20s, 2h05m.
func eta(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// Counter is a bar on a terminal filled by a count that is not an engine
// run's (objects seeded, tasks of a Batch Operations job), with text either
// side that the caller's functions give at every redraw.
type Counter struct {
	p     *mpb.Progress
	bar   *mpb.Bar
	start time.Time
}

// CounterText gives one side of a Counter's bar from its count, its total
// and the time since it started.
type CounterText func(current, total int64, elapsed time.Duration) string

// StartCounter draws a bar of total on w, left and right of it the texts
// the functions give (nil for none).
func StartCounter(w io.Writer, total int64, left, right CounterText) *Counter {
	c := &Counter{p: mpb.New(mpb.WithOutput(w), mpb.WithWidth(40)), start: time.Now()}
	side := func(text CounterText) decor.Decorator {
		return decor.Any(func(s decor.Statistics) string {
			if text == nil {
				return ""
			}
			return text(s.Current, s.Total, time.Since(c.start))
		})
	}
	c.bar = c.p.AddBar(total, mpb.PrependDecorators(side(left)), mpb.AppendDecorators(side(right)))
	return c
}

// Set moves the bar to current out of total (total <= 0 keeps the total).
func (c *Counter) Set(current, total int64) {
	if total > 0 {
		c.bar.SetTotal(total, false)
	}
	c.bar.SetCurrent(current)
}

// Stop draws the bar once more, as it is, and releases the terminal.
func (c *Counter) Stop() {
	c.bar.Abort(false)
	c.p.Wait()
}

// Rate formats n things over elapsed as "%.0f unit/s", 0 before any time
// has passed.
func Rate(n int64, elapsed time.Duration, unit string) string {
	r := 0.0
	if s := elapsed.Seconds(); s > 0 {
		r = float64(n) / s
	}
	return fmt.Sprintf("%.0f %s/s", r, unit)
}
