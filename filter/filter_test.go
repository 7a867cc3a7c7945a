package filter

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/store"
)

func TestKeepKey(t *testing.T) {
	in, ex := Include, Exclude
	tests := []struct {
		name       string
		base       string
		rules      []Rule
		keep, drop []string
	}{
		{
			name: "no patterns keep everything",
			keep: []string{"a", "x/y/z", ""},
		},
		{
			name:  "a star crosses slashes, so an exclude without a slash works at any depth",
			rules: []Rule{ex("*.tmp")},
			keep:  []string{"a.txt", "x/a.tmp.gz", "tmp/a"},
			drop:  []string{"a.tmp", "x/a.tmp", "x/y/.tmp"},
		},
		{
			name:  "a pattern with a slash is anchored at the base and its star crosses slashes",
			rules: []Rule{ex("logs/*")},
			keep:  []string{"x/logs/a", "logs"},
			drop:  []string{"logs/a", "logs/a.json", "logs/2026/a.json"},
		},
		{
			name:  "an exclude of sub/* keeps nothing below sub at any depth",
			rules: []Rule{ex("sub/*")},
			keep:  []string{"a.txt", "x/sub/a"},
			drop:  []string{"sub/a", "sub/deep/h.tmp"},
		},
		{
			name:  "a double star is a star",
			rules: []Rule{ex("logs/**")},
			keep:  []string{"x/logs/a", "logsx/a"},
			drop:  []string{"logs/a", "logs/2026/a.json", "logs/"},
		},
		{
			name:  "a leading slash is an ordinary character",
			rules: []Rule{ex("/*.tmp")},
			keep:  []string{"a.tmp", "x/a.tmp"},
			drop:  []string{"/a.tmp"},
		},
		{
			name:  "a trailing slash is an ordinary character: it matches only a key that ends in it",
			rules: []Rule{ex(".git/")},
			keep:  []string{".gitignore", ".git/HEAD", "x/.git/objects/ab/cd"},
			drop:  []string{".git/"},
		},
		{
			name:  "a directory and all below it is dir/*",
			rules: []Rule{ex("build/out/*")},
			keep:  []string{"x/build/out/a", "build/outer"},
			drop:  []string{"build/out/a", "build/out/b/c"},
		},
		{
			name:  "an include first keeps only what it matches",
			rules: []Rule{in("*.jpg")},
			keep:  []string{"a.jpg", "2026/01/a.jpg"},
			drop:  []string{"a.png", "a.jpg/x"},
		},
		{
			name:  "several includes keep what any of them matches",
			rules: []Rule{in("*.jpg"), in("*.png")},
			keep:  []string{"a.jpg", "b/a.png"},
			drop:  []string{"a.gif"},
		},
		{
			name:  "exclude everything then include is the aws idiom",
			rules: []Rule{ex("*"), in("*.json")},
			keep:  []string{"a.json", "x/y/b.json"},
			drop:  []string{"a.txt", "x/a.json.gz"},
		},
		{
			name:  "an include after an exclude re-adds only what the exclude took",
			rules: []Rule{ex("*.tmp"), in("keep/*")},
			keep:  []string{"a.txt", "keep/a.tmp", "keep/b.txt"},
			drop:  []string{"a.tmp", "x/keep/a.tmp"},
		},
		{
			name:  "a later exclude takes back what an include kept",
			rules: []Rule{in("*.jpg"), ex("*thumbs/*")},
			keep:  []string{"a.jpg", "x/a.jpg"},
			drop:  []string{"thumbs/a.jpg", "x/thumbs/a.jpg", "a.png"},
		},
		{
			name:  "the same pattern included then excluded is excluded",
			rules: []Rule{in("*.jpg"), ex("*.jpg")},
			drop:  []string{"a.jpg", "b.png"},
		},
		{
			name:  "the same pattern excluded then included is included",
			rules: []Rule{ex("*.jpg"), in("*.jpg")},
			keep:  []string{"a.jpg", "b.png"},
		},
		{
			name:  "the base is cut before matching",
			base:  "photos/",
			rules: []Rule{ex("raw/*")},
			keep:  []string{"photos/2026/raw/a", "photos/a.jpg"},
			drop:  []string{"photos/raw/a.cr2", "photos/raw/x/b.cr2"},
		},
		{
			name:  "a key outside the base is matched whole",
			base:  "photos/",
			rules: []Rule{ex("videos/*")},
			drop:  []string{"videos/a.mp4"},
		},
		{
			name:  "a question mark is one character, a slash too",
			rules: []Rule{in("a?c")},
			keep:  []string{"abc", "a.c", "a/c", "aéc"},
			drop:  []string{"ac", "abbc"},
		},
		{
			name:  "brackets are a class",
			rules: []Rule{ex("[ab].json")},
			keep:  []string{"c.json", "[ab].json", "ab.json"},
			drop:  []string{"a.json", "b.json"},
		},
		{
			name:  "a negated class is any other character, a slash too",
			rules: []Rule{ex("x[!0-9]y")},
			keep:  []string{"x1y", "xy"},
			drop:  []string{"xay", "x/y"},
		},
		{
			name:  "a class takes ranges",
			rules: []Rule{in("log-[0-9][0-9].txt")},
			keep:  []string{"log-07.txt"},
			drop:  []string{"log-7.txt", "log-a7.txt"},
		},
		{
			name:  "a bracket without its closing bracket is an ordinary character",
			rules: []Rule{in("a[b")},
			keep:  []string{"a[b"},
			drop:  []string{"ab"},
		},
		{
			name:  "a backslash escapes nothing",
			rules: []Rule{in(`a\*`)},
			keep:  []string{`a\x`, `a\`},
			drop:  []string{"a*", "ax"},
		},
		{
			name:  "a pattern without wildcards matches its name exactly, case included",
			rules: []Rule{ex("Thumbs.db")},
			keep:  []string{"Thumbs.db.bak", "thumbs.db", "x/Thumbs.db"},
			drop:  []string{"Thumbs.db"},
		},
		{
			name:  "three stars are one star",
			rules: []Rule{ex("a/***")},
			keep:  []string{"b/a/x"},
			drop:  []string{"a/b", "a/b/c", "a/"},
		},
		{
			name:  "a lone slash is a pattern that matches only the key /",
			rules: []Rule{ex("/")},
			keep:  []string{"a", "a/"},
			drop:  []string{"/"},
		},
		{
			name:  "a star inside a name crosses slashes",
			rules: []Rule{in("2026*.json")},
			keep:  []string{"2026-01/a.json", "2026.json"},
			drop:  []string{"x/2026/a.json"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := New(Options{Base: tt.base, Rules: tt.rules})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range tt.keep {
				if !f.KeepKey(k) {
					t.Errorf("KeepKey(%q) = false, want kept", k)
				}
			}
			for _, k := range tt.drop {
				if f.KeepKey(k) {
					t.Errorf("KeepKey(%q) = true, want dropped", k)
				}
			}
		})
	}
}

func TestFlagOrderMatters(t *testing.T) {
	keys := []string{"a.jpg", "a.png", "thumbs/a.jpg", "x/thumbs/b.png", "raw/a.jpg", "c"}
	kept := func(rules ...Rule) []string {
		f, err := New(Options{Rules: rules})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, k := range keys {
			if f.KeepKey(k) {
				out = append(out, k)
			}
		}
		return out
	}
	// Exclude last: the thumbnails go. Include last: they come back.
	a := kept(Include("*.jpg"), Include("*.png"), Exclude("*thumbs/*"), Exclude("raw/*"))
	b := kept(Exclude("*thumbs/*"), Exclude("raw/*"), Include("*.jpg"), Include("*.png"))
	if diff := cmp.Diff([]string{"a.jpg", "a.png"}, a); diff != "" {
		t.Errorf("excludes last kept (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a.jpg", "a.png", "thumbs/a.jpg", "x/thumbs/b.png", "raw/a.jpg", "c"}, b); diff != "" {
		t.Errorf("includes last kept (-want +got):\n%s", diff)
	}
}

func ptr(v int64) *int64 { return &v }

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestKeep(t *testing.T) {
	day := 24 * time.Hour
	tests := []struct {
		name string
		opts Options
		obj  store.Object
		want bool
	}{
		{"the zero options keep an object", Options{}, store.Object{Key: "a", Size: 5}, true},
		{"an object at the minimum size is kept", Options{MinSize: ptr(5)}, store.Object{Size: 5}, true},
		{"an object below the minimum size is dropped", Options{MinSize: ptr(5)}, store.Object{Size: 4}, false},
		{"an object at the maximum size is kept", Options{MaxSize: ptr(5)}, store.Object{Size: 5}, true},
		{"an object above the maximum size is dropped", Options{MaxSize: ptr(5)}, store.Object{Size: 6}, false},
		{"a maximum of zero keeps empty objects", Options{MaxSize: ptr(0)}, store.Object{Size: 0}, true},
		{"a maximum of zero drops a one-byte object", Options{MaxSize: ptr(0)}, store.Object{Size: 1}, false},
		{"newer-than keeps an object modified at the cutoff", Options{NewerThan: now.Add(-day)}, store.Object{ModTime: now.Add(-day)}, true},
		{"newer-than drops an object modified before the cutoff", Options{NewerThan: now.Add(-day)}, store.Object{ModTime: now.Add(-day - 1)}, false},
		{"older-than drops an object modified at the cutoff", Options{OlderThan: now.Add(-day)}, store.Object{ModTime: now.Add(-day)}, false},
		{"older-than keeps an object modified before the cutoff", Options{OlderThan: now.Add(-day)}, store.Object{ModTime: now.Add(-2 * day)}, true},
		{"an object with no time is older than any cutoff", Options{OlderThan: now}, store.Object{}, true},
		{"an object with no time is not newer than any cutoff", Options{NewerThan: now.Add(-100 * 365 * day)}, store.Object{}, false},
		{"a time window keeps what falls inside", Options{NewerThan: now.Add(-7 * day), OlderThan: now.Add(-day)}, store.Object{ModTime: now.Add(-3 * day)}, true},
		{"size and pattern must both keep an object", Options{Rules: []Rule{Exclude("*.tmp")}, MinSize: ptr(1)}, store.Object{Key: "a.tmp", Size: 10}, false},
		{"the key is matched after the size", Options{Rules: []Rule{Include("*.jpg")}, MinSize: ptr(1)}, store.Object{Key: "a.jpg", Size: 10}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := New(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Keep(tt.obj); got != tt.want {
				t.Errorf("Keep(%+v) = %v, want %v", tt.obj, got, tt.want)
			}
		})
	}
}

func TestNewerAndOlderThanTheSameTimeSplitAListing(t *testing.T) {
	cut := now.Add(-time.Hour)
	newer, err := New(Options{NewerThan: cut})
	if err != nil {
		t.Fatal(err)
	}
	older, err := New(Options{OlderThan: cut})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []time.Duration{-time.Minute, -1, 0, 1, time.Minute} {
		o := store.Object{ModTime: cut.Add(d)}
		if newer.Keep(o) == older.Keep(o) {
			t.Errorf("an object modified at cutoff%+v is kept by %v of the two halves", d, map[bool]string{true: "both", false: "neither"}[newer.Keep(o)])
		}
	}
}

func TestNilFilterKeepsEverything(t *testing.T) {
	var f *Filter
	if !f.Keep(store.Object{Key: "a"}) || !f.KeepKey("a") {
		t.Error("a nil filter dropped an object")
	}
}

func TestNewRejects(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{"an empty include pattern", Options{Rules: []Rule{Include("")}}, `--include "": empty pattern`},
		{"an empty exclude pattern", Options{Rules: []Rule{Exclude("")}}, `--exclude "": empty pattern`},
		{"a NUL byte", Options{Rules: []Rule{Include("a\x00")}}, "NUL"},
		{"a negative minimum size", Options{MinSize: ptr(-1)}, "--min-size -1: negative"},
		{"a negative maximum size", Options{MaxSize: ptr(-1)}, "--max-size -1: negative"},
		{"a maximum below the minimum", Options{MinSize: ptr(10), MaxSize: ptr(9)}, "nothing would be kept"},
		{"a newer-than after the older-than", Options{NewerThan: now, OlderThan: now.Add(-time.Hour)}, "nothing would be kept"},
		{"a newer-than equal to the older-than", Options{NewerThan: now, OlderThan: now}, "nothing would be kept"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := New(tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("New = %v, %v; want an error containing %q", f, err, tt.wantErr)
			}
		})
	}
}

// The messages of an age that is none, and of one too large, are the
// filters' own: they name the dates ParseTime takes too.
func TestParseTimeErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"soon", `parse time "soon": want an age like 36h, 7d or 1d12h, an RFC 3339 time, or a day like 2026-01-02`},
		{"-7d", `parse time "-7d": want an age like 36h, 7d or 1d12h, an RFC 3339 time, or a day like 2026-01-02`},
		{"100000000w", `parse time "100000000w": age too large`},
		{" 99999999999d ", `parse time " 99999999999d ": age too large`},
		{"  ", `parse time "  ": empty`},
	}
	for _, tt := range tests {
		t.Run(strconv.Quote(tt.in), func(t *testing.T) {
			_, err := ParseTime(tt.in, now)
			if err == nil || err.Error() != tt.want {
				t.Errorf("ParseTime(%q) = %v, want %q", tt.in, err, tt.want)
			}
		})
	}
}

func TestParseTime(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{"36h", now.Add(-36 * time.Hour), false},
		{"7d", now.Add(-7 * 24 * time.Hour), false},
		{"2w", now.Add(-14 * 24 * time.Hour), false},
		{"1d12h", now.Add(-36 * time.Hour), false},
		{"1.5d", now.Add(-36 * time.Hour), false},
		{"90m", now.Add(-90 * time.Minute), false},
		{"0s", now, false},
		{"0", now, false},
		{"12h1d", now.Add(-36 * time.Hour), false},
		{"1d0", now.Add(-24 * time.Hour), false},
		{"500µs", now.Add(-500 * time.Microsecond), false},
		{" 7d ", now.Add(-7 * 24 * time.Hour), false},
		{"2026-01-02T15:04:05Z", time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC), false},
		{"2026-01-02T15:04:05+02:00", time.Date(2026, 1, 2, 13, 4, 5, 0, time.UTC), false},
		{"2026-01-02", time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), false},
		{"", time.Time{}, true},
		{"7", time.Time{}, true},
		{"d", time.Time{}, true},
		{"-7d", time.Time{}, true},
		{"7 days", time.Time{}, true},
		{"1.2.3h", time.Time{}, true},
		{"100000000w", time.Time{}, true},
		{"2026-13-01", time.Time{}, true},
	}
	for _, tt := range tests {
		name := map[bool]string{false: "reads ", true: "rejects "}[tt.wantErr] + strconv.Quote(tt.in)
		t.Run(name, func(t *testing.T) {
			got, err := ParseTime(tt.in, now)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ParseTime(%q) = %v, want an error", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(tt.want) {
				t.Errorf("ParseTime(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}
