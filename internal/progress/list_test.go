package progress

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/s3bulk/s3bulk/store"
)

func TestListLinesPutEachPagesPrefixesFirst(t *testing.T) {
	var out strings.Builder
	p := &ListLines{Out: &out, Dir: "d/"}
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local)
	// A page and a half of objects with a prefix among them in each page.
	for i := range listPageSize + listPageSize/2 {
		if i == 10 || i == listPageSize+10 {
			if err := p.Add(store.Object{Key: fmt.Sprintf("d/p%04d/", i), IsPrefix: true}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := p.Add(store.Object{Key: fmt.Sprintf("d/o%04d", i), Size: int64(i), ModTime: when}); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != listPageSize+listPageSize/2 {
		t.Fatalf("%d lines, want %d", len(lines), listPageSize+listPageSize/2)
	}
	for _, at := range []int{0, listPageSize} {
		if want := fmt.Sprintf("%30s p%04d/", "PRE", at+10); lines[at] != want {
			t.Errorf("line %d = %q, want %q", at, lines[at], want)
		}
	}
	if want := "2026-01-02 03:04:05          1 o0001"; lines[2] != want {
		t.Errorf("line 2 = %q, want %q", lines[2], want)
	}
}
