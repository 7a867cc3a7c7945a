package runfile

import (
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		err      string
	}{
		{"blanks separate words", "cp  a\tb ", []string{"cp", "a", "b"}, ""},
		{"single quotes keep everything", `cp 'a b\ "c"' d`, []string{"cp", `a b\ "c"`, "d"}, ""},
		{"double quotes keep a backslash before other characters", `cp "a \"b\" \\ \n" d`, []string{"cp", `a "b" \ \n`, "d"}, ""},
		{"a backslash keeps the next character", `cp a\ b c\#d`, []string{"cp", "a b", "c#d"}, ""},
		{"quotes join a word", `cp x'y z'"w" q`, []string{"cp", "xy zw", "q"}, ""},
		{"empty quotes are an empty word", `cp '' ""`, []string{"cp", "", ""}, ""},
		{"a hash starting a word is a comment", "cp a b # copy it", []string{"cp", "a", "b"}, ""},
		{"a hash inside a word is not", "cp a#1 b", []string{"cp", "a#1", "b"}, ""},
		{"a blank line has no words", "   ", nil, ""},
		{"an unterminated single quote is an error", "cp 'a", nil, "unterminated single quote"},
		{"an unterminated double quote is an error", `cp "a\"`, nil, "unterminated double quote"},
		{"a final backslash is an error", `cp a\`, nil, "backslash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Split(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("words (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzSplit checks that quoting any words and joining them gives them
// back, and that no input panics.
func FuzzSplit(f *testing.F) {
	f.Add("cp", "s3://b/with space", `it's "quoted" \ here`)
	f.Add("", "#", "a\tb")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		_, _ = Split(a + b + c)
		words := []string{a, b, c}
		for _, w := range words {
			if strings.ContainsAny(w, "\n\r") {
				return
			}
		}
		var line []string
		for _, w := range words {
			line = append(line, "'"+strings.ReplaceAll(w, "'", `'\''`)+"'")
		}
		got, err := Split(strings.Join(line, " "))
		if err != nil {
			t.Fatalf("split %q: %v", strings.Join(line, " "), err)
		}
		if diff := cmp.Diff(words, got); diff != "" {
			t.Errorf("words (-want +got):\n%s", diff)
		}
	})
}

func TestRunChecksEveryLineBeforeRunningAny(t *testing.T) {
	t.Parallel()
	f := strings.NewReader("cp a b\n# comment\n\ncp c d\nbad line\ncp e f\n")
	var ran atomic.Int64
	started := false
	err := Run(context.Background(), f, Options{
		Check: func(l Line) (bool, error) {
			if l.Args[0] == "bad" {
				return false, errors.New("bad at " + strings.Join(l.Args, " "))
			}
			return false, nil
		},
		Start: func() error { started = true; return nil },
		Exec:  func(context.Context, Line) { ran.Add(1) },
		Light: 1, Heavy: 1,
	})
	if err == nil || err.Error() != "bad at bad line" {
		t.Errorf("Run: %v, want the check's error", err)
	}
	if started || ran.Load() != 0 {
		t.Errorf("started %t, %d lines ran; want none", started, ran.Load())
	}
}

func TestRunRunsEveryLineWithItsNumberAndWeight(t *testing.T) {
	t.Parallel()
	f := strings.NewReader("cp a b\n\nsync c d\ns3bulk rm 'e f'\n")
	var mu sync.Mutex
	var got []Line
	var light, heavy, maxLight, maxHeavy atomic.Int64
	peak := func(n, max *atomic.Int64) {
		for v := n.Load(); v > max.Load(); v = n.Load() {
			max.Store(v)
		}
	}
	err := Run(context.Background(), f, Options{
		Check: func(l Line) (bool, error) { return l.Args[0] == "sync", nil },
		Exec: func(_ context.Context, l Line) {
			n, m := &light, &maxLight
			if l.Heavy {
				n, m = &heavy, &maxHeavy
			}
			n.Add(1)
			peak(n, m)
			defer n.Add(-1)
			mu.Lock()
			defer mu.Unlock()
			got = append(got, l)
		},
		Light: 1, Heavy: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b Line) int { return a.N - b.N })
	want := []Line{{N: 1, Args: []string{"cp", "a", "b"}}, {N: 3, Args: []string{"sync", "c", "d"}, Heavy: true}, {N: 4, Args: []string{"rm", "e f"}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("lines run (-want +got):\n%s", d)
	}
	if maxLight.Load() > 1 || maxHeavy.Load() > 1 {
		t.Errorf("at once: %d light, %d heavy; want at most 1 each", maxLight.Load(), maxHeavy.Load())
	}
}

func TestRunStopsWhenStartFails(t *testing.T) {
	t.Parallel()
	ran := false
	err := Run(context.Background(), strings.NewReader("cp a b\n"), Options{
		Check: func(Line) (bool, error) { return false, nil },
		Start: func() error { return errors.New("no credentials") },
		Exec:  func(context.Context, Line) { ran = true },
		Light: 1, Heavy: 1,
	})
	if err == nil || err.Error() != "no credentials" || ran {
		t.Errorf("Run: %v, ran %t; want Start's error and nothing run", err, ran)
	}
}

// growing is a file that gains a line once it has been read through.
type growing struct {
	*strings.Reader
	rewound bool
}

func (g *growing) Seek(off int64, whence int) (int64, error) {
	if !g.rewound {
		g.rewound = true
		g.Reader = strings.NewReader("cp a b\ncp c d\n")
	}
	return g.Reader.Seek(off, whence)
}

func TestRunRefusesAFileThatChangedBetweenItsPasses(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	err := Run(context.Background(), &growing{Reader: strings.NewReader("cp a b\n")}, Options{
		Check: func(Line) (bool, error) { return false, nil },
		Exec:  func(context.Context, Line) { ran.Add(1) },
		Light: 1, Heavy: 1,
	})
	if !IsChanged(err) {
		t.Errorf("Run: %v, want the file changed", err)
	}
	if ran.Load() != 1 {
		t.Errorf("%d lines ran, want the one checked", ran.Load())
	}
}

func TestRunSaysALineItCannotSplit(t *testing.T) {
	t.Parallel()
	err := Run(context.Background(), strings.NewReader("cp a b\ncp 'c d\n"), Options{
		Check: func(Line) (bool, error) { return false, nil },
		Exec:  func(context.Context, Line) {},
		Light: 1, Heavy: 1,
	})
	var le *LineError
	if !errors.As(err, &le) || le.Line != 2 || !le.Syntax {
		t.Errorf("Run: %v, want a syntax error on line 2", err)
	}
}

func TestSpoolKeepsStdinInAFileItRemoves(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, cleanup, err := Spool(strings.NewReader("cp a b\n"), dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	if err != nil || string(b) != "cp a b\n" {
		t.Errorf("spooled %q, %v", b, err)
	}
	cleanup()
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
