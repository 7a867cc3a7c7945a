package simregion

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	md5simd "github.com/minio/md5-simd"

	"github.com/s3bulk/s3bulk/internal/faultproxy"
)

// Config describes the fixture.
type Config struct {
	// Bucket is the bucket that holds Keys; any other bucket is empty.
	Bucket string
	// Keys is the key set, in any order (it is sorted once).
	Keys []string
	// Size is every object's size in bytes.
	Size int64
	// Delay is the latency added to every answer.
	Delay time.Duration
	// Throttle answers SlowDown above a rate per prefix (nil: never).
	Throttle *faultproxy.Throttle
}

// ReportKeys returns the keys of the field report's layout for n objects:
// company-%04d/user-%04d/file-%02d.json, 4 files per user, 100 users per
// company (internal/bench.Layout, which this package must not import).
func ReportKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		user := i / 4
		keys[i] = fmt.Sprintf("company-%04d/user-%04d/file-%02d.json", user/100+1, user+1, i%4+1)
	}
	return keys
}

// Server is a running fixture on 127.0.0.1.
type Server struct {
	proxy *faultproxy.Proxy
	h     *handler
}

// Start starts the fixture.
func Start(cfg Config) (*Server, error) {
	h := newHandler(cfg)
	p, err := faultproxy.NewHandler(h, faultproxy.Config{Latency: cfg.Delay, Throttle: cfg.Throttle})
	if err != nil {
		return nil, fmt.Errorf("start fake S3: %w", err)
	}
	return &Server{proxy: p, h: h}, nil
}

// URL is the endpoint, "http://127.0.0.1:PORT".
func (s *Server) URL() string { return s.proxy.URL() }

// Close stops the fixture and waits for its handlers.
func (s *Server) Close() error {
	err := s.proxy.Close()
	s.h.closeHashers()
	return err
}

// Stats counts the answers so far.
type Stats struct {
	// Requests is every request; Throttled those answered SlowDown.
	Requests, Throttled int64
	// ByOp counts the requests answered (not throttled) by S3 operation.
	ByOp map[string]int64
}

// InFlight is the number of requests received and not yet answered (those
// still waiting out Config.Delay, mostly).
func (s *Server) InFlight() int64 {
	ps := s.proxy.Stats()
	n := ps.Requests
	for _, f := range ps.Faults {
		n -= f
	}
	return n
}

// Stats returns the counts so far.
func (s *Server) Stats() Stats {
	ps := s.proxy.Stats()
	st := Stats{Requests: ps.Requests, Throttled: ps.Throttled, ByOp: map[string]int64{}}
	for i := range s.h.ops {
		if v := s.h.ops[i].Load(); v > 0 {
			st.ByOp[opNames[i]] = v
		}
	}
	return st
}

type op int

const (
	opList op = iota
	opHead
	opGet
	opPut
	opCopy
	opDelete
	opDeleteObjects
	opBucket
	numOps
)

var opNames = [numOps]string{"ListObjectsV2", "HeadObject", "GetObject", "PutObject", "CopyObject", "DeleteObject", "DeleteObjects", "HeadBucket"}

type handler struct {
	bucket  string
	keys    []string // sorted, unique
	size    int64
	body    []byte // the first min(size, len) bytes of every object's pattern
	etag    string // quoted MD5 of an object's body
	modTime string // RFC 1123, for headers
	modISO  string // ISO 8601, for XML
	ops     [numOps]atomic.Int64
	bufs    sync.Pool

	// md5 hashes the bodies of PutObjects side by side, one body a lane
	// (AVX-512 or AVX2; crypto/md5 where neither is there), through the
	// hashers, which a put takes only for the time it hashes a body
	// already read whole.
	md5     md5simd.Server
	hashers chan md5simd.Hasher
	closed  sync.Once
}

// simdHashers is how many bodies are hashed side by side: the lanes of
// md5-simd's AVX-512 server.
const simdHashers = 16

// simdMin is the smallest body hashed by the SIMD server: below it a
// round trip to the server's goroutine costs more than crypto/md5.
const simdMin = 8 << 10

// pattern is the repeating content of every object.
const pattern = "{\"fake\":\"s3bulk fixture\"}\n"

