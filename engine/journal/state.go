package journal

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/store"
)

// Upload is a checkpointed multipart upload: what was being uploaded where,
// and, in a State, the parts the journal saw finish. It is the engine's, so
// that a Writer is an engine.Journal.
type Upload = engine.Upload

// Stats counts what a journal holds.
type Stats struct {
	Records int // records read, header excluded
	Done    int // objects whose last record is done
	Failed  int // objects whose last record is failed
	Uploads int // multipart uploads neither completed nor aborted
	// Interrupted counts the keys whose last version write was begun
	// (intent) and never recorded done.
	Interrupted int
}

// State is what a journal says about earlier runs of its job. It does not
// change once loaded, and is safe for concurrent use.
type State struct {
	fingerprint string
	// done is sorted by key, one entry per finished object.
	done    []entry
	uploads []Upload          // open uploads, by DstKey then UploadID
	latest  map[string]Upload // last open upload started per DstKey
	// intents holds, by destination key, the version writes begun and not
	// recorded done: a key's last intent, while no done record of its
	// version follows it.
	intents map[string]engine.VersionWrite
	stats   Stats
	notes   []string
}

// entry is one finished object: 24 bytes, see the package documentation.
type entry struct {
	hi, lo uint64 // hash of (source key, destination key)
	ver    uint64 // hash of the source's size and ETag or mtime; never 0
}

// Load reads the journal at path. A torn or damaged last record is left out
// and reported in Notes; damage anywhere else is an error wrapping
// ErrCorrupt. Load does not check the journal's job: compare Fingerprint,
// or use Open.
func Load(path string) (*State, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load journal: %w", err)
	}
	defer f.Close()
	st, _, err := decode(f)
	if err != nil {
		return nil, fmt.Errorf("load journal %s: %w", path, err)
	}
	return st, nil
}

// Fingerprint is the job the journal belongs to; empty for an empty journal.
func (s *State) Fingerprint() string { return s.fingerprint }

// Done reports whether the journal recorded src as copied to dstKey, and src
// is still the same object: same size and ETag (or modification time when
// the source has no ETag, as local files). A source changed since is not
// done.
func (s *State) Done(src store.Object, dstKey string) bool {
	hi, lo := keyHash(versionKey(src.Key, src.VersionID), dstKey)
	i, ok := slices.BinarySearchFunc(s.done, entry{hi: hi, lo: lo}, compareKey)
	return ok && s.done[i].ver == version(src.Size, src.ETag, src.ModTime)
}

// Upload returns the multipart upload to dstKey most recently started and
// neither completed nor aborted, with its finished parts. The caller checks
// Upload.Matches against the source and reconciles the parts with
// ListParts.
func (s *State) Upload(dstKey string) (Upload, bool) {
	u, ok := s.latest[dstKey]
	u.Parts = maps.Clone(u.Parts)
	return u, ok
}

// Uploads returns every upload neither completed nor aborted, sorted by
// destination key, including uploads superseded by a later one to the same
// key: whatever is not resumed should be aborted so no parts are left
// billed.
func (s *State) Uploads() []Upload {
	us := slices.Clone(s.uploads)
	for i := range us {
		us[i].Parts = maps.Clone(us[i].Parts)
	}
	return us
}

// Interrupted returns the last version write to dstKey that the journal
// shows begun (an intent) and not done: the run stopped before it could
// record it, after or before the write landed.
func (s *State) Interrupted(dstKey string) (engine.VersionWrite, bool) {
	w, ok := s.intents[dstKey]
	return w, ok
}

// Stats counts the journal's contents.
func (s *State) Stats() Stats { return s.stats }

// Notes says what Load ignored (a torn last record), for the user.
func (s *State) Notes() []string { return slices.Clone(s.notes) }

func compareKey(a, b entry) int {
	if c := cmp.Compare(a.hi, b.hi); c != 0 {
		return c
	}
	return cmp.Compare(a.lo, b.lo)
}

