package manifest

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/s3bulk/s3bulk/store"
)

// Inventory is an S3 Inventory report: its manifest.json and the data
// files it lists, each checked against its MD5 checksum.
type Inventory struct {
	name   string // s3://bucket/key of manifest.json
	files  store.Store
	m      inventoryManifest
	format format
}

// inventoryManifest is manifest.json as S3 Inventory writes it
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/storage-inventory-location.html).
type inventoryManifest struct {
	SourceBucket      string          `json:"sourceBucket"`
	DestinationBucket string          `json:"destinationBucket"`
	Version           string          `json:"version"`
	FileFormat        string          `json:"fileFormat"`
	FileSchema        string          `json:"fileSchema"`
	Files             []inventoryFile `json:"files"`
}

type inventoryFile struct {
	Key         string `json:"key"`
	Size        int64  `json:"size"`
	MD5Checksum string `json:"MD5checksum"`
}

// format reads the data files of one file format.
type format interface {
	// objects calls fn with the entries of one data file, checking its
	// bytes against sum as they are read.
	objects(ctx context.Context, inv *Inventory, f inventoryFile, fn func(store.Object) error) error
	// sized reports whether the report has the objects' sizes.
	sized() bool
}

// OpenInventory reads the manifest.json at key of st (named url in
// messages), checks that it is a report of bucket, in a format this
// package reads, and that every data file it lists has the size and MD5
// checksum it says (each file is read once for this). bucketStore opens
// the bucket the data files are in when the manifest names another one
// than st's. Bad input is an *InputError.
func OpenInventory(ctx context.Context, st store.Store, key, url, bucket string, bucketStore func(name string) (store.Store, error)) (*Inventory, error) {
	inv := &Inventory{name: url, files: st}
	body, err := readAll(ctx, st, key, 16<<20)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, &InputError{Name: url, Err: errors.New("no such object")}
		}
		return nil, fmt.Errorf("read %s: %w", url, err)
	}
	if err := inv.checkManifestChecksum(ctx, st, key, body); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(body, &inv.m); err != nil {
		return nil, &InputError{Name: url, Err: fmt.Errorf("not an inventory manifest: %v", err)}
	}
	m := &inv.m
	switch {
	case m.SourceBucket == "" || len(m.Files) == 0 && m.FileFormat == "":
		return nil, &InputError{Name: url, Err: errors.New("not an inventory manifest: no sourceBucket or fileFormat")}
	case bucket != "" && m.SourceBucket != bucket:
		return nil, &InputError{Name: url, Err: fmt.Errorf("an inventory of bucket %q, not of the source bucket %q", m.SourceBucket, bucket)}
	}
	if inv.format, err = newFormat(m.FileFormat, m.FileSchema); err != nil {
		return nil, &InputError{Name: url, Err: err}
	}
	if dst := strings.TrimPrefix(m.DestinationBucket, "arn:aws:s3:::"); dst != "" && dst != bucketOf(url) && bucketStore != nil {
		if inv.files, err = bucketStore(dst); err != nil {
			return nil, err
		}
	}
	for _, f := range m.Files {
		if err := inv.checkFile(ctx, f); err != nil {
			return nil, err
		}
	}
	return inv, nil
}

// bucketOf is the bucket of an s3:// URL.
func bucketOf(url string) string {
	b, _, _ := strings.Cut(strings.TrimPrefix(url, "s3://"), "/")
	return b
}

// checkManifestChecksum compares manifest.json with the MD5 S3 Inventory
// writes next to it (manifest.checksum), when there is one.
func (inv *Inventory) checkManifestChecksum(ctx context.Context, st store.Store, key string, body []byte) error {
	if path.Base(key) != "manifest.json" {
		return nil
	}
	sum, err := readAll(ctx, st, strings.TrimSuffix(key, "json")+"checksum", 1024)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the checksum of %s: %w", inv.name, err)
	}
	got := md5.Sum(body)
	if want := strings.TrimSpace(string(sum)); !strings.EqualFold(want, hex.EncodeToString(got[:])) {
		return &InputError{Name: inv.name, Err: fmt.Errorf("MD5 %x, but manifest.checksum says %s", got, want)}
	}
	return nil
}

// readAll reads a small object whole, refusing one over limit bytes.
func readAll(ctx context.Context, st store.Store, key string, limit int64) ([]byte, error) {
	rc, err := st.Get(ctx, key, 0, -1, "")
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("over %d bytes", limit)
	}
	return b, err
}

// Files is the number of data files; Format the report's file format.
func (inv *Inventory) Files() int                     { return len(inv.m.Files) }
func (inv *Inventory) Format() string                 { return inv.m.FileFormat }
func (inv *Inventory) Bucket() string                 { return inv.m.SourceBucket }
func (inv *Inventory) Name() string                   { return inv.name }
func (inv *Inventory) Sized() bool                    { return inv.format.sized() }
func (inv *Inventory) fileURL(f inventoryFile) string { return inv.files.URL(f.Key) }

