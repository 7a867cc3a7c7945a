package manifest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/s3bulk/s3bulk/store"
)

// MaxKeyLen is the longest key S3 takes, in bytes.
const MaxKeyLen = 1024

// maxLine bounds a key list's line: a Batch Operations line is a bucket,
// a URL-encoded key (three bytes a byte at worst) and a version id.
const maxLine = 64 + 3*MaxKeyLen + 1024

// KeyList is a list of keys read from a file or standard input, one a
// line, in one of two forms chosen by its first line that is not empty:
//
//   - keys relative to the source's prefix, as they are, one a line
//     (a trailing "\r" is dropped; empty lines are skipped);
//   - S3 Batch Operations CSV manifest lines, `bucket,key[,version]`, with
//     URL-encoded keys that are whole keys of the bucket: a first line
//     whose text before its first comma is a valid bucket name, or a file
//     whose name ends in ".csv", is read this way. Every line must then
//     name the source bucket.
type KeyList struct {
	name    string
	path    string // the file read, a temporary copy for standard input
	temp    bool
	bucket  string
	base    string
	csv     bool
	entries int64
}

// OpenKeyList checks the key list name (a file, or "-" for stdin, which is
// copied to a temporary file on the way) for a run whose source is bucket
// (empty for a local source) with keys relative to base, and returns it
// ready to be read. A malformed line is an *InputError naming it. Close
// removes the temporary copy.
func OpenKeyList(name string, stdin io.Reader, bucket, base string) (*KeyList, error) {
	k := &KeyList{name: name, path: name, bucket: bucket, base: base}
	var r io.Reader
	if name == "-" {
		f, err := os.CreateTemp("", "s3bulk-keys-*")
		if err != nil {
			return nil, fmt.Errorf("read key list from standard input: %w", err)
		}
		k.path, k.temp = f.Name(), true
		defer f.Close()
		r = io.TeeReader(stdin, f)
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, &InputError{Name: name, Err: unwrapPath(err)}
		}
		defer f.Close()
		r = f
	}
	k.csv = strings.HasSuffix(strings.ToLower(name), ".csv")
	first := true
	err := k.scan(r, func(line int, text string) error {
		if first {
			first = false
			if !k.csv {
				b, _, ok := strings.Cut(text, ",")
				k.csv = ok && validBucket(b)
			}
		}
		_, err := k.parse(text)
		return err
	})
	if err == nil && name == "-" {
		_, err = io.Copy(io.Discard, r) // the whole input, for the second pass
	}
	if err != nil {
		k.Close()
		return nil, err
	}
	return k, nil
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Close removes the temporary copy of standard input.
func (k *KeyList) Close() error {
	if k.temp {
		return os.Remove(k.path)
	}
	return nil
}

// Entries is how many keys the list holds.
func (k *KeyList) Entries() int64 { return k.entries }

// Sized reports whether the entries carry their sizes: a key list's never
// do (the engine HEADs each key).
func (k *KeyList) Sized() bool { return false }

// Objects calls fn with each key of the list, in the list's order, with
// Size -1 (unknown) and the version id of a manifest line that has one.
func (k *KeyList) Objects(ctx context.Context, fn func(store.Object) error) error {
	f, err := os.Open(k.path)
	if err != nil {
		return &InputError{Name: k.name, Err: unwrapPath(err)}
	}
	defer f.Close()
	n := 0
	return k.scan(f, func(line int, text string) error {
		if n++; n%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		o, err := k.parse(text)
		if err != nil {
			return err
		}
		return fn(o)
	})
}

