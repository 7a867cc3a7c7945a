package manifest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/scritchley/orc"
	orcproto "github.com/scritchley/orc/proto"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"

	"github.com/s3bulk/s3bulk/store"
)

// orcFormat reads an inventory's ORC files: the fields bucket, key,
// version_id, is_latest, is_delete_marker, size, last_modified_date,
// e_tag, storage_class of the file's struct, by name, as Parquet's
// columns (keys not encoded). An ORC file is read from its end, so each
// is spooled to a temporary file first, as a Parquet file is; the reader
// then holds the selected columns of one stripe at a time.
//
// github.com/scritchley/orc is the one pure-Go ORC reader the module
// proxy serves; it has not changed since 2021, so everything of it this
// package uses is in this file, behind format.
type orcFormat struct{}

// sized: an ORC report's schema is read per file; a report without sizes
// has them null, which reads as unknown.
func (orcFormat) sized() bool { return true }

// orcFields are the fields read, in the order selected; the cursor's row
// has their values in that order.
var orcFields = []string{"key", "version_id", "is_latest", "is_delete_marker", "size", "last_modified_date", "e_tag", "storage_class"}

func (orcFormat) objects(ctx context.Context, inv *Inventory, f inventoryFile, fn func(store.Object) error) error {
	tmp, n, err := inv.spool(ctx, f, "orc")
	if err != nil {
		return err
	}
	defer tmp.Close()
	bad := func(err error) error { return &InputError{Name: inv.fileURL(f), Err: err} }
	if err := orcTail(tmp, n); err != nil {
		return bad(fmt.Errorf("not an ORC file: %v", err))
	}
	var r *orc.Reader
	if err := orcCall(func() (err error) {
		r, err = orc.NewReader(sizedFile{tmp, n})
		return err
	}); err != nil {
		return bad(fmt.Errorf("not an ORC file: %v", err))
	}
	rows, err := newORCRows(r)
	if err != nil {
		return bad(err)
	}
	batch := make([]store.Object, 256)
	for {
		k, err := rows.read(batch)
		for _, o := range batch[:k] {
			if err := fn(o); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return bad(fmt.Errorf("ORC data: %v", err))
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// sizedFile is the orc.SizedReaderAt of a spooled file.
type sizedFile struct {
	io.ReaderAt
	n int64
}

func (s sizedFile) Size() int64 { return s.n }

// orcTail checks the end of an ORC file (its postscript) before the
// library reads it: the library trusts the lengths there and allocates
// them, so a file that is not ORC could ask for any amount of memory.
func orcTail(r io.ReaderAt, n int64) error {
	var head [3]byte
	if n < 4 {
		return fmt.Errorf("%d bytes", n)
	}
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return err
	}
	if string(head[:]) != "ORC" {
		return errors.New("no ORC magic at its start")
	}
	tail := make([]byte, min(n, 256))
	if _, err := r.ReadAt(tail, n-int64(len(tail))); err != nil {
		return err
	}
	psLen := int(tail[len(tail)-1])
	if psLen == 0 || psLen > len(tail)-1 {
		return fmt.Errorf("a postscript of %d bytes", psLen)
	}
	var ps orcproto.PostScript
	if err := proto.Unmarshal(tail[len(tail)-1-psLen:len(tail)-1], protoadapt.MessageV2Of(&ps)); err != nil {
		return fmt.Errorf("postscript: %v", err)
	}
	if ps.GetMagic() != "ORC" {
		return errors.New("no ORC magic in its postscript")
	}
	if rest := uint64(n) - 1 - uint64(psLen); ps.GetFooterLength() > rest || ps.GetMetadataLength() > rest-ps.GetFooterLength() {
		return fmt.Errorf("a footer of %d bytes and metadata of %d in %d bytes", ps.GetFooterLength(), ps.GetMetadataLength(), n)
	}
	return nil
}

// orcCall calls the library, turning its panics (it indexes what it
// reads unchecked) into errors: a file the manifest vouches for can
// still be one the library cannot read.
func orcCall(fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("unreadable: %v", p)
		}
	}()
	return fn()
}

