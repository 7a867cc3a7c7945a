package engine

import (
	"testing"
	"time"

	"github.com/s3bulk/s3bulk/store"
)

func TestWriteSearch(t *testing.T) {
	at := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	src := store.Object{Key: "k", VersionID: "s2", Size: 2, ETag: "0123456789abcdef0123456789abcdef"}
	version := func(id string, size int64, etag string, when time.Time) store.Version {
		return store.Version{Object: store.Object{Key: "k", VersionID: id, Size: size, ETag: etag, ModTime: when}}
	}
	same := func(id string, when time.Time) store.Version { return version(id, src.Size, src.ETag, when) }
	marker := func(id string, when time.Time) store.Version {
		return store.Version{Object: store.Object{Key: "k", VersionID: id, ModTime: when}, DeleteMarker: true}
	}
	ours := same("d1", at.Add(-time.Second)) // the version before, which the run wrote
	for _, tc := range []struct {
		name    string
		w       VersionWrite
		entries []store.Version // newest first
		want    string
	}{
		{"a match newer than the version the write follows landed",
			VersionWrite{Src: src, After: "d1", At: at}, []store.Version{same("d2", at), ours}, "d2"},
		{"nothing newer than it: not landed, whatever the times",
			VersionWrite{Src: src, After: "d1", At: at}, []store.Version{ours}, ""},
		{"a newer entry of other bytes is someone else's",
			VersionWrite{Src: src, After: "d1", At: at}, []store.Version{version("x", 2, "ffffffffffffffffffffffffffffffff", at), ours}, ""},
		{"of two matches newer than it, the oldest",
			VersionWrite{Src: src, After: "d1", At: at}, []store.Version{same("x", at.Add(time.Second)), same("d2", at), ours}, "d2"},
		{"a copy in parts, whose ETag is its own, landed",
			VersionWrite{Src: src, After: "d1", At: at}, []store.Version{version("d2", 2, "0123456789abcdef0123456789abcdef-1", at), ours}, "d2"},
		{"a version is not a marker",
			VersionWrite{Src: src, After: "d1", At: at}, []store.Version{marker("d2", at), ours}, ""},
		{"a marker is a marker",
			VersionWrite{Src: store.Object{Key: "k", VersionID: "m"}, DeleteMarker: true, After: "d1", At: at}, []store.Version{marker("d2", at), ours}, "d2"},
		{"a key's first write: a match since the intent, less the skew allowed, landed",
			VersionWrite{Src: src, At: at}, []store.Version{same("d1", at.Add(-maxClockSkew))}, "d1"},
		{"a key's first write: an older match was there before",
			VersionWrite{Src: src, At: at}, []store.Version{same("old", at.Add(-maxClockSkew-time.Second))}, ""},
		{"the version it follows deleted since: the time decides",
			VersionWrite{Src: src, After: "gone", At: at}, []store.Version{same("d2", at), same("old", at.Add(-time.Hour))}, "d2"},
		{"no time and nothing to follow: not landed",
			VersionWrite{Src: src}, []store.Version{same("d1", at)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := writeSearch{w: tc.w}
			for _, v := range tc.entries {
				s.see(v)
			}
			if got := s.landed(); got != tc.want {
				t.Errorf("landed = %q, want %q", got, tc.want)
			}
			if s.latest != tc.entries[0].VersionID {
				t.Errorf("latest = %q, want %q", s.latest, tc.entries[0].VersionID)
			}
		})
	}
}
