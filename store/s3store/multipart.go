package s3store

import (
	"context"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/s3bulk/s3bulk/store"
)

// CreateMultipart starts a multipart upload of key with meta.
func (s *Store) CreateMultipart(ctx context.Context, key string, meta store.Metadata) (string, error) {
	in := &s3.CreateMultipartUploadInput{
		Bucket:             aws.String(s.bucket),
		Key:                aws.String(key),
		ContentType:        optional(meta.ContentType),
		ContentEncoding:    optional(meta.ContentEncoding),
		ContentLanguage:    optional(meta.ContentLanguage),
		CacheControl:       optional(meta.CacheControl),
		ContentDisposition: optional(meta.ContentDisposition),
		StorageClass:       s3types.StorageClass(meta.StorageClass),
		Metadata:           meta.User,
	}
	out, err := s.c.s3.CreateMultipartUpload(ctx, in)
	if err != nil {
		return "", wrap(err, "create multipart upload", s.URL(key))
	}
	return aws.ToString(out.UploadId), nil
}

// UploadPart uploads part number (1-based) of size bytes from body.
func (s *Store) UploadPart(ctx context.Context, key, uploadID string, number int32, body io.ReadSeeker, size int64) (store.Part, error) {
	out, err := s.c.s3.UploadPart(ctx, &s3.UploadPartInput{
		Bucket:        aws.String(s.bucket),
		Key:           aws.String(key),
		UploadId:      aws.String(uploadID),
		PartNumber:    aws.Int32(number),
		Body:          body,
		ContentLength: aws.Int64(size),
	})
	if err != nil {
		return store.Part{}, wrap(err, fmt.Sprintf("upload part %d of", number), s.URL(key))
	}
	return store.Part{Number: number, ETag: trimETag(aws.ToString(out.ETag)), Size: size}, nil
}

// UploadPartCopy copies bytes first..last (inclusive) of src into part
// number. With src.IfMatch, a source that changed fails with
// store.ErrPreconditionFailed, so parts of two versions never mix.
func (s *Store) UploadPartCopy(ctx context.Context, key, uploadID string, number int32, src store.CopySource, first, last int64) (store.Part, error) {
	in := &s3.UploadPartCopyInput{
		Bucket:          aws.String(s.bucket),
		Key:             aws.String(key),
		UploadId:        aws.String(uploadID),
		PartNumber:      aws.Int32(number),
		CopySource:      aws.String(copySource(src.Bucket, src.Key)),
		CopySourceRange: aws.String(fmt.Sprintf("bytes=%d-%d", first, last)),
	}
	if src.IfMatch != "" {
		in.CopySourceIfMatch = aws.String(quoteETag(src.IfMatch))
	}
	out, err := s.c.s3.UploadPartCopy(ctx, in)
	if err != nil {
		e := wrap(err, fmt.Sprintf("copy part %d of", number), s.URL(key)).(*Error)
		e.Src = "s3://" + src.Bucket + "/" + src.Key
		return store.Part{}, e
	}
	etag := ""
	if out.CopyPartResult != nil {
		etag = trimETag(aws.ToString(out.CopyPartResult.ETag))
	}
	return store.Part{Number: number, ETag: etag, Size: last - first + 1}, nil
}

// CompleteMultipart assembles parts, which must be in ascending part order.
func (s *Store) CompleteMultipart(ctx context.Context, key, uploadID string, parts []store.Part) error {
	completed := make([]s3types.CompletedPart, len(parts))
	for i, p := range parts {
		completed[i] = s3types.CompletedPart{PartNumber: aws.Int32(p.Number), ETag: aws.String(quoteETag(p.ETag))}
	}
	_, err := s.c.s3.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket:          aws.String(s.bucket),
		Key:             aws.String(key),
		UploadId:        aws.String(uploadID),
		MultipartUpload: &s3types.CompletedMultipartUpload{Parts: completed},
	})
	return wrap(err, "complete multipart upload", s.URL(key))
}

// AbortMultipart aborts an upload and frees its parts. An upload that no
// longer exists is already in the state abort asks for, so it is not an
// error.
func (s *Store) AbortMultipart(ctx context.Context, key, uploadID string) error {
	_, err := s.c.s3.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{
		Bucket:   aws.String(s.bucket),
		Key:      aws.String(key),
		UploadId: aws.String(uploadID),
	})
	if err := wrap(err, "abort multipart upload", s.URL(key)); err != nil && !isCode(err, "NoSuchUpload") {
		return err
	}
	return nil
}

// ListMultipartUploads streams the in-progress uploads under prefix.
func (s *Store) ListMultipartUploads(ctx context.Context, prefix string, fn func(store.Upload) error) error {
	in := &s3.ListMultipartUploadsInput{Bucket: aws.String(s.bucket), MaxUploads: aws.Int32(pageSize)}
	if prefix != "" {
		in.Prefix = aws.String(prefix)
	}
	p := s3.NewListMultipartUploadsPaginator(s.c.s3, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return wrap(err, "list multipart uploads", s.URL(prefix))
		}
		for _, u := range page.Uploads {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("list multipart uploads %s: %w", s.URL(prefix), err)
			}
			up := store.Upload{Key: aws.ToString(u.Key), UploadID: aws.ToString(u.UploadId), Initiated: aws.ToTime(u.Initiated)}
			if err := fn(up); err != nil {
				return err
			}
		}
	}
	return nil
}

// ListParts returns the parts uploaded so far, in part order.
func (s *Store) ListParts(ctx context.Context, key, uploadID string) ([]store.Part, error) {
	var parts []store.Part
	p := s3.NewListPartsPaginator(s.c.s3, &s3.ListPartsInput{
		Bucket:   aws.String(s.bucket),
		Key:      aws.String(key),
		UploadId: aws.String(uploadID),
		MaxParts: aws.Int32(pageSize),
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, wrap(err, "list parts of", s.URL(key))
		}
		for _, part := range page.Parts {
			parts = append(parts, store.Part{
				Number: aws.ToInt32(part.PartNumber),
				ETag:   trimETag(aws.ToString(part.ETag)),
				Size:   aws.ToInt64(part.Size),
			})
		}
	}
	return parts, nil
}