// orcRows reads the entries of one file, stripe after stripe.
type orcRows struct {
	c *orc.Cursor
	// the position in a row of each of orcFields, -1 when the file has
	// none.
	key, version, latest, deleteMarker, size, modified, etag, class int
	inStripe                                                        bool
}

func newORCRows(r *orc.Reader) (*orcRows, error) {
	has := map[string]bool{}
	for _, name := range r.Schema().Columns() {
		has[name] = true
	}
	if !has["key"] {
		return nil, errors.New("no key field")
	}
	var names []string
	pos := func(name string) int {
		if !has[name] {
			return -1
		}
		names = append(names, name)
		return len(names) - 1
	}
	o := &orcRows{}
	for i, p := range []*int{&o.key, &o.version, &o.latest, &o.deleteMarker, &o.size, &o.modified, &o.etag, &o.class} {
		*p = pos(orcFields[i])
	}
	err := orcCall(func() error {
		o.c = r.Select(names...)
		return o.c.Err()
	})
	return o, err
}

// read fills buf with the next entries kept, returning how many and
// io.EOF at the end of the file.
func (r *orcRows) read(buf []store.Object) (n int, err error) {
	err = orcCall(func() error {
		for n < len(buf) {
			if !r.inStripe {
				if !r.c.Stripes() {
					if err := r.c.Err(); err != nil {
						return err
					}
					return io.EOF
				}
				r.inStripe = true
			}
			if !r.c.Next() {
				if err := r.c.Err(); err != nil {
					return err
				}
				r.inStripe = false
				continue
			}
			o, keep, err := r.object(r.c.Row())
			if err != nil {
				return err
			}
			if keep {
				buf[n] = o
				n++
			}
		}
		return nil
	})
	return n, err
}

// object reads one row; keep is false for versions that are not the
// latest and for delete markers.
func (r *orcRows) object(row []any) (o store.Object, keep bool, err error) {
	o.Size = -1
	latest, marker := true, false
	str := func(i int, name string) (string, error) {
		switch v := row[i].(type) {
		case nil:
			return "", nil
		case string:
			return v, nil
		case []byte:
			return string(v), nil
		}
		return "", fmt.Errorf("%s: a %T, not a string", name, row[i])
	}
	boolean := func(i int, name string, dflt bool) (bool, error) {
		switch v := row[i].(type) {
		case nil:
			return dflt, nil
		case bool:
			return v, nil
		}
		return false, fmt.Errorf("%s: a %T, not a boolean", name, row[i])
	}
	var version, etag string
	if o.Key, err = str(r.key, "key"); err != nil {
		return o, false, err
	}
	if r.version >= 0 {
		if version, err = str(r.version, "version_id"); err != nil {
			return o, false, err
		}
		if version != "null" {
			o.VersionID = version
		}
	}
	if r.latest >= 0 {
		if latest, err = boolean(r.latest, "is_latest", true); err != nil {
			return o, false, err
		}
	}
	if r.deleteMarker >= 0 {
		if marker, err = boolean(r.deleteMarker, "is_delete_marker", false); err != nil {
			return o, false, err
		}
	}
	if !current(latest, marker) {
		return o, false, nil
	}
	if r.size >= 0 {
		switch v := row[r.size].(type) {
		case nil:
		case int64:
			o.Size = v
		default:
			return o, false, fmt.Errorf("size: a %T, not an integer", v)
		}
	}
	if r.modified >= 0 {
		switch v := row[r.modified].(type) {
		case nil:
		case time.Time:
			o.ModTime = v.UTC()
		default:
			return o, false, fmt.Errorf("last_modified_date: a %T, not a timestamp", v)
		}
	}
	if r.etag >= 0 {
		if etag, err = str(r.etag, "e_tag"); err != nil {
			return o, false, err
		}
		o.ETag = strings.Trim(etag, `"`)
	}
	if r.class >= 0 {
		if o.StorageClass, err = str(r.class, "storage_class"); err != nil {
			return o, false, err
		}
	}
	if o.Key == "" {
		return o, false, errors.New("a row without a key")
	}
	return o, true, nil
}
