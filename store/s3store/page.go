package s3store

import (
	"context"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store/internal/wire"
)

// ListPage lists one page with one ListObjectsV2 request. Common prefixes
// of a delimited listing are merged into the byte order of the keys.
func (s *Store) ListPage(ctx context.Context, q store.ListQuery) (store.Page, error) {
	in := &s3.ListObjectsV2Input{
		Bucket:       aws.String(s.bucket),
		MaxKeys:      aws.Int32(pageSize),
		RequestPayer: s.payer,
	}
	if q.Prefix != "" {
		in.Prefix = aws.String(q.Prefix)
	}
	if q.Delimiter != "" {
		in.Delimiter = aws.String(q.Delimiter)
	}
	if q.Token != "" {
		in.ContinuationToken = aws.String(q.Token)
	} else if q.StartAfter != "" {
		in.StartAfter = aws.String(q.StartAfter)
	}
	out, err := s.c.s3.ListObjectsV2(ctx, in, append(slices.Clip(s.optFns), s.c.withListDecoder)...)
	if err != nil {
		return store.Page{}, wrap(err, "list", s.URL(q.Prefix))
	}
	if page, ok := out.ResultMetadata.Get(lightPage{}).(*store.Page); ok {
		return *page, nil
	}
	return sdkPage(out), nil
}

// withListDecoder has ListObjectsV2 answers decoded by listDecoder.
func (c *Client) withListDecoder(o *s3.Options) {
	o.APIOptions = append(o.APIOptions, c.addListDecoder)
}

// sdkPage is the page of an answer the SDK decoded.
func sdkPage(out *s3.ListObjectsV2Output) store.Page {
	objs := make([]store.Object, 0, len(out.Contents))
	for _, v := range out.Contents {
		objs = append(objs, store.Object{
			Key:          aws.ToString(v.Key),
			Size:         aws.ToInt64(v.Size),
			ModTime:      aws.ToTime(v.LastModified),
			ETag:         store.TrimETag(aws.ToString(v.ETag)),
			StorageClass: string(v.StorageClass),
		})
	}
	prefixes := make([]string, 0, len(out.CommonPrefixes))
	for _, p := range out.CommonPrefixes {
		prefixes = append(prefixes, aws.ToString(p.Prefix))
	}
	next := ""
	if aws.ToBool(out.IsTruncated) {
		next = aws.ToString(out.NextContinuationToken)
	}
	return wire.MergePage(objs, prefixes, next)
}
