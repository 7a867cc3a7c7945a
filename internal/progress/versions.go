package progress

import (
	"fmt"

	"github.com/s3bulk/s3bulk/store"
)

// markerSize stands in the size column for a delete marker.
const markerSize = "MARKER"

// AddVersion prints one line of `ls --all-versions`: the line of an
// object (a delete marker's size reads MARKER), then the version ID, and
// "latest" for the key's current entry. Versions are counted by Summary;
// delete markers are not.
func (p *ListLines) AddVersion(v store.Version) error {
	size := markerSize
	if !v.DeleteMarker {
		size = p.size(v.Size)
		p.count++
		p.total += v.Size
	}
	latest := ""
	if v.IsLatest {
		latest = " latest"
	}
	_, err := fmt.Fprintf(p.Out, "%-19s %10s %s %s%s\n", v.ModTime.Local().Format("2006-01-02 15:04:05"), size, p.name(v.Key), v.VersionID, latest)
	return err
}

// NewVersionRecord is the record of one version or delete marker, listed
// at url.
func NewVersionRecord(v store.Version, url string) ListRecord {
	r := NewListRecord(v.Object, url)
	r.VersionID, r.IsLatest, r.DeleteMarker = v.VersionID, v.IsLatest, v.DeleteMarker
	return r
}
