package s3store

import (
	"context"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/s3bulk/s3bulk/store"
)

var _ store.Tagger = (*Store)(nil)

// taggingHeader is the x-amz-tagging header of a write that sets tags:
// nil when it sets none, or when they are too long for a header
// (store.Tags.FitsHeader), which the writer then sets with SetTags.
func taggingHeader(t store.Tags) *string {
	if len(t) == 0 || !t.FitsHeader() {
		return nil
	}
	return aws.String(t.Encode())
}

// Tags returns key's tag set with one GetObjectTagging (of the version
// the store is pinned to, if any: AtVersion).
func (s *Store) Tags(ctx context.Context, key string) (store.Tags, error) {
	out, err := s.c.s3.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{
		Bucket: aws.String(s.bucket), Key: aws.String(key), RequestPayer: s.payer, VersionId: optional(s.version),
	}, s.optFns...)
	if err != nil {
		return nil, wrap(err, "get tags of", s.URL(key))
	}
	t := make(store.Tags, len(out.TagSet))
	for _, tag := range out.TagSet {
		t[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
	}
	return t, nil
}

// SetTags replaces key's tag set with one PutObjectTagging.
func (s *Store) SetTags(ctx context.Context, key string, tags store.Tags) error {
	set := make([]s3types.Tag, 0, len(tags))
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		set = append(set, s3types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	_, err := s.c.s3.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{
		Bucket: aws.String(s.bucket), Key: aws.String(key), RequestPayer: s.payer,
		Tagging: &s3types.Tagging{TagSet: set},
	}, s.optFns...)
	return wrap(err, "set tags of", s.URL(key))
}
