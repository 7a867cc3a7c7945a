package manifest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	pformat "github.com/parquet-go/parquet-go/format"

	"github.com/s3bulk/s3bulk/store"
)

// parquetFormat reads an inventory's Parquet files (columns bucket, key,
// version_id, is_latest, is_delete_marker, size, last_modified_date,
// e_tag, storage_class, by name; keys not encoded). A Parquet file is
// read from its end, so each is spooled to a temporary file first, one
// at a time (Inventory.spool).
type parquetFormat struct{}

// sized: a Parquet report's schema is read per file; a report without
// sizes has them null, which reads as unknown.
func (parquetFormat) sized() bool { return true }

func (parquetFormat) objects(ctx context.Context, inv *Inventory, f inventoryFile, fn func(store.Object) error) error {
	tmp, n, err := inv.spool(ctx, f, "parquet")
	if err != nil {
		return err
	}
	defer tmp.Close()
	pf, err := parquet.OpenFile(tmp, n)
	if err != nil {
		return &InputError{Name: inv.fileURL(f), Err: fmt.Errorf("not a Parquet file: %v", err)}
	}
	cols, err := parquetColumns(pf.Schema())
	if err != nil {
		return &InputError{Name: inv.fileURL(f), Err: err}
	}
	r := parquet.NewReader(pf)
	defer r.Close()
	rows := make([]parquet.Row, 256)
	for {
		k, err := r.ReadRows(rows)
		for _, row := range rows[:k] {
			o, keep, rerr := cols.object(row)
			if rerr != nil {
				return &InputError{Name: inv.fileURL(f), Err: rerr}
			}
			if keep {
				if err := fn(o); err != nil {
					return err
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return &InputError{Name: inv.fileURL(f), Err: err}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// parquetCols are the leaf column indexes of the fields read, -1 when
// the file has none; unit is last_modified_date's time unit.
type parquetCols struct {
	key, version, latest, deleteMarker, size, modified, etag, class int
	unit                                                            time.Duration
}

func parquetColumns(s *parquet.Schema) (parquetCols, error) {
	idx := func(name string) int {
		if leaf, ok := s.Lookup(name); ok {
			return leaf.ColumnIndex
		}
		return -1
	}
	c := parquetCols{key: idx("key"), version: idx("version_id"), latest: idx("is_latest"), deleteMarker: idx("is_delete_marker"),
		size: idx("size"), modified: idx("last_modified_date"), etag: idx("e_tag"), class: idx("storage_class"), unit: time.Millisecond}
	if c.key < 0 {
		return c, errors.New("no key column")
	}
	if leaf, ok := s.Lookup("last_modified_date"); ok {
		if lt := leaf.Node.Type().LogicalType(); lt != nil {
			if ts, ok := lt.Value.(*pformat.TimestampType); ok && ts.Unit.Value != nil {
				c.unit = ts.Unit.Value.Duration()
			}
		}
	}
	return c, nil
}

// object reads one row; keep is false for versions that are not the
// latest and for delete markers.
func (c *parquetCols) object(row parquet.Row) (o store.Object, keep bool, err error) {
	o.Size = -1
	latest, marker := true, false
	for _, v := range row {
		if v.IsNull() {
			continue
		}
		switch v.Column() {
		case c.key:
			o.Key = string(v.ByteArray())
		case c.version:
			if id := string(v.ByteArray()); id != "null" {
				o.VersionID = id
			}
		case c.latest:
			latest = v.Boolean()
		case c.deleteMarker:
			marker = v.Boolean()
		case c.size:
			o.Size = v.Int64()
		case c.modified:
			o.ModTime = time.Unix(0, v.Int64()*int64(c.unit)).UTC()
		case c.etag:
			o.ETag = strings.Trim(string(v.ByteArray()), `"`)
		case c.class:
			o.StorageClass = string(v.ByteArray())
		}
	}
	if !current(latest, marker) {
		return o, false, nil
	}
	if o.Key == "" {
		return o, false, errors.New("a row without a key")
	}
	return o, true, nil
}