func newHandler(cfg Config) *handler {
	keys := slices.Clone(cfg.Keys)
	sort.Strings(keys)
	keys = slices.Compact(keys)
	mod := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := &handler{bucket: cfg.Bucket, keys: keys, size: cfg.Size,
		modTime: mod.Format(http.TimeFormat), modISO: mod.Format("2006-01-02T15:04:05.000Z")}
	h.body = bytes.Repeat([]byte(pattern), int(min(cfg.Size, 1<<20)/int64(len(pattern))+1))
	sum := md5.New()
	for left := cfg.Size; left > 0; {
		n := min(left, int64(len(h.body)/len(pattern)*len(pattern)))
		sum.Write(h.body[:n])
		left -= n
	}
	h.etag = `"` + hex.EncodeToString(sum.Sum(nil)) + `"`
	h.bufs.New = func() any { return new(bytes.Buffer) }
	h.md5 = md5simd.NewServer()
	h.hashers = make(chan md5simd.Hasher, simdHashers)
	for range simdHashers {
		h.hashers <- h.md5.NewHash()
	}
	return h
}

// closeHashers stops the SIMD server, once no put runs any more (the
// second call does nothing).
func (h *handler) closeHashers() {
	h.closed.Do(func() {
		for range simdHashers {
			(<-h.hashers).Close()
		}
		h.md5.Close()
	})
}

// has reports whether key is in the set of bucket.
func (h *handler) has(bucket, key string) bool {
	if bucket != h.bucket {
		return false
	}
	_, ok := slices.BinarySearch(h.keys, key)
	return ok
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if bucket == "" {
		writeError(w, r, http.StatusNotImplemented, "NotImplemented", "ListBuckets is not implemented by the fixture")
		return
	}
	q := r.URL.Query()
	switch {
	case key == "" && r.Method == http.MethodGet && q.Get("list-type") == "2":
		h.ops[opList].Add(1)
		h.list(w, r, bucket, q)
	case key == "" && (r.Method == http.MethodHead || (r.Method == http.MethodGet && q.Has("location"))):
		h.ops[opBucket].Add(1)
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/xml")
			_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><LocationConstraint xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></LocationConstraint>`)
		}
	case key == "" && r.Method == http.MethodPost && q.Has("delete"):
		h.ops[opDeleteObjects].Add(1)
		h.deleteObjects(w, r)
	case key == "":
		writeError(w, r, http.StatusNotImplemented, "NotImplemented", "bucket operation not implemented by the fixture")
	case r.Method == http.MethodHead || r.Method == http.MethodGet:
		h.ops[opGet-boolOp(r.Method == http.MethodHead)].Add(1)
		h.get(w, r, bucket, key)
	case r.Method == http.MethodPut && r.Header.Get("x-amz-copy-source") != "":
		h.ops[opCopy].Add(1)
		h.copy(w, r)
	case r.Method == http.MethodPut && !q.Has("uploadId"):
		h.ops[opPut].Add(1)
		h.put(w, r)
	case r.Method == http.MethodDelete && !q.Has("uploadId"):
		h.ops[opDelete].Add(1)
		w.WriteHeader(http.StatusNoContent)
	default:
		writeError(w, r, http.StatusNotImplemented, "NotImplemented", "operation not implemented by the fixture (no multipart)")
	}
}

func boolOp(b bool) op {
	if b {
		return 1
	}
	return 0
}

// list answers ListObjectsV2 from the sorted key set.
func (h *handler) list(w http.ResponseWriter, r *http.Request, bucket string, q url.Values) {
	prefix, delim := q.Get("prefix"), q.Get("delimiter")
	maxKeys := 1000
	if v := q.Get("max-keys"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			writeError(w, r, http.StatusBadRequest, "InvalidArgument", "max-keys must be a non-negative integer")
			return
		}
		maxKeys = min(n, 1000)
	}
	after := q.Get("start-after")
	if tok := q.Get("continuation-token"); tok != "" {
		b, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil {
			writeError(w, r, http.StatusBadRequest, "InvalidArgument", "The continuation token provided is incorrect")
			return
		}
		after = string(b)
	}
	var keys []string
	if bucket == h.bucket {
		keys = h.keys
	}
	// The first key after `after` under prefix; a token that names a
	// common prefix skips everything under it.
	i := sort.SearchStrings(keys, prefix)
	if after != "" {
		if delim != "" && strings.HasSuffix(after, delim) && strings.HasPrefix(after, prefix) {
			i = max(i, sort.Search(len(keys), func(j int) bool { return keys[j] > after && !strings.HasPrefix(keys[j], after) }))
		} else {
			i = max(i, sort.Search(len(keys), func(j int) bool { return keys[j] > after }))
		}
	}
	buf := h.bufs.Get().(*bytes.Buffer)
	defer h.bufs.Put(buf)
	buf.Reset()
	var body bytes.Buffer
	n, last, truncated := 0, "", false
	for i < len(keys) && strings.HasPrefix(keys[i], prefix) {
		if n == maxKeys {
			truncated = true
			break
		}
		k := keys[i]
		if delim != "" {
			if j := strings.Index(k[len(prefix):], delim); j >= 0 {
				cp := k[:len(prefix)+j+len(delim)]
				body.WriteString("<CommonPrefixes><Prefix>")
				xmlEscape(&body, cp)
				body.WriteString("</Prefix></CommonPrefixes>")
				n, last = n+1, cp
				i += sort.Search(len(keys)-i, func(j int) bool { return !strings.HasPrefix(keys[i+j], cp) })
				continue
			}
		}
		body.WriteString("<Contents><Key>")
		xmlEscape(&body, k)
		body.WriteString("</Key><LastModified>")
		body.WriteString(h.modISO)
		body.WriteString("</LastModified><ETag>&quot;")
		body.WriteString(h.etag[1 : len(h.etag)-1])
		body.WriteString("&quot;</ETag><Size>")
		body.WriteString(strconv.FormatInt(h.size, 10))
		body.WriteString("</Size><StorageClass>STANDARD</StorageClass></Contents>")
		n, last = n+1, k
		i++
	}
	buf.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>`)
	xmlEscape(buf, bucket)
	buf.WriteString("</Name><Prefix>")
	xmlEscape(buf, prefix)
	buf.WriteString("</Prefix>")
	if delim != "" {
		buf.WriteString("<Delimiter>")
		xmlEscape(buf, delim)
		buf.WriteString("</Delimiter>")
	}
	fmt.Fprintf(buf, "<MaxKeys>%d</MaxKeys><KeyCount>%d</KeyCount><IsTruncated>%t</IsTruncated>", maxKeys, n, truncated)
	if truncated {
		buf.WriteString("<NextContinuationToken>")
		buf.WriteString(base64.RawURLEncoding.EncodeToString([]byte(last)))
		buf.WriteString("</NextContinuationToken>")
	}
	buf.Write(body.Bytes())
	buf.WriteString("</ListBucketResult>")
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	_, _ = w.Write(buf.Bytes())
}

