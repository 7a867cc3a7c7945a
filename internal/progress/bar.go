package progress

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/s3bulk/s3bulk/engine"
)

// Bar draws a progress bar for a run on a terminal. mpb redraws in place,
// handles terminal width and leaves the final state on screen.
type Bar struct {
	p      *mpb.Progress
	bar    *mpb.Bar
	cancel context.CancelFunc
	done   chan struct{}
}

// StartBar polls src every refresh and draws objects done out of planned,
// with bytes, rate and the current concurrency limit.
func StartBar(w io.Writer, src *engine.Progress) *Bar {
	ctx, cancel := context.WithCancel(context.Background())
	p := mpb.NewWithContext(ctx, mpb.WithOutput(w), mpb.WithRefreshRate(150*time.Millisecond), mpb.WithWidth(40))
	b := &Bar{p: p, cancel: cancel, done: make(chan struct{})}
	snap := func() engine.Snapshot { return src.Snapshot() }
	b.bar = p.AddBar(0,
		mpb.PrependDecorators(
			decor.Any(func(decor.Statistics) string {
				s := snap()
				total := fmt.Sprint(s.Planned)
				if !s.PlanComplete {
					total += "+"
				}
				return fmt.Sprintf("%d/%s objects", s.Done+s.Failed+s.Skipped, total)
			}),
		),
		mpb.AppendDecorators(
			decor.Any(func(decor.Statistics) string {
				s := snap()
				rate := 0.0
				if s.Seconds > 0 {
					rate = float64(s.Done) / s.Seconds
				}
				return fmt.Sprintf("%s  %.0f obj/s  %d failed  in-flight %d/%d",
					HumanBytes(s.Bytes), rate, s.Failed, s.InFlight, s.Limit)
			}),
		),
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
				s := snap()
				b.bar.SetTotal(max(s.Planned, 1), false)
				b.bar.SetCurrent(s.Done + s.Failed + s.Skipped)
			}
		}
	}()
	return b
}

// Stop draws the final state and releases the terminal.
func (b *Bar) Stop(final engine.Snapshot) {
	b.cancel()
	<-b.done
	b.bar.SetTotal(max(final.Planned, 1), false)
	b.bar.SetCurrent(final.Done + final.Failed + final.Skipped)
	b.bar.Abort(false)
	b.p.Wait()
}
