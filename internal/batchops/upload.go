package batchops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/s3bulk/s3bulk/store"
)

// DefaultPartSize is the part size of a manifest upload. A manifest line is
// about 60 bytes, so one part holds ~140,000 keys and 10,000 parts hold over
// a billion.
const DefaultPartSize int64 = 8 << 20

// minPartSize is S3's smallest part but the last.
const minPartSize int64 = 5 << 20

// abortTimeout bounds the clean-up of a failed upload after a cancel.
const abortTimeout = 30 * time.Second

// upload is an io.Writer that streams into one object: bytes collect in one
// part-sized buffer; when it fills, a multipart upload starts and the buffer
// goes up as a part and is reused. A small object is one Put at close. It
// keeps ctx because io.Writer has no place for one; it lives only for the
// duration of PutManifest.
type upload struct {
	ctx      context.Context
	dst      store.Store
	key      string
	buf      []byte
	uploadID string
	parts    []store.Part
	size     int64
}

func newUpload(ctx context.Context, dst store.Store, key string, partSize int64) *upload {
	if partSize <= 0 {
		partSize = DefaultPartSize
	}
	partSize = max(partSize, minPartSize)
	return &upload{ctx: ctx, dst: dst, key: key, buf: make([]byte, 0, partSize)}
}

func (u *upload) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		room := cap(u.buf) - len(u.buf)
		if room == 0 {
			if err := u.flushPart(); err != nil {
				return n, err
			}
			continue
		}
		k := min(room, len(p))
		u.buf = append(u.buf, p[:k]...)
		p = p[k:]
		n += k
	}
	return n, nil
}

func (u *upload) flushPart() error {
	mp, ok := u.dst.(store.Multipart)
	if !ok {
		return fmt.Errorf("upload %s: the manifest outgrew one part and the store has no multipart upload", u.dst.URL(u.key))
	}
	if u.uploadID == "" {
		id, err := mp.CreateMultipart(u.ctx, u.key, store.Metadata{ContentType: "text/csv"})
		if err != nil {
			return fmt.Errorf("upload %s: %w", u.dst.URL(u.key), err)
		}
		u.uploadID = id
	}
	n := int32(len(u.parts) + 1)
	part, err := mp.UploadPart(u.ctx, u.key, u.uploadID, n, bytes.NewReader(u.buf), int64(len(u.buf)))
	if err != nil {
		return fmt.Errorf("upload %s part %d: %w", u.dst.URL(u.key), n, err)
	}
	u.parts = append(u.parts, part)
	u.size += int64(len(u.buf))
	u.buf = u.buf[:0]
	return nil
}

func (u *upload) close() error {
	if u.uploadID == "" {
		err := u.dst.Put(u.ctx, u.key, bytes.NewReader(u.buf), int64(len(u.buf)), store.Metadata{ContentType: "text/csv"})
		if err != nil {
			return fmt.Errorf("upload %s: %w", u.dst.URL(u.key), err)
		}
		return nil
	}
	if len(u.buf) > 0 {
		if err := u.flushPart(); err != nil {
			return errors.Join(err, u.abort())
		}
	}
	if err := u.dst.(store.Multipart).CompleteMultipart(u.ctx, u.key, u.uploadID, u.parts); err != nil {
		return errors.Join(fmt.Errorf("upload %s: %w", u.dst.URL(u.key), err), u.abort())
	}
	return nil
}

// abort leaves nothing behind: no object (nothing was Put) and no
// multipart upload that would be billed as stored parts.
func (u *upload) abort() error {
	u.buf = nil
	if u.uploadID == "" {
		return nil
	}
	// The run's ctx may be what failed; the abort must still be sent.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(u.ctx), abortTimeout)
	defer cancel()
	if err := u.dst.(store.Multipart).AbortMultipart(ctx, u.key, u.uploadID); err != nil {
		return fmt.Errorf("abort upload %s: %w", u.dst.URL(u.key), err)
	}
	u.uploadID = ""
	return nil
}
