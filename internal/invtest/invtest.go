// Package invtest writes S3 Inventory reports as AWS does (manifest.json,
// manifest.checksum, CSV gzip, Parquet or ORC data files), for tests and
// benchmarks of the code that reads them.
package invtest

import (
	"bytes"
	"compress/flate"
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
	"github.com/scritchley/orc"
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

// ORCSchema is the fileSchema AWS writes for such a report in ORC (the
// struct of each row of its files).
const ORCSchema = "struct<bucket:string,key:string,version_id:string,is_latest:boolean,is_delete_marker:boolean,size:bigint,last_modified_date:timestamp,e_tag:string,storage_class:string>"

// Report describes the report to write.
type Report struct {
	SourceBucket string
	// DestBucket holds the report; Prefix is the key of its directory
	// ("inv/src/config/2026-01-02T01-00Z").
	DestBucket, Prefix string
	// Format is "CSV", "Parquet" or "ORC".
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
	var bodies [][]byte
	for _, g := range groups {
		var buf bytes.Buffer
		if err := r.Write(&buf, func(yield func(Entry) bool) {
			for _, e := range g {
				if !yield(e) {
					return
				}
			}
		}); err != nil {
			return nil, err
		}
		bodies = append(bodies, buf.Bytes())
	}
	return r.Files(bodies...)
}

// Files is the report whose data files are bodies, whatever they hold:
// the manifest lists each with its size and MD5 checksum.
func (r Report) Files(bodies ...[]byte) ([]File, error) {
	var files []File
	type mfile struct {
		Key  string `json:"key"`
		Size int64  `json:"size"`
		MD5  string `json:"MD5checksum"`
	}
	var listed []mfile
	for i, b := range bodies {
		key := fmt.Sprintf("%s/data/file-%04d%s", r.Prefix, i, r.Ext())
		files = append(files, File{Key: key, Body: b})
		sum := md5.Sum(b)
		listed = append(listed, mfile{Key: key, Size: int64(len(b)), MD5: hex.EncodeToString(sum[:])})
	}
	m, err := r.Manifest(listed)
	if err != nil {
		return nil, err
	}
	sum := md5.Sum(m)
	return append(files, File{Key: r.Prefix + "/manifest.json", Body: m},
		File{Key: r.Prefix + "/manifest.checksum", Body: []byte(hex.EncodeToString(sum[:]) + "\n")}), nil
}

// Write writes entries as one data file of the report's format.
func (r Report) Write(w io.Writer, entries func(yield func(Entry) bool)) error {
	switch r.Format {
	case "Parquet":
		return r.WriteParquet(w, entries)
	case "ORC":
		return r.WriteORC(w, entries)
	}
	return r.WriteCSV(w, entries)
}

// Ext ends the names of the report's data files, as AWS names them.
func (r Report) Ext() string {
	switch r.Format {
	case "Parquet":
		return ".parquet"
	case "ORC":
		return ".orc"
	}
	return ".csv.gz"
}

// Manifest is manifest.json listing files (key, size, MD5checksum).
func (r Report) Manifest(files any) ([]byte, error) {
	schema := CSVSchema
	format := "CSV"
	switch r.Format {
	case "Parquet":
		schema, format = ParquetSchema, "Parquet"
	case "ORC":
		schema, format = ORCSchema, "ORC"
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

// WriteORC writes entries as one ORC data file, ZLIB-compressed as AWS
// writes them.
func (r Report) WriteORC(w io.Writer, entries func(yield func(Entry) bool)) error {
	schema, err := orc.ParseSchema(ORCSchema)
	if err != nil {
		return err
	}
	ow, err := orc.NewWriter(w, orc.SetSchema(schema), orc.SetCompression(orc.CompressionZlib{Level: flate.BestSpeed}))
	if err != nil {
		return err
	}
	for e := range entries {
		var version any
		if e.VersionID != "" {
			version = e.VersionID
		}
		if err := ow.Write(r.SourceBucket, e.Key, version, !e.NotLatest, e.DeleteMarker, e.Size, e.Modified, e.ETag, e.StorageClass); err != nil {
			return err
		}
	}
	return ow.Close()
}

func ptr[T any](v T) *T { return &v }
