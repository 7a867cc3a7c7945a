package journal

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"time"
	"unicode/utf8"
)

// Format and Version are what a journal's header line says it is.
// Version 2 added intent records (cp --all-versions); a version 1 journal
// reads as before, and an s3bulk that reads only version 1 refuses a
// version 2 journal as newer rather than as damaged. A version 1 journal
// that a run of this s3bulk resumes keeps its header.
const (
	Format  = "s3bulk-journal"
	Version = 2
)

// Errors callers can test with errors.Is.
var (
	// ErrOtherJob: the journal was written by a different command (other
	// source, destination or options).
	ErrOtherJob = errors.New("journal belongs to another job")
	// ErrVersion: the journal was written by a newer s3bulk.
	ErrVersion = errors.New("unsupported journal version")
	// ErrNotJournal: the file is not a journal at all.
	ErrNotJournal = errors.New("not an s3bulk journal")
	// ErrCorrupt: a record other than the last is damaged.
	ErrCorrupt = errors.New("corrupt journal")
	// ErrClosed: the writer was closed.
	ErrClosed = errors.New("journal closed")
	// ErrLocked: another process has the journal open for writing.
	ErrLocked = errors.New("journal in use by another process")
)

// Record kinds, the "t" field.
const (
	kindDone     = "done"
	kindFailed   = "failed"
	kindUpload   = "mpu"
	kindPart     = "part"
	kindComplete = "complete"
	kindAbort    = "abort"
	kindIntent   = "intent"
)

// maxErrLen bounds the error text kept in a failed record: enough to say
// why, short enough that a run of failures does not bloat the journal.
const maxErrLen = 512

// maxLine bounds one line. The longest real record is two 1 KiB keys in
// base64, an ETag, an upload id and an error text, far below it.
const maxLine = 64 << 10

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// crcSuffix is what ends every line: `,"crc":"xxxxxxxx"}`.
const (
	crcPrefix = `,"crc":"`
	crcLen    = len(crcPrefix) + 8 + len(`"}`)
)

// headerStart is how every header line begins; a torn first line is only
// taken for a torn header when it agrees with it, so a file that is not a
// journal is never truncated by Open.
var headerStart = []byte(`{"format":"` + Format + `",`)

type header struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Job     string `json:"job"`
}

// record is the union of every record kind; fields a kind does not use are
// left out of its line.
type record struct {
	T      string `json:"t"`
	Src    string `json:"src,omitempty"`
	SrcB64 []byte `json:"src_b64,omitempty"`
	Dst    string `json:"dst,omitempty"`
	// Version is the source's version ID, for a copy of versions: each
	// version of a key is an object of its own.
	Version  string `json:"version,omitempty"`
	DstB64   []byte `json:"dst_b64,omitempty"`
	Size     int64  `json:"size,omitempty"`
	ETag     string `json:"etag,omitempty"`
	MTime    int64  `json:"mtime,omitempty"` // Unix nanoseconds; 0 when unknown
	Upload   string `json:"upload,omitempty"`
	PartSize int64  `json:"part_size,omitempty"`
	Part     int32  `json:"part,omitempty"`
	// DstVersion is the version ID the destination gave a version copied
	// (done). After, Marker and At are an intent's: the destination
	// version the write follows, a delete marker to recreate, and when
	// (Unix nanoseconds).
	DstVersion string `json:"dst_version,omitempty"`
	After      string `json:"after,omitempty"`
	Marker     bool   `json:"marker,omitempty"`
	At         int64  `json:"at,omitempty"`
	Err        string `json:"err,omitempty"`
}

func (r *record) setSrc(k string) {
	if utf8.ValidString(k) {
		r.Src = k
	} else {
		r.SrcB64 = []byte(k)
	}
}

func (r *record) setDst(k string) {
	if utf8.ValidString(k) {
		r.Dst = k
	} else {
		r.DstB64 = []byte(k)
	}
}

