package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"golang.org/x/sync/errgroup"

	"github.com/s3bulk/s3bulk/engine/parts"
	"github.com/s3bulk/s3bulk/internal/units"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// reportPartSizes are the part sizes report 3 tried by hand.
var reportPartSizes = []int64{8 << 20, 64 << 20, 128 << 20, 256 << 20, 512 << 20}

// defaultHugeConcurrency is boto3's default thread count, which report 3
// kept for most of its runs.
const defaultHugeConcurrency = 10

// HugeConfig is report 3's experiment: one object of Size copied
// server-side with each part size, then with s3bulk's automatic choice.
type HugeConfig struct {
	Size int64
	// PartSizes default to reportPartSizes.
	PartSizes []int64
	// Concurrency is the parts in flight; 0 means defaultHugeConcurrency.
	Concurrency int
	// Auto picks s3bulk's part size; nil means the engine's own choice for
	// server-side copies.
	Auto func(size int64) int64
	// Repeat runs each part size this many times and keeps the fastest; 0
	// means once. One unmeasured copy always runs first, so that no part
	// size pays for cold caches and connections alone.
	Repeat int
}

// hugeKey names the big object next to, never under, prefix: it must not
// join the listing the other methods copy.
func hugeKey(prefix string, size int64) string {
	base := strings.TrimSuffix(prefix, "/")
	if base == "" {
		base = "s3bulk-bench"
	}
	return fmt.Sprintf("%s.huge/object-%d.bin", base, size)
}

// huge seeds the big object in the source bucket (unless one of that size
// is already there), copies it once per part size, and removes what it made.
func (r *runner) huge(ctx context.Context, cfg HugeConfig) (*HugeReport, error) {
	if cfg.PartSizes == nil {
		cfg.PartSizes = reportPartSizes
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = defaultHugeConcurrency
	}
	if cfg.Auto == nil {
		cfg.Auto = func(size int64) int64 { return parts.Auto(size, parts.Copy) }
	}
	src, dst := r.cfg.Source, r.cfg.Dest
	srcKey, dstKey := hugeKey(src.Prefix, cfg.Size), hugeKey(dst.Prefix, cfg.Size)
	report := &HugeReport{Key: srcKey, Size: cfg.Size, Concurrency: cfg.Concurrency, Repeat: max(1, cfg.Repeat)}
	r.cfg.Observe(Event{Method: "huge", Stage: "clear"})
	head, err := r.admin.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(src.Bucket), Key: aws.String(srcKey)})
	created := false
	if err != nil || aws.ToInt64(head.ContentLength) != cfg.Size {
		body := newBodies(DefaultLayout().Seed).Body(srcKey, 0, cfg.Size)
		if err := putObject(ctx, r.admin, src.Bucket, srcKey, body); err != nil {
			return nil, fmt.Errorf("seed the huge object: %w", err)
		}
		created = true
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
		defer cancel()
		_, _ = r.admin.DeleteObject(cctx, &s3.DeleteObjectInput{Bucket: aws.String(dst.Bucket), Key: aws.String(dstKey)})
		if created {
			_, _ = r.admin.DeleteObject(cctx, &s3.DeleteObjectInput{Bucket: aws.String(src.Bucket), Key: aws.String(srcKey)})
		}
	}()
	type run struct {
		label    string
		auto     bool
		partSize int64
	}
	var runs []run
	for _, ps := range cfg.PartSizes {
		runs = append(runs, run{label: units.HumanExact(ps), partSize: ps})
	}
	auto := cfg.Auto(cfg.Size)
	runs = append(runs, run{label: "auto (" + units.HumanExact(auto) + ")", auto: true, partSize: auto})
	r.cfg.Observe(Event{Method: "huge warm-up", Stage: "start"})
	r.hugeCopy(ctx, src.Bucket, srcKey, dst.Bucket, dstKey, cfg.Size, auto, cfg.Concurrency)
	var best, autoSecs float64
	for _, rn := range runs {
		r.cfg.Observe(Event{Method: "huge " + rn.label, Stage: "start"})
		var row HugeRow
		for i := range max(1, cfg.Repeat) {
			try := r.hugeCopy(ctx, src.Bucket, srcKey, dst.Bucket, dstKey, cfg.Size, rn.partSize, cfg.Concurrency)
			if i == 0 || (try.Status == StatusOK && (row.Status != StatusOK || try.Seconds < row.Seconds)) {
				row = try
			}
			if try.Status == StatusSkipped {
				break
			}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		row.Label, row.Auto = rn.label, rn.auto
		report.Rows = append(report.Rows, row)
		if row.Status != StatusOK {
			continue
		}
		if rn.auto {
			autoSecs = row.Seconds
		} else if best == 0 || row.Seconds < best {
			best, report.BestPartSize = row.Seconds, row.PartSize
		}
	}
	if best > 0 && autoSecs > 0 {
		ratio := autoSecs / best
		report.AutoVsBest = &ratio
	}
	return report, nil
}

