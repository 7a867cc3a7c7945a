package storetest_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/storetest"
)

// TestSuiteAgainstAReferenceStore runs the suite, with every capability
// claimed, against memStore: a few lines that follow the S3 semantics
// literally. It checks the suite's own expectations, including the ETag and
// metadata subtests that the local store does not claim.
func TestSuiteAgainstAReferenceStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return &memStore{objects: map[string]memObject{}}
	}, storetest.Caps{ETags: true, Metadata: true})
}

type memObject struct {
	data []byte
	etag string
	mod  time.Time
	meta store.Metadata
}

// memStore is an in-memory store with S3 semantics.
type memStore struct {
	mu      sync.Mutex
	objects map[string]memObject
}

func (m *memStore) URL(key string) string { return "mem://" + key }

func (m *memStore) List(ctx context.Context, prefix, delim string, fn func(store.Object) error) error {
	m.mu.Lock()
	keys := slices.Sorted(maps.Keys(m.objects))
	objs := maps.Clone(m.objects)
	m.mu.Unlock()
	last := ""
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("list mem://%s: %w", prefix, err)
		}
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		o := store.Object{Key: k, Size: int64(len(objs[k].data)), ModTime: objs[k].mod, ETag: objs[k].etag}
		if i := strings.Index(k[len(prefix):], delim); delim != "" && i >= 0 {
			cp := k[:len(prefix)+i+len(delim)]
			if cp == last {
				continue
			}
			last = cp
			o = store.Object{Key: cp, IsPrefix: true}
		}
		if err := fn(o); err != nil {
			return err
		}
	}
	return nil
}

func (m *memStore) Head(_ context.Context, key string) (store.Object, store.Metadata, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objects[key]
	if !ok {
		return store.Object{}, store.Metadata{}, fmt.Errorf("head mem://%s: %w", key, store.ErrNotFound)
	}
	return store.Object{Key: key, Size: int64(len(o.data)), ModTime: o.mod, ETag: o.etag}, o.meta, nil
}

func (m *memStore) Get(_ context.Context, key string, off, length int64, ifMatch string) (io.ReadCloser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objects[key]
	switch {
	case !ok:
		return nil, fmt.Errorf("get mem://%s: %w", key, store.ErrNotFound)
	case ifMatch != "" && ifMatch != o.etag:
		return nil, fmt.Errorf("get mem://%s: %w", key, store.ErrPreconditionFailed)
	case off < 0 || off > int64(len(o.data)):
		return nil, fmt.Errorf("get mem://%s: invalid range", key)
	}
	end := int64(len(o.data))
	if length >= 0 {
		end = min(end, off+length)
	}
	return io.NopCloser(bytes.NewReader(o.data[off:end])), nil
}

func (m *memStore) Put(_ context.Context, key string, body io.Reader, size int64, meta store.Metadata) error {
	data, err := io.ReadAll(body)
	if err != nil {
		return fmt.Errorf("put mem://%s: %w", key, err)
	}
	if int64(len(data)) != size {
		return fmt.Errorf("put mem://%s: body of %d bytes, want %d", key, len(data), size)
	}
	m.store(key, data, meta)
	return nil
}

func (m *memStore) store(key string, data []byte, meta store.Metadata) {
	sum := md5.Sum(data)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.objects[key] = memObject{data: data, etag: hex.EncodeToString(sum[:]), mod: time.Now(), meta: meta}
}

func (m *memStore) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.objects, key)
	return nil
}

func (m *memStore) CreateTemp(_ context.Context, key string, size int64) (store.TempFile, error) {
	return &memTemp{m: m, key: key, data: make([]byte, size)}, nil
}

type memTemp struct {
	m    *memStore
	key  string
	mu   sync.Mutex
	data []byte
	done bool // committed or aborted
	ok   bool // committed
}

func (f *memTemp) WriteAt(b []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done || off < 0 || off+int64(len(b)) > int64(len(f.data)) {
		return 0, errors.New("write outside the temp file, or after it was closed")
	}
	return copy(f.data[off:], b), nil
}

func (f *memTemp) ReadAt(b []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if off < 0 || off > int64(len(f.data)) {
		return 0, errors.New("read outside the temp file")
	}
	n := copy(b, f.data[off:])
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

func (f *memTemp) Commit() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		if f.ok {
			return nil
		}
		return errors.New("commit after abort")
	}
	f.done, f.ok = true, true
	f.m.store(f.key, f.data, store.Metadata{})
	return nil
}

func (f *memTemp) Abort() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.done = true
	return nil
}
