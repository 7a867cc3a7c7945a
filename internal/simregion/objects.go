package simregion

import (
	"slices"
	"sync"

	"github.com/google/btree"
)

// object is what the region keeps of an object: its description, never its
// body.
type object struct {
	size        int64
	etag        string // quoted
	crc32       string // base64, "" when none was sent
	crc64nvme   string // base64, "" when none was sent
	contentType string
	// described: the body is the data set's pattern of size bytes (an
	// object of the set the region started with, or a copy of one), which
	// GetObject can serve; other bodies are not kept.
	described bool
	// deleted marks a key of the described set that was deleted.
	deleted bool
}

type entry struct {
	key string
	obj *object
}

func lessEntry(a, b entry) bool { return a.key < b.key }

// objects is every bucket's objects: the described set (sorted keys of
// one bucket, all alike) under a tree of what was written and deleted
// since.
type objects struct {
	mu      sync.RWMutex
	buckets map[string]*btree.BTreeG[entry] // nil map: every bucket exists
	anyOK   bool                            // every bucket exists (the fixture's way)

	setBucket string
	set       []string // sorted, unique
	setObj    *object
}

func newObjects(setBucket string, set []string, setObj *object, buckets []string) *objects {
	o := &objects{buckets: map[string]*btree.BTreeG[entry]{}, anyOK: buckets == nil,
		setBucket: setBucket, set: set, setObj: setObj}
	for _, b := range append(slices.Clone(buckets), setBucket) {
		if b != "" {
			o.buckets[b] = btree.NewG(32, lessEntry)
		}
	}
	return o
}

// tree returns bucket's tree, making it when every bucket exists; nil when
// the bucket does not exist. Called with mu held for writing when create.
func (o *objects) tree(bucket string, create bool) *btree.BTreeG[entry] {
	t := o.buckets[bucket]
	if t == nil && o.anyOK && create {
		t = btree.NewG(32, lessEntry)
		o.buckets[bucket] = t
	}
	return t
}

// exists reports whether bucket exists.
func (o *objects) exists(bucket string) bool {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return o.anyOK || o.buckets[bucket] != nil
}

// create makes bucket; false if it existed.
func (o *objects) create(bucket string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.buckets[bucket] != nil {
		return false
	}
	o.buckets[bucket] = btree.NewG(32, lessEntry)
	return true
}

// get returns the object at bucket/key.
func (o *objects) get(bucket, key string) (*object, bool) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return o.getLocked(bucket, key)
}

func (o *objects) getLocked(bucket, key string) (*object, bool) {
	if t := o.buckets[bucket]; t != nil {
		if e, ok := t.Get(entry{key: key}); ok {
			return e.obj, !e.obj.deleted
		}
	}
	if bucket == o.setBucket {
		if _, ok := slices.BinarySearch(o.set, key); ok {
			return o.setObj, true
		}
	}
	return nil, false
}

// put stores obj at bucket/key; false if the bucket does not exist.
func (o *objects) put(bucket, key string, obj *object) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	t := o.tree(bucket, true)
	if t == nil {
		return false
	}
	t.ReplaceOrInsert(entry{key: key, obj: obj})
	return true
}

var tombstone = &object{deleted: true}

// remove deletes bucket/key (nothing if it is not there).
func (o *objects) remove(bucket, key string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	t := o.buckets[bucket]
	if t == nil {
		return
	}
	if _, inSet := slices.BinarySearch(o.set, key); inSet && bucket == o.setBucket {
		t.ReplaceOrInsert(entry{key: key, obj: tombstone})
		return
	}
	t.Delete(entry{key: key})
}

// next returns the first live key of bucket at or after from (after it,
// when strict), with its object. Called with mu held.
func (o *objects) next(bucket, from string, strict bool) (string, *object, bool) {
	t := o.buckets[bucket]
	var set []string
	if bucket == o.setBucket {
		set = o.set
	}
	for {
		i, found := slices.BinarySearch(set, from)
		if found && strict {
			i++
		}
		var tk entry
		treeOK := false
		if t != nil {
			t.AscendGreaterOrEqual(entry{key: from}, func(e entry) bool {
				if strict && e.key == from {
					return true
				}
				tk, treeOK = e, true
				return false
			})
		}
		setOK := i < len(set)
		switch {
		case !setOK && !treeOK:
			return "", nil, false
		case treeOK && (!setOK || tk.key <= set[i]):
			if !tk.obj.deleted {
				return tk.key, tk.obj, true
			}
			from, strict = tk.key, true
		default:
			return set[i], o.setObj, true
		}
	}
}

// prefixEnd is the least string after every string that starts with p
// ("" when there is none).
func prefixEnd(p string) string {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return ""
}
