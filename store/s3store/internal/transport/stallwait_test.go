package transport

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWaitEstimateFollowsRFC6298(t *testing.T) {
	var c waitClass
	if e := c.estimate(); e.ok {
		t.Fatalf("estimate before any sample = %+v; want none", e)
	}
	steps := []struct {
		sample       time.Duration
		srtt, rttvar time.Duration
	}{
		// The first sample: SRTT = R, RTTVAR = R/2 (RFC 6298 2.2).
		{800 * time.Millisecond, 800 * time.Millisecond, 400 * time.Millisecond},
		// Then RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|, SRTT = 7/8 SRTT + 1/8 R (2.3).
		{1600 * time.Millisecond, 900 * time.Millisecond, 500 * time.Millisecond},
		{900 * time.Millisecond, 900 * time.Millisecond, 375 * time.Millisecond},
	}
	for i, s := range steps {
		c.sample(s.sample)
		got := c.estimate()
		want := estimate{srtt: s.srtt, rttvar: s.rttvar, ok: true}
		if got != want {
			t.Errorf("after sample %d (%v): estimate = %+v; want %+v", i+1, s.sample, got, want)
		}
	}
}

// The stall verdict on a fake clock: each case sets up a class (samples
// taken, the latest start of a wait of it that was answered, doublings
// after stalls) and the client's other waits (in progress; when the
// latest answer came), and judges one wait of the class.
func TestStallVerdict(t *testing.T) {
	const ms, s = time.Millisecond, time.Second
	healthy := repeat(130*ms, 20)
	var slow []time.Duration // every answer in 6-20s
	for i := range 40 {
		slow = append(slow, 6*s+time.Duration(i%8)*2*s)
	}
	floor := func(l waitLimits) waitLimits { return l }
	tests := []struct {
		name     string
		kind     waitKind
		samples  []time.Duration
		prior    []time.Duration // every operation's, for a header class
		waiting  int64           // other waits in progress, of any kind
		answered time.Duration   // start of the latest answered wait for headers; <= 0 none after
		served   time.Duration   // start of the latest answered wait of the kind; <= 0 none after
		backoff  int32
		limits   func(waitLimits) waitLimits
		elapsed  time.Duration
		want     verdict
		why      string // a part of want.why
	}{
		{
			name: "a wait below the floor is checked again at the floor",
			kind: waitRecv, prior: healthy, served: -1, elapsed: 400 * ms,
			want: verdict{again: 600 * ms},
		},
		{
			name: "a dead connection among answering ones is a stall at the floor",
			kind: waitHeaders, samples: healthy, waiting: 63, answered: 500 * ms, served: 500 * ms, elapsed: s,
			want: verdict{stall: true}, why: "7.7x the 130ms this server has been taking; later ones were answered",
		},
		{
			name: "a dead connection alone of its kind is a stall at the floor while later requests are answered",
			kind: waitSend, prior: healthy, waiting: 7, answered: 500 * ms, served: -1, elapsed: s,
			want: verdict{stall: true}, why: "7.7x the 130ms this server has been taking; requests sent after it were answered",
		},
		{
			name: "answers to requests sent before a wait began do not make it a stall",
			kind: waitSend, prior: healthy, waiting: 7, answered: -time.Second, served: -1, elapsed: s,
			want: verdict{again: s},
		},
		{
			name: "a dead download among flowing ones is a stall at the floor",
			kind: waitRecv, samples: repeat(2*ms, 20), prior: healthy, waiting: 7, served: 500 * ms, elapsed: s,
			want: verdict{stall: true}, why: "later ones got their bytes",
		},
		{
			name: "one dead connection with nothing to compare with is a stall at the floor",
			kind: waitHeaders, samples: healthy, served: -1, elapsed: s,
			want: verdict{stall: true}, why: "nothing else was waiting",
		},
		{
			name: "a server slow for everyone is waited for, checked at each floor",
			kind: waitHeaders, samples: healthy, waiting: 63, served: -1, elapsed: 6 * s,
			want: verdict{again: s},
		},
		{
			name: "a server slow for everyone is waited for by a wait alone of its kind",
			kind: waitSend, prior: healthy, waiting: 7, served: -1, elapsed: 6 * s,
			want: verdict{again: s},
		},
		{
			name: "a server slow for everyone is waited for up to the cap",
			kind: waitHeaders, samples: healthy, waiting: 63, served: -1, elapsed: MaxStallWait,
			want: verdict{stall: true}, why: "the most any wait lasts is 1m0s",
		},
		{
			name: "a server whose every answer takes 6-20s is not stalled at 20s, even overtaken",
			kind: waitHeaders, samples: slow, waiting: 63, answered: 15 * s, served: 10 * s, elapsed: 20 * s,
			want: verdict{again: s},
		},
		{
			name: "a wait far beyond what a slow server takes is a stall once overtaken",
			kind: waitHeaders, samples: repeat(8*s, 40), waiting: 63, answered: 15 * s, served: 10 * s, elapsed: 30 * s,
			want: verdict{stall: true}, why: "later ones were answered",
		},
		{
			name: "the first answer is awaited for the cold wait, checked at each floor",
			kind: waitHeaders, served: -1, elapsed: 10 * s,
			want: verdict{again: s},
		},
		{
			name: "the first answer alone past the cold wait is a stall",
			kind: waitHeaders, served: -1, elapsed: coldStallWait,
			want: verdict{stall: true}, why: "this server has not answered one yet",
		},
		{
			name: "an operation not answered yet goes by every operation's answers",
			kind: waitHeaders, prior: healthy, served: -1, elapsed: s,
			want: verdict{stall: true}, why: "the 130ms this server has been taking",
		},
		{
			name: "the first request's body bytes are awaited for the cold wait too",
			kind: waitSend, served: -1, elapsed: s,
			want: verdict{again: s},
		},
		{
			name: "body bytes go by the answers' estimate while their gaps are too short to be samples",
			kind: waitRecv, prior: healthy, served: -1, elapsed: s,
			want: verdict{stall: true}, why: "the 130ms this server has been taking; nothing else was waiting",
		},
		{
			name: "body bytes go by their own gaps once they have some",
			kind: waitRecv, samples: repeat(3*s, 10), prior: healthy, waiting: 7, served: 2 * s, elapsed: 5 * s,
			want: verdict{again: s},
		},
		{
			name: "a lone stall doubles the next wait",
			kind: waitHeaders, samples: healthy, served: -1, backoff: 1, elapsed: 1500 * ms,
			want: verdict{again: 500 * ms},
		},
		{
			name: "an upload's allowance for hashing its body extends the wait",
			kind: waitHeaders, samples: healthy, served: -1, elapsed: 2 * s,
			limits: func(l waitLimits) waitLimits { l.extra = 3 * s; return l },
			want:   verdict{again: 2 * s},
		},
		{
			name: "a larger floor (a server-side copy's) is also the cap",
			kind: waitHeaders, samples: healthy, waiting: 3, served: -1, elapsed: 5 * time.Minute,
			limits: func(l waitLimits) waitLimits { return newStallWaits(s).limits(5*time.Minute, 0) },
			want:   verdict{stall: true}, why: "the most any wait lasts is 5m0s",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			all := &waitTotals{}
			c := &waitClass{kind: tt.kind, all: all}
			c.prior = &waitClass{kind: waitHeaders, all: all}
			for _, d := range tt.prior {
				c.prior.sample(d)
			}
			for _, d := range tt.samples {
				c.sample(d)
			}
			c.backoff.Store(tt.backoff)
			const since = int64(time.Hour)    // the fake clock's time the wait began
			all.waiting.Store(tt.waiting + 1) // and the wait judged
			all.answered.Store(since + int64(tt.answered))
			c.served.Store(since + int64(tt.served))
			l := newStallWaits(s).limits(s, 0)
			if tt.limits == nil {
				tt.limits = floor
			}
			l = tt.limits(l)
			got := c.decide(since, since+int64(tt.elapsed), l)
			if !strings.Contains(got.why, tt.why) {
				t.Errorf("why = %q; want it to say %q", got.why, tt.why)
			}
			got.why = ""
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(verdict{})); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStallBackoffAndSamples(t *testing.T) {
	const s = time.Second
	l := newStallWaits(s).limits(s, 0)
	all := &waitTotals{}
	c := &waitClass{kind: waitHeaders, all: all}
	c.sample(100 * time.Millisecond)
	c.begin()
	c.begin()
	all.answered.Store(int64(s / 2))
	if v := c.decide(0, int64(s), l); !v.stall {
		t.Fatalf("a wait past the floor while others were answered: %+v; want a stall", v)
	}
	c.end(0, int64(s), false)
	if w, _ := c.wait(l); w != 2*s {
		t.Errorf("wait after a stall = %v; want the floor doubled, 2s", w)
	}
	// The other wait, judged after the stall, goes by the doubled wait.
	if v := c.decide(0, int64(s), l); v.stall || v.again != s {
		t.Errorf("the other wait at the floor after a stall: %+v; want another check in 1s", v)
	}
	if v := c.decide(0, int64(2*s), l); !v.stall {
		t.Errorf("the other wait at the doubled wait: %+v; want a stall", v)
	}
	c.end(0, int64(2*s), false)
	if w, _ := c.wait(l); w != 4*s {
		t.Errorf("wait after two stalls = %v; want the floor doubled twice, 4s", w)
	}
	if e := c.estimate(); e.srtt != 100*time.Millisecond {
		t.Errorf("a stall taught the estimate: SRTT %v; want 100ms", e.srtt)
	}
	c.begin()
	c.end(int64(2*s), int64(2*s)+int64(300*time.Millisecond), true)
	if w, _ := c.wait(l); w != s {
		t.Errorf("wait after an answer = %v; want the floor again, 1s", w)
	}
	if got := c.served.Load(); got != int64(2*s) {
		t.Errorf("served = %v; want the answered wait's start, 2s", time.Duration(got))
	}
	if got := all.waiting.Load(); got != 0 {
		t.Errorf("waiting = %d; want 0", got)
	}
	for range 20 {
		c.backoff.Add(1)
	}
	if w, _ := c.wait(l); w != MaxStallWait {
		t.Errorf("wait after many lone stalls = %v; want the cap %v", w, MaxStallWait)
	}
	// Gaps between body bytes shorter than minGapSample are no samples.
	r := &waitClass{kind: waitRecv, all: all}
	r.begin()
	r.end(0, int64(minGapSample/2), true)
	if e := r.estimate(); e.ok {
		t.Errorf("a read from the socket's buffer was a sample: %+v", e)
	}
}

func repeat(d time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}

// BenchmarkStallWatchdog is what a wait costs an exchange: arming the
// watchdog and ending the wait in progress, as a response body's reads
// do, from many goroutines sharing one client's estimators.
func BenchmarkStallWatchdog(b *testing.B) {
	waits := newStallWaits(time.Minute)
	recv := wait{c: &waits.recv, l: waits.limits(time.Minute, 0)}
	b.RunParallel(func(pb *testing.PB) {
		w := newWatchdog(waits, "GetObject", func() {})
		for pb.Next() {
			w.arm(recv)
			w.disarm(true)
		}
		w.finish(false)
	})
}