// keyHash identifies an object's (source, destination) pair. 128 bits make
// a collision between two pairs of a job of billions of objects negligible;
// SHA-256 rather than a faster hash because keys can be chosen by whoever
// writes to the source bucket.
func keyHash(src, dst string) (hi, lo uint64) {
	b := make([]byte, 0, binary.MaxVarintLen64+len(src)+len(dst))
	b = binary.AppendUvarint(b, uint64(len(src)))
	b = append(b, src...)
	b = append(b, dst...)
	sum := sha256.Sum256(b)
	return binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:16])
}

// versionKey is what identifies a source in keyHash: its key, and its
// version ID when the job copies versions (a NUL, which no S3 key holds,
// keeps "a" of version "b" apart from a key "a\x00b").
func versionKey(key, versionID string) string {
	if versionID == "" {
		return key
	}
	return key + "\x00" + versionID
}

// version identifies one version of a source object. S3 objects have an
// ETag; local files do not, and their modification time stands in. The
// result is never 0, which marks a failed object while loading.
func version(size int64, etag string, mtime time.Time) uint64 {
	b := make([]byte, 0, 9+len(etag))
	b = binary.BigEndian.AppendUint64(b, uint64(size))
	if etag != "" {
		b = append(b, 'e')
		b = append(b, etag...)
	} else {
		b = append(b, 'm')
		b = binary.BigEndian.AppendUint64(b, uint64(unixNano(mtime)))
	}
	sum := sha256.Sum256(b)
	return max(1, binary.BigEndian.Uint64(sum[:8]))
}

// loading is a State being built. Records are kept in file order with
// their position so that sorting can find the last record of each object.
type loading struct {
	st      *State
	objects []loadEntry
	uploads map[string]*openUpload
	intents map[string]engine.VersionWrite
	seq     int
}

type loadEntry struct {
	entry
	pos int
}

type openUpload struct {
	Upload
	pos    int
	closed bool
}

func (l *loading) apply(r *record) {
	l.seq++
	l.st.stats.Records++
	switch r.T {
	case kindDone, kindFailed:
		hi, lo := keyHash(versionKey(r.src(), r.Version), r.dst())
		var ver uint64
		if r.T == kindDone {
			ver = version(r.Size, r.ETag, fromUnixNano(r.MTime))
		}
		l.objects = append(l.objects, loadEntry{entry{hi, lo, ver}, l.seq})
		if w, ok := l.intents[r.dst()]; ok && r.T == kindDone && w.Src.Key == r.src() && w.Src.VersionID == r.Version {
			delete(l.intents, r.dst())
		}
	case kindIntent:
		l.intents[r.dst()] = engine.VersionWrite{
			Src:          store.Object{Key: r.src(), VersionID: r.Version, Size: r.Size, ETag: r.ETag},
			DeleteMarker: r.Marker, DstKey: r.dst(), After: r.After, At: fromUnixNano(r.At),
		}
	case kindUpload:
		l.uploads[r.Upload] = &openUpload{Upload: Upload{
			SrcKey: r.src(), DstKey: r.dst(), UploadID: r.Upload, PartSize: r.PartSize,
			Size: r.Size, ETag: r.ETag, ModTime: fromUnixNano(r.MTime),
			Parts: map[int32]store.Part{},
		}, pos: l.seq}
	case kindPart:
		// A part of an upload the journal never saw start, or saw end, tells
		// nothing to resume.
		if u := l.uploads[r.Upload]; u != nil && !u.closed {
			u.Parts[r.Part] = store.Part{Number: r.Part, ETag: r.ETag, Size: r.Size}
		}
	case kindComplete, kindAbort:
		if u := l.uploads[r.Upload]; u != nil {
			// Keep the id, dropping the parts: a late part record of a
			// finished upload must not reopen it.
			u.closed, u.Parts = true, nil
		}
	}
}

