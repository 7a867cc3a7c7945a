package manifest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/s3bulk/s3bulk/store"
)

// csvFormat reads an inventory's CSV files: gzip-compressed, no header,
// every field quoted, the columns those of the manifest's fileSchema
// ("Bucket, Key, VersionId, IsLatest, ..."), keys URL-encoded.
type csvFormat struct {
	// columns, -1 when the report does not have one.
	bucket, key, version, latest, deleteMarker, size, modified, etag, class int
	width                                                                   int
}

func newCSVFormat(schema string) (*csvFormat, error) {
	c := &csvFormat{}
	columns := map[string]*int{
		"Bucket": &c.bucket, "Key": &c.key, "VersionId": &c.version, "IsLatest": &c.latest,
		"IsDeleteMarker": &c.deleteMarker, "Size": &c.size, "LastModifiedDate": &c.modified,
		"ETag": &c.etag, "StorageClass": &c.class,
	}
	for _, p := range columns {
		*p = -1
	}
	cols := strings.Split(schema, ",")
	c.width = len(cols)
	for i, col := range cols {
		if p, ok := columns[strings.TrimSpace(col)]; ok {
			*p = i
		}
	}
	if c.key < 0 {
		return nil, fmt.Errorf("fileSchema %q: no Key column", schema)
	}
	return c, nil
}

func (c *csvFormat) sized() bool { return c.size >= 0 }

func (c *csvFormat) objects(ctx context.Context, inv *Inventory, f inventoryFile, fn func(store.Object) error) error {
	rc, err := inv.open(ctx, f)
	if err != nil {
		return err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 256<<10)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b { // gzip, as AWS writes them
		zr, err := gzip.NewReader(br)
		if err != nil {
			return &InputError{Name: inv.fileURL(f), Err: fmt.Errorf("not gzip: %v", err)}
		}
		defer zr.Close()
		r = zr
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 256<<10), 1<<20)
	var fields []string
	line := 0
	for sc.Scan() {
		line++
		if line%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		fields, err = appendFields(fields[:0], string(b))
		var o store.Object
		keep := false
		if err == nil {
			o, keep, err = c.row(fields)
		}
		if err != nil {
			var le lineError
			if errors.As(err, &le) {
				return &InputError{Name: inv.fileURL(f), Line: line, Err: le}
			}
			return err
		}
		if keep {
			if err := fn(o); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", inv.fileURL(f), err)
	}
	return rc.Close() // the checksum, checked again: the file may have changed
}

// row reads the fields of one line; keep is false for versions that are not the latest
// and for delete markers.
func (c *csvFormat) row(fields []string) (o store.Object, keep bool, err error) {
	if len(fields) != c.width {
		return o, false, lineError(fmt.Sprintf("%d fields, but the manifest's fileSchema has %d", len(fields), c.width))
	}
	if c.latest >= 0 && fields[c.latest] == "false" || c.deleteMarker >= 0 && fields[c.deleteMarker] == "true" {
		return o, false, nil
	}
	if o.Key, err = url.QueryUnescape(fields[c.key]); err != nil || o.Key == "" {
		return o, false, lineError(fmt.Sprintf("key %q: not a URL-encoded key", fields[c.key]))
	}
	o.Size = -1
	if c.size >= 0 {
		if o.Size, err = strconv.ParseInt(fields[c.size], 10, 64); err != nil || o.Size < 0 {
			return o, false, lineError(fmt.Sprintf("size %q: not a size", fields[c.size]))
		}
	}
	if c.version >= 0 && fields[c.version] != "null" {
		o.VersionID = fields[c.version]
	}
	if c.etag >= 0 {
		o.ETag = fields[c.etag]
	}
	if c.class >= 0 {
		o.StorageClass = fields[c.class]
	}
	if c.modified >= 0 && fields[c.modified] != "" {
		if o.ModTime, err = time.Parse(time.RFC3339, fields[c.modified]); err != nil {
			return o, false, lineError(fmt.Sprintf("last modified date %q: %v", fields[c.modified], err))
		}
	}
	return o, true, nil
}