// hugeCopy copies one object with UploadPartCopy in parts of partSize,
// concurrency parts at a time, and checks the copy's size.
func (r *runner) hugeCopy(ctx context.Context, srcBucket, srcKey, dstBucket, dstKey string, size, partSize int64, concurrency int) HugeRow {
	row := HugeRow{PartSize: partSize, Status: StatusFailed}
	layout, err := parts.NewLayout(size, partSize)
	if err != nil {
		row.Status, row.Reason = StatusSkipped, oneLine(err)
		return row
	}
	if layout.PartSize != partSize {
		row.Status = StatusSkipped
		row.Reason = fmt.Sprintf("%s parts would be more than %d", units.HumanExact(partSize), parts.MaxParts)
		return row
	}
	row.Parts = int(layout.Count)
	counter := s3store.NewRequestCounter()
	client := r.cfg.Conn.Client(counter, 0)
	start := time.Now()
	err = multipartCopy(ctx, client, srcBucket, srcKey, dstBucket, dstKey, layout, concurrency)
	row.Seconds = time.Since(start).Seconds()
	row.Requests = counter.Counts()
	if err != nil {
		row.Reason = oneLine(err)
		return row
	}
	head, err := r.admin.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(dstBucket), Key: aws.String(dstKey)})
	if err != nil {
		row.Reason = oneLine(fmt.Errorf("check the copy: %w", err))
		return row
	}
	if got := aws.ToInt64(head.ContentLength); got != size {
		row.Reason = fmt.Sprintf("the copy has %d bytes, want %d", got, size)
		return row
	}
	row.Status = StatusOK
	row.MiBPerSecond = float64(size) / (1 << 20) / row.Seconds
	return row
}

func multipartCopy(ctx context.Context, client *s3.Client, srcBucket, srcKey, dstBucket, dstKey string, layout parts.Layout, concurrency int) error {
	op := fmt.Sprintf("copy s3://%s/%s to s3://%s/%s", srcBucket, srcKey, dstBucket, dstKey)
	up, err := client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(dstBucket), Key: aws.String(dstKey)})
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	done := make([]types.CompletedPart, layout.Count)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(concurrency)
	for p := range layout.All() {
		g.Go(func() error {
			out, err := client.UploadPartCopy(gctx, &s3.UploadPartCopyInput{
				Bucket: aws.String(dstBucket), Key: aws.String(dstKey), UploadId: up.UploadId,
				PartNumber:      aws.Int32(p.Number),
				CopySource:      aws.String(s3store.CopySource(srcBucket, srcKey)),
				CopySourceRange: aws.String(fmt.Sprintf("bytes=%d-%d", p.Offset, p.Last())),
			})
			if err != nil {
				return fmt.Errorf("part %d: %w", p.Number, err)
			}
			if out.CopyPartResult == nil {
				return fmt.Errorf("part %d: no ETag in the answer", p.Number)
			}
			done[p.Number-1] = types.CompletedPart{ETag: out.CopyPartResult.ETag, PartNumber: aws.Int32(p.Number)}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		abort(client, dstBucket, dstKey, up.UploadId)
		return fmt.Errorf("%s: %w", op, err)
	}
	_, err = client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket: aws.String(dstBucket), Key: aws.String(dstKey), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: done},
	})
	if err != nil {
		abort(client, dstBucket, dstKey, up.UploadId)
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}