func (l *loading) finish() *State {
	st := l.st
	slices.SortFunc(l.objects, func(a, b loadEntry) int {
		if c := compareKey(a.entry, b.entry); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos)
	})
	n := 0
	for i, e := range l.objects {
		if i+1 < len(l.objects) && compareKey(e.entry, l.objects[i+1].entry) == 0 {
			continue // a later record of the same object decides
		}
		if e.ver == 0 {
			st.stats.Failed++
		} else {
			n++
		}
	}
	// An exact-size copy, so the temporary positions are freed.
	st.done = make([]entry, 0, n)
	for i, e := range l.objects {
		if e.ver != 0 && (i+1 == len(l.objects) || compareKey(e.entry, l.objects[i+1].entry) != 0) {
			st.done = append(st.done, e.entry)
		}
	}
	st.stats.Done = len(st.done)
	l.objects = nil

	st.latest = map[string]Upload{}
	latestPos := map[string]int{}
	for _, u := range l.uploads {
		if u.closed {
			continue
		}
		st.uploads = append(st.uploads, u.Upload)
		if p, ok := latestPos[u.DstKey]; !ok || u.pos > p {
			st.latest[u.DstKey], latestPos[u.DstKey] = u.Upload, u.pos
		}
	}
	slices.SortFunc(st.uploads, func(a, b Upload) int {
		return cmp.Or(strings.Compare(a.DstKey, b.DstKey), strings.Compare(a.UploadID, b.UploadID))
	})
	st.stats.Uploads = len(st.uploads)
	st.intents, l.intents = l.intents, nil
	st.stats.Interrupted = len(st.intents)
	return st
}

// decode reads a whole journal. end is the offset just past the last good
// record: where Open truncates and appends.
func decode(r io.Reader) (st *State, end int64, err error) {
	l := &loading{st: &State{}, uploads: map[string]*openUpload{}, intents: map[string]engine.VersionWrite{}}
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		lineNo  int
		off     int64
		bad     error // the previous line was bad; fatal unless it was the last
		badLine int
	)
	for {
		line, complete, long, rerr := readLine(br)
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return nil, 0, rerr
		}
		if len(line) == 0 && !complete && !long {
			break // end of file
		}
		lineNo++
		if bad != nil {
			return nil, 0, fmt.Errorf("line %d: %v, and more records follow: %w", badLine, bad, ErrCorrupt)
		}
		size := int64(len(line))
		if complete {
			size++
		}
		switch {
		case long:
			bad = fmt.Errorf("line longer than %d bytes", maxLine)
		case !complete:
			bad = errors.New("torn record")
		case lineNo == 1:
			h, err := decodeHeader(line)
			if err != nil {
				return nil, 0, err
			}
			l.st.fingerprint = h.Job
		default:
			rec, err := decodeRecord(line)
			if err != nil {
				bad = err
			} else {
				l.apply(&rec)
			}
		}
		if bad != nil {
			badLine = lineNo
			if lineNo == 1 && (long || !headerPrefix(line)) {
				return nil, 0, ErrNotJournal
			}
		} else {
			off += size
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
	}
	if bad != nil {
		l.st.notes = append(l.st.notes, fmt.Sprintf("line %d: ignored the last record (%v): the run that wrote it was interrupted while writing", badLine, bad))
	}
	return l.finish(), off, nil
}

// headerPrefix reports whether a torn first line could be the start of a
// header.
func headerPrefix(line []byte) bool {
	n := min(len(line), len(headerStart))
	return string(line[:n]) == string(headerStart[:n])
}

// readLine returns the next line without its newline, and whether it had
// one. A line longer than maxLine is read and dropped, and reported as long.
func readLine(br *bufio.Reader) (line []byte, complete, long bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if !long {
			buf = append(buf, chunk...)
			if len(buf) > maxLine+1 {
				long, buf = true, nil
			}
		}
		switch {
		case err == nil:
			if long {
				return nil, true, true, nil
			}
			return buf[: len(buf)-1 : len(buf)-1], true, false, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return buf, false, long, err
		}
	}
}