// scan calls fn with each line that is not empty, without its line end.
// fn's *lineError becomes an *InputError naming the line.
func (k *KeyList) scan(r io.Reader, fn func(line int, text string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	line := 0
	k.entries = 0
	for sc.Scan() {
		line++
		b := bytes.TrimSuffix(sc.Bytes(), []byte("\r"))
		if len(b) == 0 {
			continue
		}
		k.entries++
		if err := fn(line, string(b)); err != nil {
			var le lineError
			if errors.As(err, &le) {
				return &InputError{Name: k.name, Line: line, Err: le}
			}
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &InputError{Name: k.name, Line: line + 1, Err: fmt.Errorf("longer than %d bytes", maxLine)}
		}
		return fmt.Errorf("read %s: %w", k.name, err)
	}
	return nil
}

// lineError is what is wrong with one line.
type lineError string

func (e lineError) Error() string { return string(e) }

// parse reads one line that is not empty.
func (k *KeyList) parse(text string) (store.Object, error) {
	if !k.csv {
		if err := checkKey(text); err != nil {
			return store.Object{}, err
		}
		if len(k.base)+len(text) > MaxKeyLen {
			return store.Object{}, lineError(fmt.Sprintf("key %q: longer than %d bytes with the prefix %q", text, MaxKeyLen, k.base))
		}
		return store.Object{Key: k.base + text, Size: -1}, nil
	}
	fields, err := splitCSV(text)
	if err != nil {
		return store.Object{}, err
	}
	if len(fields) < 2 || len(fields) > 3 {
		return store.Object{}, lineError(fmt.Sprintf("%d fields: want bucket,key or bucket,key,version", len(fields)))
	}
	if k.bucket == "" {
		return store.Object{}, lineError("bucket,key lines name S3 objects: the source must be an S3 location")
	}
	if fields[0] != k.bucket {
		return store.Object{}, lineError(fmt.Sprintf("bucket %q: the source bucket is %q", fields[0], k.bucket))
	}
	key, err := url.QueryUnescape(fields[1])
	if err != nil {
		return store.Object{}, lineError(fmt.Sprintf("key %q: not URL-encoded: %v", fields[1], err))
	}
	if err := checkKey(key); err != nil {
		return store.Object{}, err
	}
	o := store.Object{Key: key, Size: -1}
	if len(fields) == 3 {
		o.VersionID = fields[2]
	}
	return o, nil
}

// checkKey refuses what S3 cannot name.
func checkKey(key string) error {
	switch {
	case key == "":
		return lineError("empty key")
	case len(key) > MaxKeyLen:
		return lineError(fmt.Sprintf("key of %d bytes: S3 takes %d at most", len(key), MaxKeyLen))
	case !utf8.ValidString(key):
		return lineError(fmt.Sprintf("key %q: not UTF-8", key))
	case strings.ContainsRune(key, 0):
		return lineError(fmt.Sprintf("key %q: holds a NUL byte", key))
	}
	return nil
}

// splitCSV splits one CSV line, with RFC 4180 quoting, as Batch Operations
// and S3 Inventory write them.
func splitCSV(line string) ([]string, error) { return appendFields(nil, line) }

// appendFields appends the fields of one CSV line to dst. A quoted field
// without doubled quotes is a substring of line: no copy.
func appendFields(dst []string, line string) ([]string, error) {
	for {
		if !strings.HasPrefix(line, `"`) {
			f, rest, more := strings.Cut(line, ",")
			if strings.IndexByte(f, '"') >= 0 {
				return nil, lineError(fmt.Sprintf("field %q: a quote inside a field that is not quoted", f))
			}
			dst = append(dst, f)
			if !more {
				return dst, nil
			}
			line = rest
			continue
		}
		j := strings.IndexByte(line[1:], '"')
		if j < 0 {
			return nil, lineError("a quoted field that does not end")
		}
		i := j + 2 // past the closing quote
		if i < len(line) && line[i] == '"' {
			var err error
			var f string
			if f, i, err = unquote(line); err != nil {
				return nil, err
			}
			dst = append(dst, f)
		} else {
			dst = append(dst, line[1:j+1])
		}
		switch {
		case i == len(line):
			return dst, nil
		case line[i] != ',':
			return nil, lineError("text after a quoted field")
		}
		line = line[i+1:]
	}
}

// unquote reads the quoted field at the start of line, doubled quotes
// and all, and returns it with the index past its closing quote.
func unquote(line string) (string, int, error) {
	var b strings.Builder
	i := 1
	for {
		j := strings.IndexByte(line[i:], '"')
		if j < 0 {
			return "", 0, lineError("a quoted field that does not end")
		}
		b.WriteString(line[i : i+j])
		i += j + 1
		if i < len(line) && line[i] == '"' {
			b.WriteByte('"')
			i++
			continue
		}
		return b.String(), i, nil
	}
}

// validBucket reports whether name is a bucket name S3 accepts: 3 to 63
// lowercase letters, digits, dots and hyphens, starting and ending with a
// letter or digit.
func validBucket(name string) bool {
	if len(name) < 3 || len(name) > 63 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && c != '.' && c != '-' {
			return false
		}
		if (i == 0 || i == len(name)-1) && !alnum {
			return false
		}
	}
	return true
}
