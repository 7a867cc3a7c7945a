// Package invtest writes S3 Inventory reports as AWS does (manifest.json,
// manifest.checksum, CSV gzip or Parquet data files), for tests and
// benchmarks of the code that reads them.
package invtest

import (
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
)

// Entry is one row of a report.
type Entry struct {
	Key          string
	VersionID    string
	NotLatest    bool
	DeleteMarker bool
	Size         int64
	Modified     time.Time
	ETag         string
	StorageClass string
}

// CSVSchema is the fileSchema of the CSV reports Report writes.
const CSVSchema = "Bucket, Key, VersionId, IsLatest, IsDeleteMarker, Size, LastModifiedDate, ETag, StorageClass"

// ParquetSchema is the fileSchema AWS writes for such a report in Parquet.
const ParquetSchema = "message s3.inventory { required binary bucket (UTF8); required binary key (UTF8); optional binary version_id (UTF8); optional boolean is_latest; optional boolean is_delete_marker; optional int64 size; optional int64 last_modified_date (TIMESTAMP_MILLIS); optional binary e_tag (UTF8); optional binary storage_class (UTF8);}"

// Report describes the report to write.
type Report struct {
	SourceBucket string
	// DestBucket holds the report; Prefix is the key of its directory
	// ("inv/src/config/2026-01-02T01-00Z").
	DestBucket, Prefix string
	// Format is "CSV" or "Parquet".
	Format string
}

// File is one data file written.
type File struct {
	Key  string
	Body []byte
}

// Build writes the data files, one per group of entries, and returns
// every object of the report, manifest.json and manifest.checksum last.
func (r Report) Build(groups ...[]Entry) ([]File, error) {
	var files []File
	type mfile struct {
		Key  string `json:"key"`
		Size int64  `json:"size"`
		MD5  string `json:"MD5checksum"`
	}
	var listed []mfile
	for i, g := range groups {
		var buf bytes.Buffer
		ext := ".csv.gz"
		var err error
		if r.Format == "Parquet" {
			ext = ".parquet"
			err = r.WriteParquet(&buf, func(yield func(Entry) bool) {
				for _, e := range g {
					if !yield(e) {
						return
					}
				}
			})
		} else {
			err = r.WriteCSV(&buf, func(yield func(Entry) bool) {
				for _, e := range g {
					if !yield(e) {
						return
					}
				}
			})
		}
		if err != nil {
			return nil, err
		}
		key := fmt.Sprintf("%s/data/file-%04d%s", r.Prefix, i, ext)
		files = append(files, File{Key: key, Body: buf.Bytes()})
		sum := md5.Sum(buf.Bytes())
		listed = append(listed, mfile{Key: key, Size: int64(buf.Len()), MD5: hex.EncodeToString(sum[:])})
	}
	m, err := r.Manifest(listed)
	if err != nil {
		return nil, err
	}
	sum := md5.Sum(m)
	return append(files, File{Key: r.Prefix + "/manifest.json", Body: m},
		File{Key: r.Prefix + "/manifest.checksum", Body: []byte(hex.EncodeToString(sum[:]) + "\n")}), nil
}

// Manifest is manifest.json listing files (key, size, MD5checksum).
func (r Report) Manifest(files any) ([]byte, error) {
	schema := CSVSchema
	format := "CSV"
	if r.Format == "Parquet" {
		schema, format = ParquetSchema, "Parquet"
	}
	return json.MarshalIndent(map[string]any{
		"sourceBucket":      r.SourceBucket,
		"destinationBucket": "arn:aws:s3:::" + r.DestBucket,
		"version":           "2016-11-30",
		"creationTimestamp": "1767315600000",
		"fileFormat":        format,
		"fileSchema":        schema,
		"files":             files,
	}, "", "  ")
}

// WriteCSV writes entries as one gzip-compressed CSV data file.
func (r Report) WriteCSV(w io.Writer, entries func(yield func(Entry) bool)) error {
	zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
	var b []byte
	q := func(s string) {
		b = append(b, '"')
		b = append(b, s...)
		b = append(b, '"', ',')
	}
	for e := range entries {
		b = b[:0]
		q(r.SourceBucket)
		q(strings.ReplaceAll(url.QueryEscape(e.Key), "%2F", "/"))
		q(e.VersionID)
		q(strconv.FormatBool(!e.NotLatest))
		q(strconv.FormatBool(e.DeleteMarker))
		q(strconv.FormatInt(e.Size, 10))
		q(e.Modified.UTC().Format("2006-01-02T15:04:05.000Z"))
		q(e.ETag)
		q(e.StorageClass)
		b[len(b)-1] = '\n'
		if _, err := zw.Write(b); err != nil {
			return err
		}
	}
	return zw.Close()
}

// parquetRow is a row of AWS's Parquet schema.
type parquetRow struct {
	Bucket         string  `parquet:"bucket"`
	Key            string  `parquet:"key"`
	VersionID      *string `parquet:"version_id,optional"`
	IsLatest       *bool   `parquet:"is_latest,optional"`
	IsDeleteMarker *bool   `parquet:"is_delete_marker,optional"`
	Size           *int64  `parquet:"size,optional"`
	LastModified   *int64  `parquet:"last_modified_date,optional,timestamp(millisecond)"`
	ETag           *string `parquet:"e_tag,optional"`
	StorageClass   *string `parquet:"storage_class,optional"`
}

// WriteParquet writes entries as one Parquet data file.
func (r Report) WriteParquet(w io.Writer, entries func(yield func(Entry) bool)) error {
	pw := parquet.NewGenericWriter[parquetRow](w, parquet.Compression(&parquet.Snappy))
	batch := make([]parquetRow, 0, 1024)
	flush := func() error {
		_, err := pw.Write(batch)
		batch = batch[:0]
		return err
	}
	for e := range entries {
		row := parquetRow{Bucket: r.SourceBucket, Key: e.Key, IsLatest: ptr(!e.NotLatest), IsDeleteMarker: ptr(e.DeleteMarker),
			Size: ptr(e.Size), LastModified: ptr(e.Modified.UnixMilli()), ETag: ptr(e.ETag), StorageClass: ptr(e.StorageClass)}
		if e.VersionID != "" {
			row.VersionID = ptr(e.VersionID)
		}
		batch = append(batch, row)
		if len(batch) == cap(batch) {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return pw.Close()
}

func ptr[T any](v T) *T { return &v }
