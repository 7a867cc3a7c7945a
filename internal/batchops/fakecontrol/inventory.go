package fakecontrol

import (
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// inventoryFormat is the manifest format of an S3 Inventory report: the
// job's manifest is the report's manifest.json, and its tasks are the rows
// of the CSV files it lists, every row, versions and delete markers
// included (a delete marker's task fails, as on S3).
const inventoryFormat = "S3InventoryReport_CSV_20161130"

// eachInventoryRow streams the rows of the report whose manifest.json is
// key of bucket, file after file: its Bucket and Key columns (the key
// URL-encoded, as the report writes it) and its VersionId column, when the
// report has one.
func (s *Server) eachInventoryRow(ctx context.Context, bucket, key string, fn func(task int, r row) (bool, error)) error {
	body, err := s.get(ctx, bucket, key)
	if err != nil {
		return err
	}
	var m struct {
		DestinationBucket string `json:"destinationBucket"`
		FileFormat        string `json:"fileFormat"`
		FileSchema        string `json:"fileSchema"`
		Files             []struct {
			Key string `json:"key"`
		} `json:"files"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return fmt.Errorf("the inventory manifest s3://%s/%s: %v", bucket, key, err)
	}
	if m.FileFormat != "CSV" {
		return fmt.Errorf("the inventory report is %s: a job reads CSV reports only", m.FileFormat)
	}
	cols := map[string]int{}
	for i, c := range strings.Split(m.FileSchema, ",") {
		cols[strings.TrimSpace(c)] = i
	}
	bi, okB := cols["Bucket"]
	ki, okK := cols["Key"]
	vi, okV := cols["VersionId"]
	if !okB || !okK {
		return fmt.Errorf("the inventory's fileSchema %q has no Bucket or Key", m.FileSchema)
	}
	files := s.unARN(m.DestinationBucket)
	if files == "" {
		files = bucket
	}
	task := 0
	for _, f := range m.Files {
		out, err := s.s3.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(files), Key: aws.String(f.Key)})
		if err != nil {
			return fmt.Errorf("reading the inventory file s3://%s/%s: %v", files, f.Key, err)
		}
		goOn, err := eachCSVRow(out.Body, func(rec []string) (bool, error) {
			if len(rec) <= max(bi, ki, vi) {
				return false, fmt.Errorf("inventory row %d: %d columns, the fileSchema has more", task+1, len(rec))
			}
			r := row{bucket: rec[bi], encKey: rec[ki]}
			if okV {
				r.encVersion = url.QueryEscape(rec[vi])
			}
			task++
			return fn(task-1, r)
		})
		out.Body.Close()
		if err != nil || !goOn {
			return err
		}
	}
	return nil
}

// eachCSVRow reads a gzip-compressed CSV file's records.
func eachCSVRow(body io.Reader, fn func([]string) (bool, error)) (bool, error) {
	zr, err := gzip.NewReader(body)
	if err != nil {
		return false, fmt.Errorf("an inventory file that is not gzip: %v", err)
	}
	cr := csv.NewReader(zr)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if goOn, err := fn(rec); err != nil || !goOn {
			return goOn, err
		}
	}
}

// get reads a small object whole.
func (s *Server) get(ctx context.Context, bucket, key string) ([]byte, error) {
	out, err := s.s3.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return nil, fmt.Errorf("reading s3://%s/%s: %v", bucket, key, err)
	}
	defer out.Body.Close()
	return io.ReadAll(out.Body)
}