// checkFile reads one data file whole and compares its size and MD5 with
// the manifest's.
func (inv *Inventory) checkFile(ctx context.Context, f inventoryFile) error {
	rc, err := inv.open(ctx, f)
	if err != nil {
		return err
	}
	defer rc.Close()
	if _, err := io.Copy(io.Discard, rc); err != nil {
		return err
	}
	return rc.Close()
}

// open opens a data file for reading; the reader's Close (or a read at
// its end) returns an *InputError when the bytes read do not match the
// manifest's size or MD5.
func (inv *Inventory) open(ctx context.Context, f inventoryFile) (io.ReadCloser, error) {
	rc, err := inv.files.Get(ctx, f.Key, 0, -1, "")
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, &InputError{Name: inv.name, Err: fmt.Errorf("data file %s: no such object", inv.fileURL(f))}
		}
		return nil, fmt.Errorf("read %s: %w", inv.fileURL(f), err)
	}
	return &checkedReader{rc: rc, h: md5.New(), inv: inv, f: f}, nil
}

// spool copies a data file to a temporary file, checked on the way as
// open checks it, for the formats that are read from their end (Parquet,
// ORC); ext ends the file's name. Closing it removes it. It is one file
// at a time: a format spools the next only once it is done with this one.
func (inv *Inventory) spool(ctx context.Context, f inventoryFile, ext string) (*spooled, int64, error) {
	tmp, err := os.CreateTemp("", "s3bulk-inventory-*."+ext)
	if err != nil {
		return nil, 0, err
	}
	sp := &spooled{File: tmp}
	rc, err := inv.open(ctx, f)
	if err == nil {
		var n int64
		n, err = io.Copy(tmp, rc)
		if cerr := rc.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			return sp, n, nil
		}
	}
	sp.Close()
	return nil, 0, err
}

// spooled is a temporary file that Close removes.
type spooled struct{ *os.File }

func (s *spooled) Close() error {
	err := s.File.Close()
	if rerr := os.Remove(s.Name()); err == nil {
		err = rerr
	}
	return err
}

// checkedReader hashes what it reads and checks it at EOF.
type checkedReader struct {
	rc io.ReadCloser
	h  interface {
		io.Writer
		Sum([]byte) []byte
	}
	n    int64
	inv  *Inventory
	f    inventoryFile
	done bool
	err  error
}

func (c *checkedReader) Read(p []byte) (int, error) {
	n, err := c.rc.Read(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	if err == io.EOF && !c.done {
		c.done = true
		c.err = c.check()
		if c.err != nil {
			return n, c.err
		}
	}
	return n, err
}

func (c *checkedReader) check() error {
	sum := hex.EncodeToString(c.h.Sum(nil))
	switch {
	case c.f.Size > 0 && c.n != c.f.Size:
		return &InputError{Name: c.inv.name, Err: fmt.Errorf("data file %s: %d bytes, but the manifest says %d", c.inv.fileURL(c.f), c.n, c.f.Size)}
	case c.f.MD5Checksum != "" && !strings.EqualFold(sum, c.f.MD5Checksum):
		return &InputError{Name: c.inv.name, Err: fmt.Errorf("data file %s: MD5 %s, but the manifest says %s", c.inv.fileURL(c.f), sum, c.f.MD5Checksum)}
	}
	return nil
}

// Close closes the object; a file read to its end that did not match is
// the error.
func (c *checkedReader) Close() error {
	err := c.rc.Close()
	if c.err != nil {
		return c.err
	}
	return err
}

// Objects calls fn with each object of the report, file after file: the
// current version of each key that is not a delete marker (a report of
// all versions lists the others too), with its size, ETag, time and
// version id when the report has them (Size -1 when it does not).
func (inv *Inventory) Objects(ctx context.Context, fn func(store.Object) error) error {
	for _, f := range inv.m.Files {
		if err := inv.format.objects(ctx, inv, f, fn); err != nil {
			return err
		}
	}
	return nil
}

// newFormat returns the reader of fileFormat with fileSchema.
func newFormat(fileFormat, schema string) (format, error) {
	switch strings.ToUpper(fileFormat) {
	case "CSV":
		return newCSVFormat(schema)
	case "PARQUET":
		return parquetFormat{}, nil
	case "ORC":
		return orcFormat{}, nil
	}
	return nil, fmt.Errorf("file format %q: want CSV, Parquet or ORC", fileFormat)
}

// current reports whether an entry is one to copy: the latest version,
// not a delete marker.
func current(isLatest, isDeleteMarker bool) bool { return isLatest && !isDeleteMarker }
