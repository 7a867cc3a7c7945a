package progress

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/s3bulk/s3bulk/internal/units"
	"github.com/s3bulk/s3bulk/store"
)

// listPageSize is the most entries ls holds before printing them, prefixes
// first: a page of ListObjectsV2, which is how aws groups them.
const listPageSize = 1000

// ListLines writes ls's lines as aws s3 ls does: PRE lines first in each
// page of 1,000 entries, then objects with their local time and size.
type ListLines struct {
	Out   io.Writer
	Human bool // sizes as aws --human-readable prints them
	// Full prints whole keys (--recursive, wildcards); else names are
	// relative to Dir, the listed prefix up to its last '/'.
	Full bool
	Dir  string

	prefixes, objects []store.Object
	count, total      int64
}

// Add holds o for the page, printing the page once full.
func (p *ListLines) Add(o store.Object) error {
	if o.IsPrefix {
		p.prefixes = append(p.prefixes, o)
	} else {
		p.objects = append(p.objects, o)
		p.count++
		p.total += o.Size
	}
	if len(p.prefixes)+len(p.objects) >= listPageSize {
		return p.Flush()
	}
	return nil
}

func (p *ListLines) name(key string) string {
	if p.Full {
		return key
	}
	return strings.TrimPrefix(key, p.Dir)
}

// Flush prints the page held.
func (p *ListLines) Flush() error {
	w := bufio.NewWriter(p.Out)
	for _, o := range p.prefixes {
		fmt.Fprintf(w, "%30s %s\n", "PRE", p.name(o.Key))
	}
	for _, o := range p.objects {
		fmt.Fprintf(w, "%-19s %10s %s\n", o.ModTime.Local().Format("2006-01-02 15:04:05"), p.size(o.Size), p.name(o.Key))
	}
	p.prefixes, p.objects = p.prefixes[:0], p.objects[:0]
	return w.Flush()
}

func (p *ListLines) size(n int64) string {
	if p.Human {
		return units.FormatAWS(n)
	}
	return strconv.FormatInt(n, 10)
}

// Summary prints --summarize's lines.
func (p *ListLines) Summary() error {
	_, err := fmt.Fprintf(p.Out, "\nTotal Objects: %d\n   Total Size: %s\n", p.count, p.size(p.total))
	return err
}