func (r *record) src() string {
	if r.SrcB64 != nil {
		return string(r.SrcB64)
	}
	return r.Src
}

func (r *record) dst() string {
	if r.DstB64 != nil {
		return string(r.DstB64)
	}
	return r.Dst
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// appendLine appends v as one journal line: its JSON with a CRC field
// added last, and a newline.
func appendLine(dst []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	// Every value written is a non-empty object, so the CRC field always
	// follows another field.
	body := b[:len(b)-1]
	sum := crc32.Checksum(body, castagnoli)
	dst = append(dst, body...)
	dst = append(dst, crcPrefix...)
	dst = hex.AppendEncode(dst, []byte{byte(sum >> 24), byte(sum >> 16), byte(sum >> 8), byte(sum)})
	return append(dst, "\"}\n"...), nil
}

// checkLine verifies a line's CRC; line has no newline.
func checkLine(line []byte) error {
	if len(line) < crcLen+2 || !bytes.HasPrefix(line[len(line)-crcLen:], []byte(crcPrefix)) || !bytes.HasSuffix(line, []byte(`"}`)) {
		return errors.New("no crc field")
	}
	body := line[:len(line)-crcLen]
	var want [4]byte
	hexSum := line[len(body)+len(crcPrefix) : len(line)-2]
	if n, err := hex.Decode(want[:], hexSum); err != nil || n != 4 {
		return errors.New("malformed crc field")
	}
	got := crc32.Checksum(body, castagnoli)
	if got != uint32(want[0])<<24|uint32(want[1])<<16|uint32(want[2])<<8|uint32(want[3]) {
		return errors.New("crc mismatch")
	}
	return nil
}

// decodeRecord checks and parses one record line (without its newline).
func decodeRecord(line []byte) (record, error) {
	var r record
	if err := checkLine(line); err != nil {
		return r, err
	}
	if err := json.Unmarshal(line, &r); err != nil {
		return r, fmt.Errorf("bad json: %w", err)
	}
	if err := r.validate(); err != nil {
		return r, err
	}
	return r, nil
}

func (r *record) validate() error {
	switch r.T {
	case kindDone, kindFailed:
		if r.src() == "" || r.dst() == "" {
			return fmt.Errorf("%s record without keys", r.T)
		}
	case kindIntent:
		if r.src() == "" || r.dst() == "" || r.Version == "" {
			return errors.New("intent record without keys or version")
		}
	case kindUpload:
		if r.dst() == "" || r.Upload == "" || r.PartSize <= 0 {
			return errors.New("mpu record without key, upload id or part size")
		}
	case kindPart:
		if r.Upload == "" || r.Part < 1 {
			return errors.New("part record without upload id or part number")
		}
	case kindComplete, kindAbort:
		if r.Upload == "" {
			return fmt.Errorf("%s record without upload id", r.T)
		}
	default:
		return fmt.Errorf("unknown record type %q", r.T)
	}
	if r.Size < 0 {
		return errors.New("negative size")
	}
	return nil
}

// decodeHeader checks and parses the first line (without its newline).
func decodeHeader(line []byte) (header, error) {
	var h header
	if !bytes.HasPrefix(line, headerStart) {
		return h, ErrNotJournal
	}
	if err := checkLine(line); err != nil {
		return h, fmt.Errorf("header: %v: %w", err, ErrCorrupt)
	}
	if err := json.Unmarshal(line, &h); err != nil {
		return h, fmt.Errorf("header: bad json: %v: %w", err, ErrCorrupt)
	}
	switch {
	case h.Format != Format:
		return h, ErrNotJournal
	case h.Version > Version:
		return h, fmt.Errorf("version %d, this s3bulk reads version %d: %w", h.Version, Version, ErrVersion)
	case h.Version < 1:
		return h, fmt.Errorf("header: version %d: %w", h.Version, ErrCorrupt)
	}
	return h, nil
}
