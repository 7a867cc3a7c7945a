package transfer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/engine/journal"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// A journal written before the ID had a type of its own still resumes:
// the fingerprint is made of the same fields, in the same order.
func TestJournalIDFingerprintIsTheFieldsJournalsWereWrittenWith(t *testing.T) {
	t.Parallel()
	src, _ := s3url.Parse("s3://src/logs/")
	dst, _ := s3url.Parse("s3://dst/copy/")
	base := JournalID{Verb: "cp", Src: src, Dst: dst, Recursive: true, Selection: " exclude=*.tmp", Endpoint: "|", Region: "us-east-1"}
	tests := []struct {
		name   string
		id     JournalID
		fields []string
	}{
		{"a copy of objects", base, []string{"cp", "s3://src/logs/", "s3://dst/copy/", "true false exclude=*.tmp", "|", "us-east-1", ""}},
		{"a copy of all versions", func() JournalID { id := base; id.Versions, id.AllVersions = true, true; return id }(),
			[]string{"cp", "s3://src/logs/", "s3://dst/copy/", "true false exclude=*.tmp", "versions", "", "true", "|", "us-east-1", ""}},
		{"a source elsewhere", func() JournalID { id := base; id.SourceProfile = "other"; return id }(),
			[]string{"cp", "s3://src/logs/", "s3://dst/copy/", "true false exclude=*.tmp", "source", "", "other", "|", "us-east-1", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := tt.id.Fingerprint(), journal.Fingerprint(tt.fields...); got != want {
				t.Errorf("Fingerprint = %s, want %s (of %q)", got, want, tt.fields)
			}
		})
	}
}

func TestEndpointsOpenLocalAndS3(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	client, err := s3store.NewClient(context.Background(), s3store.Config{EndpointURL: "http://127.0.0.1:1", Region: "us-east-1", AccessKey: "a", SecretKey: "b"})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	e := Endpoints{Client: func(context.Context) (*s3store.Client, error) { calls++; return client, nil }}
	loc := func(s string) s3url.Location {
		l, err := s3url.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	var le *engine.LocationError
	var oe *OptionsError
	if _, err := e.Source(context.Background(), loc(dir+"/"), false, s3store.Options{}); !errors.As(err, &le) {
		t.Errorf("a directory without recursive: %v, want a *engine.LocationError", err)
	}
	if _, err := e.Dest(context.Background(), loc(filepath.Join(dir, "f")), true, s3store.Options{}); !errors.As(err, &le) {
		t.Errorf("a file as a directory: %v, want a *engine.LocationError", err)
	}
	if calls != 0 {
		t.Errorf("local locations asked for an S3 client %d times", calls)
	}
	if _, err := e.Dest(context.Background(), loc("s3://bkt/k"), false, s3store.Options{ACL: "everyone"}); !errors.As(err, &oe) {
		t.Errorf("an unknown ACL: %v, want an *OptionsError", err)
	}
	ep, err := e.Dest(context.Background(), loc("s3://bkt/dir"), true, s3store.Options{})
	if err != nil || ep.Loc.Key != "dir/" {
		t.Errorf("many objects into s3://bkt/dir: %+v %v, want the prefix dir/", ep.Loc, err)
	}
}