// found reports whether the object is in the set and matches the ETag the
// request's ifMatch header asks for, if any; when not, it answers as S3 does
// (404 NoSuchKey, 412 PreconditionFailed).
func (h *handler) found(w http.ResponseWriter, r *http.Request, bucket, key, ifMatch string) bool {
	if !h.has(bucket, key) {
		writeError(w, r, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
		return false
	}
	if m := r.Header.Get(ifMatch); m != "" && strings.Trim(m, `"`) != strings.Trim(h.etag, `"`) {
		writeError(w, r, http.StatusPreconditionFailed, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold")
		return false
	}
	return true
}

// get answers HeadObject and GetObject, with a single range.
func (h *handler) get(w http.ResponseWriter, r *http.Request, bucket, key string) {
	if !h.found(w, r, bucket, key, "If-Match") {
		return
	}
	first, last := int64(0), h.size-1
	status := http.StatusOK
	hdr := w.Header()
	if rg := r.Header.Get("Range"); rg != "" && h.size > 0 {
		a, b, ok := parseRange(rg, h.size)
		if !ok {
			writeError(w, r, http.StatusRequestedRangeNotSatisfiable, "InvalidRange", "The requested range is not satisfiable")
			return
		}
		first, last, status = a, b, http.StatusPartialContent
		hdr.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b, h.size))
	}
	hdr.Set("ETag", h.etag)
	hdr.Set("Last-Modified", h.modTime)
	hdr.Set("Accept-Ranges", "bytes")
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Content-Length", strconv.FormatInt(last-first+1, 10))
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	period := int64(len(pattern))
	for off := first; off <= last; {
		start := off % period
		n := min(last-off+1, int64(len(h.body))-start)
		if _, err := w.Write(h.body[start : start+n]); err != nil {
			return
		}
		off += n
	}
}

