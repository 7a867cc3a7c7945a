package s3store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3bulk/s3bulk/store"
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
	out, err := s.c.s3.ListObjectsV2(ctx, in, s.optFns...)
	if err != nil {
		return store.Page{}, wrap(err, "list", s.URL(q.Prefix))
	}
	objs, prefixes := out.Contents, out.CommonPrefixes
	page := store.Page{Objects: make([]store.Object, 0, len(objs)+len(prefixes))}
	for len(objs) > 0 || len(prefixes) > 0 {
		if len(prefixes) > 0 && (len(objs) == 0 || aws.ToString(prefixes[0].Prefix) < aws.ToString(objs[0].Key)) {
			page.Objects = append(page.Objects, store.Object{Key: aws.ToString(prefixes[0].Prefix), IsPrefix: true})
			prefixes = prefixes[1:]
			continue
		}
		v := objs[0]
		objs = objs[1:]
		page.Objects = append(page.Objects, store.Object{
			Key:          aws.ToString(v.Key),
			Size:         aws.ToInt64(v.Size),
			ModTime:      aws.ToTime(v.LastModified),
			ETag:         trimETag(aws.ToString(v.ETag)),
			StorageClass: string(v.StorageClass),
		})
	}
	if aws.ToBool(out.IsTruncated) {
		page.Next = aws.ToString(out.NextContinuationToken)
	}
	return page, nil
}
