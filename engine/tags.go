package engine

import (
	"context"
	"errors"
	"log/slog"

	"github.com/s3bulk/s3bulk/store"
)

// Tags travel with an object on every path that writes it from another
// S3 object. A server-side CopyObject keeps them by itself (S3's tagging
// directive COPY), at no cost; the paths that write a new object from the
// source's bytes or parts — a multipart copy (UploadPartCopy), a stream
// between two endpoints — read them from the source (GetObjectTagging)
// and write them with the object: in the x-amz-tagging header of its
// PutObject or CreateMultipartUpload when they fit there
// (store.Tags.FitsHeader), else with PutObjectTagging once the object is
// complete and before it counts as done.

// CopyProps says which properties of an S3 source object a copy to S3
// keeps, as the AWS CLI v2's --copy-props does; it applies only to copies
// from S3 to S3.
type CopyProps int

const (
	// CopyPropsDefault keeps the content headers, the user metadata and
	// the tags.
	CopyPropsDefault CopyProps = iota
	// CopyPropsMetadataDirective keeps the content headers and the user
	// metadata, not the tags.
	CopyPropsMetadataDirective
	// CopyPropsNone keeps none of them.
	CopyPropsNone
)

// String is the name --copy-props takes.
func (p CopyProps) String() string {
	switch p {
	case CopyPropsMetadataDirective:
		return "metadata-directive"
	case CopyPropsNone:
		return "none"
	}
	return "default"
}

// copyTags is the tagging of a server-side CopyObject of the run: nil
// keeps the source's tags (S3's default, at no cost), otherwise the set
// that replaces them.
func (e *executor) copyTags() store.Tags {
	switch {
	case e.opts.Tags != nil:
		return e.opts.Tags
	case e.opts.Props != CopyPropsDefault:
		return store.Tags{}
	}
	return nil
}

// writeTags returns the tags of a write of t made from the source's bytes
// or parts (an upload, a stream, a multipart copy): Options.Tags when set,
// else, from an S3 source under CopyPropsDefault, the source's (tagsOf).
func (e *executor) writeTags(ctx context.Context, t Task, count int, always bool) (store.Tags, error) {
	switch {
	case e.opts.Tags != nil:
		return e.opts.Tags, nil
	case e.opts.Props != CopyPropsDefault:
		return nil, nil
	}
	return e.sourceTags(ctx, t, count, always)
}

// sourceTags returns the tags a write of t made from the source's bytes
// or parts carries: the source's, read with one request. count is what
// the source's HEAD or GET said of them (store.Metadata.TagCount); with
// always false a count of 0 is believed and nothing is read (a small
// stream, whose GET said), otherwise they are read whatever it says (a
// multipart write, for which one request more is nothing). It returns nil
// when there is nothing to carry.
//
// A source without object tagging, or with a tag set S3 would refuse, is
// copied without its tags, and the run says so once.
func (e *executor) sourceTags(ctx context.Context, t Task, count int, always bool) (store.Tags, error) {
	if e.job.Src.Loc.Local || (count == 0 && !always) {
		return nil, nil
	}
	tg, ok := e.source(t).(store.Tagger)
	if !ok {
		return nil, nil
	}
	var tags store.Tags
	err := e.do(ctx, func(ctx context.Context) error {
		var err error
		tags, err = tg.Tags(ctx, t.SrcKey)
		return err
	})
	switch {
	case errors.Is(err, store.ErrNotImplemented):
		e.sayOnce("tags-unreadable", slog.LevelWarn, "tags not carried: the source has no object tagging",
			"src", e.job.Src.Loc.String(), "err", err)
		return nil, nil
	case err != nil:
		return nil, &TagsError{Op: "read the source's tags", Err: err}
	case len(tags) == 0:
		return nil, nil
	}
	if err := tags.Check(); err != nil {
		e.sayOnce("tags-over-limits", slog.LevelWarn, "tags not carried: the tag set is over S3's limits",
			"src", t.Src, "err", err)
		return nil, nil
	}
	return tags, nil
}

// lateTags sets tags on the object just written under key when they were
// too long to go with the write itself (store.Tags.FitsHeader).
func (e *executor) lateTags(ctx context.Context, key string, tags store.Tags) error {
	if len(tags) == 0 || tags.FitsHeader() {
		return nil
	}
	tg, ok := e.job.Dst.Store.(store.Tagger)
	if !ok {
		return nil
	}
	err := e.do(ctx, func(ctx context.Context) error { return tg.SetTags(ctx, key, tags) })
	if err != nil {
		return &TagsError{Op: "set the tags", Err: err}
	}
	return nil
}

// taggedWrite marks the failure of a write that carried tags in its
// header when the server says it does not implement something: some
// S3-compatible servers refuse x-amz-tagging.
func taggedWrite(err error, tags store.Tags) error {
	if err != nil && len(tags) > 0 && tags.FitsHeader() && errors.Is(err, store.ErrNotImplemented) {
		return &TagsError{Op: "write with tags", Err: err}
	}
	return err
}

// TagsError is the failure of an object's tags alone: they could not be
// read from the source or set on the destination.
type TagsError struct {
	Op  string
	Err error
}

func (e *TagsError) Error() string { return prefixOnce(e.Op, e.Err) }
func (e *TagsError) Unwrap() error { return e.Err }

// tagsDiffer reports whether the source's object srcKey and the
// destination's dstKey have different tags (sync's CompareTags).
func (e *executor) tagsDiffer(ctx context.Context, srcKey, dstKey string) (bool, error) {
	st, ok1 := e.job.Src.Store.(store.Tagger)
	dt, ok2 := e.job.Dst.Store.(store.Tagger)
	if !ok1 || !ok2 {
		return false, errors.New("a side keeps no tags")
	}
	var a, b store.Tags
	err := e.do(ctx, func(ctx context.Context) error {
		var err error
		a, err = st.Tags(ctx, srcKey)
		return err
	})
	if err == nil {
		err = e.do(ctx, func(ctx context.Context) error {
			var err error
			b, err = dt.Tags(ctx, dstKey)
			return err
		})
	}
	return err == nil && !a.Equal(b), err
}