// parseRange reads "bytes=a-b", "bytes=a-" or "bytes=-n".
func parseRange(v string, size int64) (first, last int64, ok bool) {
	spec, found := strings.CutPrefix(v, "bytes=")
	a, b, dash := strings.Cut(spec, "-")
	if !found || !dash || strings.Contains(spec, ",") {
		return 0, 0, false
	}
	if a == "" {
		n, err := strconv.ParseInt(b, 10, 64)
		if err != nil || n <= 0 {
			return 0, 0, false
		}
		return max(0, size-n), size - 1, true
	}
	first, err := strconv.ParseInt(a, 10, 64)
	if err != nil || first >= size {
		return 0, 0, false
	}
	last = size - 1
	if b != "" {
		if last, err = strconv.ParseInt(b, 10, 64); err != nil || last < first {
			return 0, 0, false
		}
		last = min(last, size-1)
	}
	return first, last, true
}

// put reads the whole body, checks what the client sent to check it by, and
// answers with its MD5.
func (h *handler) put(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if strings.HasPrefix(r.Header.Get("x-amz-content-sha256"), "STREAMING-") {
		body = &chunkedReader{r: bufio.NewReader(r.Body)}
	}
	buf := readBuffers.Get().(*[readBuffer]byte)
	n, digest, crc, err := h.digest(body, buf[:])
	readBuffers.Put(buf)
	if err != nil {
		writeError(w, r, http.StatusBadRequest, "IncompleteBody", "read body: "+err.Error())
		return
	}
	if want := r.Header.Get("x-amz-decoded-content-length"); want != "" && want != strconv.FormatInt(n, 10) {
		writeError(w, r, http.StatusBadRequest, "IncompleteBody", "The request body is shorter than x-amz-decoded-content-length")
		return
	}
	if cs, ok := body.(*chunkedReader); ok {
		for k, v := range cs.trailer {
			r.Header.Set(k, v)
		}
	}
	if m := r.Header.Get("Content-MD5"); m != "" && m != base64.StdEncoding.EncodeToString(digest[:]) {
		writeError(w, r, http.StatusBadRequest, "BadDigest", "The Content-MD5 you specified did not match what we received.")
		return
	}
	if c := r.Header.Get("x-amz-checksum-crc32"); c != "" {
		if c != base64.StdEncoding.EncodeToString(binary.BigEndian.AppendUint32(nil, crc)) {
			writeError(w, r, http.StatusBadRequest, "BadDigest", "The CRC32 you specified did not match the calculated checksum.")
			return
		}
		w.Header().Set("x-amz-checksum-crc32", c)
	}
	w.Header().Set("ETag", `"`+hex.EncodeToString(digest[:])+`"`)
	w.WriteHeader(http.StatusOK)
}

// readBuffer is the size of put's reads: a body of up to that much is read
// whole before it is hashed, and one that has arrived whole is read with
// one system call.
const readBuffer = 128 << 10

// readBuffers are put's, reused: a buffer per request would be most of the
// fixture's garbage.
var readBuffers = sync.Pool{New: func() any { return new([readBuffer]byte) }}

// digest reads body to its end through buf and returns its length, MD5
// and CRC32. A body that fits in buf, as most do, is read whole first and
// then hashed by the SIMD server beside other puts' bodies (no hasher is
// held while a body arrives); a longer one streams through crypto/md5.
func (h *handler) digest(body io.Reader, buf []byte) (int64, [md5.Size]byte, uint32, error) {
	var sum [md5.Size]byte
	k, err := readFull(body, buf)
	if err == io.EOF {
		b := buf[:k]
		if len(b) < simdMin {
			sum = md5.Sum(b)
		} else {
			hs := <-h.hashers
			hs.Reset()
			_, _ = hs.Write(b)
			hs.Sum(sum[:0])
			h.hashers <- hs
		}
		return int64(k), sum, crc32.ChecksumIEEE(b), nil
	}
	if err != nil {
		return int64(k), sum, 0, err
	}
	md, crc := md5.New(), crc32.NewIEEE()
	md.Write(buf)
	crc.Write(buf)
	n, err := hashBody(body, buf, md, crc)
	md.Sum(sum[:0])
	return int64(len(buf)) + n, sum, crc.Sum32(), err
}

// readFull reads from r into buf until buf is full (nil error) or r ends
// (io.EOF, with what was read before it). Unlike io.ReadFull it tells a
// body that ended cleanly from one cut short, whose reader says
// io.ErrUnexpectedEOF.
func readFull(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		k, err := r.Read(buf[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// hashBody reads body to its end through buf into both hashes and returns
// its length.
func hashBody(body io.Reader, buf []byte, sum, crc hash.Hash) (int64, error) {
	var n int64
	for {
		k, err := body.Read(buf)
		sum.Write(buf[:k])
		crc.Write(buf[:k])
		n += int64(k)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// copy answers CopyObject for a source in the set.
func (h *handler) copy(w http.ResponseWriter, r *http.Request) {
	src, err := url.PathUnescape(r.Header.Get("x-amz-copy-source"))
	if err != nil {
		writeError(w, r, http.StatusBadRequest, "InvalidArgument", "Copy Source must mention the source bucket and key: sourcebucket/sourcekey")
		return
	}
	src, _, _ = strings.Cut(strings.TrimPrefix(src, "/"), "?versionId=")
	bucket, key, _ := strings.Cut(src, "/")
	if !h.found(w, r, bucket, key, "x-amz-copy-source-if-match") {
		return
	}
	out := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<CopyObjectResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><LastModified>` +
		h.modISO + `</LastModified><ETag>&quot;` + strings.Trim(h.etag, `"`) + `&quot;</ETag></CopyObjectResult>`
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	_, _ = io.WriteString(w, out)
}

// deleteObjects answers that every key named was deleted.
func (h *handler) deleteObjects(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		writeError(w, r, http.StatusBadRequest, "MalformedXML", err.Error())
		return
	}
	var out bytes.Buffer
	out.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`)
	for s := string(b); ; {
		_, rest, ok := strings.Cut(s, "<Key>")
		if !ok {
			break
		}
		k, rest, _ := strings.Cut(rest, "</Key>")
		out.WriteString("<Deleted><Key>" + k + "</Key></Deleted>") // still escaped as sent
		s = rest
	}
	out.WriteString("</DeleteResult>")
	w.Header().Set("Content-Type", "application/xml")
	_, _ = w.Write(out.Bytes())
}

// chunkedReader decodes an aws-chunked body ("hex-size[;ext]\r\n data
// \r\n" ... "0[;ext]\r\n" trailers "\r\n"), keeping the trailers. A
// chunk's data must be followed by CRLF, a size must be hex digits, and
// the body must not end before the blank line after the trailers: else
// Read fails and the put is refused.
type chunkedReader struct {
	r    *bufio.Reader
	left int64
	// data is set while a chunk's data is read, until its CRLF.
	data    bool
	done    bool
	trailer map[string]string
}

// errChunked is a malformed aws-chunked body.
var errChunked = errors.New("malformed aws-chunked body")

func (c *chunkedReader) Read(p []byte) (int, error) {
	for c.left == 0 {
		if c.done {
			return 0, io.EOF
		}
		if c.data {
			var crlf [2]byte
			if _, err := io.ReadFull(c.r, crlf[:]); err != nil {
				return 0, io.ErrUnexpectedEOF
			}
			if crlf != [2]byte{'\r', '\n'} {
				return 0, errChunked
			}
			c.data = false
		}
		line, err := c.line()
		if err != nil {
			return 0, err
		}
		size, _, _ := strings.Cut(line, ";")
		n, err := strconv.ParseUint(size, 16, 63)
		if err != nil {
			return 0, fmt.Errorf("%w: chunk size %q", errChunked, size)
		}
		if n == 0 {
			trailer := map[string]string{}
			for {
				t, err := c.line()
				if err != nil {
					return 0, err
				}
				if t == "" {
					break
				}
				k, v, ok := strings.Cut(t, ":")
				if !ok {
					return 0, fmt.Errorf("%w: trailer %q", errChunked, t)
				}
				trailer[k] = strings.TrimSpace(v)
			}
			c.done, c.trailer = true, trailer
			return 0, io.EOF
		}
		c.left, c.data = int64(n), true
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// line reads one CRLF-terminated line, without its CRLF.
func (c *chunkedReader) line() (string, error) {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return "", io.ErrUnexpectedEOF
	}
	line, ok := strings.CutSuffix(line, "\r\n")
	if !ok || len(line) > 4096 {
		return "", errChunked
	}
	return line, nil
}

var requestSeq atomic.Int64

// writeError answers the way S3 does: an XML error document, no body for
// HEAD.
func writeError(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	id := fmt.Sprintf("SIMREGION%07d", requestSeq.Add(1))
	w.Header().Set("x-amz-request-id", id)
	if r.Method == http.MethodHead {
		w.WriteHeader(status)
		return
	}
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<Error><Code>" + code + "</Code><Message>")
	xmlEscape(&b, msg)
	b.WriteString("</Message><RequestId>" + id + "</RequestId></Error>")
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

func xmlEscape(b *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&apos;")
		case '\r':
			b.WriteString("&#13;")
		default:
			b.WriteByte(c)
		}
	}
}
