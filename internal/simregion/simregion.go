package simregion

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/minio/crc64nvme"
	md5simd "github.com/minio/md5-simd"

	"github.com/s3bulk/s3bulk/internal/faultproxy"
)

// Config describes the region.
type Config struct {
	// Bucket is the bucket that holds Keys, the described data set.
	Bucket string
	// Keys is the data set, in any order (it is sorted once): objects of
	// Size bytes of a fixed pattern, described, not stored.
	Keys []string
	// Size is every object's size in bytes.
	Size int64
	// Delay is the latency added to every answer: the round trip of a
	// request to the region.
	Delay time.Duration
	// Throttle answers SlowDown above a rate per prefix (nil: never).
	Throttle *faultproxy.Throttle
	// Auth, when set, is the only key pair accepted: every request must be
	// signed with it (SigV4) for its region. Nil accepts any request,
	// signed or not (the latency fixture's way, for bare clients).
	Auth *Auth
	// Buckets, when not nil, are the buckets that exist besides Bucket
	// (CreateBucket makes more); others answer NoSuchBucket. Nil: every
	// bucket exists.
	Buckets []string
	// Now is the region's clock for signatures; nil is time.Now.
	Now func() time.Time
	// HealthPath, when set, answers GET with 200, unsigned: a
	// supervisor's liveness probe.
	HealthPath string
}

// ReportKeys returns the keys of the field report's layout for n objects:
// company-%04d/user-%04d/file-%02d.json, 4 files per user, 100 users per
// company (internal/bench.Layout's defaults).
func ReportKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		user := i / 4
		keys[i] = fmt.Sprintf("company-%04d/user-%04d/file-%02d.json", user/100+1, user+1, i%4+1)
	}
	return keys
}

// Server is a running region on 127.0.0.1.
type Server struct {
	proxy *faultproxy.Proxy
	h     *handler
}

// Start starts the region.
func Start(cfg Config) (*Server, error) {
	h := newHandler(cfg)
	p, err := faultproxy.NewHandler(h, faultproxy.Config{Latency: cfg.Delay, Throttle: cfg.Throttle})
	if err != nil {
		return nil, fmt.Errorf("start the simulated region: %w", err)
	}
	return &Server{proxy: p, h: h}, nil
}

// URL is the endpoint, "http://127.0.0.1:PORT".
func (s *Server) URL() string { return s.proxy.URL() }

// Close stops the region and waits for its handlers.
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
	// Refused counts the requests refused for their signature.
	Refused int64 `json:",omitempty"`
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
	st := Stats{Requests: ps.Requests, Throttled: ps.Throttled, ByOp: map[string]int64{}, Refused: s.h.refused.Load()}
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
	size    int64
	body    []byte // the first min(size, len) bytes of every object's pattern
	modTime string // RFC 1123, for headers
	modISO  string // ISO 8601, for XML
	ops     [numOps]atomic.Int64
	refused atomic.Int64
	bufs    sync.Pool
	objs    *objects
	signer  *signer // nil: requests are not checked
	health  string

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
	h := &handler{size: cfg.Size, health: cfg.HealthPath,
		modTime: mod.Format(http.TimeFormat), modISO: mod.Format("2006-01-02T15:04:05.000Z")}
	h.body = bytes.Repeat([]byte(pattern), int(min(cfg.Size, 1<<20)/int64(len(pattern))+1))
	sum := md5.New()
	for left := cfg.Size; left > 0; {
		n := min(left, int64(len(h.body)/len(pattern)*len(pattern)))
		sum.Write(h.body[:n])
		left -= n
	}
	setObj := &object{size: cfg.Size, etag: `"` + hex.EncodeToString(sum.Sum(nil)) + `"`, contentType: "application/json", described: true}
	h.objs = newObjects(cfg.Bucket, keys, setObj, cfg.Buckets)
	if cfg.Auth != nil {
		now := cfg.Now
		if now == nil {
			now = time.Now
		}
		h.signer = &signer{auth: *cfg.Auth, now: now}
	}
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

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.health != "" && r.URL.Path == h.health && r.Method == http.MethodGet {
		return
	}
	if h.signer != nil {
		if err := h.signer.check(r); err != nil {
			h.refused.Add(1)
			writeError(w, r, err.status, err.code, err.msg)
			return
		}
	}
	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	q := r.URL.Query()
	switch {
	case bucket == "" && r.Method == http.MethodGet:
		h.listBuckets(w)
	case bucket == "":
		writeError(w, r, http.StatusMethodNotAllowed, "MethodNotAllowed", "The specified method is not allowed against this resource.")
	case key == "" && r.Method == http.MethodPut && len(q) == 0:
		h.ops[opBucket].Add(1)
		// us-east-1 answers its owner's second CreateBucket with success.
		if !h.objs.create(bucket) && h.region() != "us-east-1" {
			writeError(w, r, http.StatusConflict, "BucketAlreadyOwnedByYou", "Your previous request to create the named bucket succeeded and you already own it.")
		}
	case !h.objs.exists(bucket):
		writeError(w, r, http.StatusNotFound, "NoSuchBucket", "The specified bucket does not exist")
	case key == "" && r.Method == http.MethodGet && q.Has("ownershipControls"):
		// GetBucketOwnershipControls, as S3 answers for a bucket made since
		// April 2023: ACLs disabled. Not among the counted operations.
		w.Header().Set("Content-Type", "application/xml")
		_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><OwnershipControls xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Rule><ObjectOwnership>BucketOwnerEnforced</ObjectOwnership></Rule></OwnershipControls>`)
	case key == "" && r.Method == http.MethodGet && (q.Get("list-type") == "2" || (!q.Has("location") && !q.Has("uploads"))):
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
		h.deleteObjects(w, r, bucket)
	case key == "":
		writeError(w, r, http.StatusNotImplemented, "NotImplemented", "bucket operation not implemented by the simulated region")
	case q.Has("uploadId") || q.Has("uploads"):
		writeError(w, r, http.StatusNotImplemented, "NotImplemented", "multipart uploads are not implemented by the simulated region")
	case r.Method == http.MethodHead || r.Method == http.MethodGet:
		h.ops[opGet-boolOp(r.Method == http.MethodHead)].Add(1)
		h.get(w, r, bucket, key)
	case r.Method == http.MethodPut && r.Header.Get("x-amz-copy-source") != "":
		h.ops[opCopy].Add(1)
		h.copy(w, r, bucket, key)
	case r.Method == http.MethodPut:
		h.ops[opPut].Add(1)
		h.put(w, r, bucket, key)
	case r.Method == http.MethodDelete:
		h.ops[opDelete].Add(1)
		h.objs.remove(bucket, key)
		w.WriteHeader(http.StatusNoContent)
	default:
		writeError(w, r, http.StatusNotImplemented, "NotImplemented", "operation not implemented by the simulated region")
	}
}

// region is the region's name, us-east-1 unless Auth names another.
func (h *handler) region() string {
	if h.signer != nil && h.signer.auth.Region != "" {
		return h.signer.auth.Region
	}
	return "us-east-1"
}

func boolOp(b bool) op {
	if b {
		return 1
	}
	return 0
}

// listBuckets answers ListBuckets.
func (h *handler) listBuckets(w http.ResponseWriter) {
	h.objs.mu.RLock()
	names := slices.Sorted(maps.Keys(h.objs.buckets))
	h.objs.mu.RUnlock()
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<ListAllMyBucketsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Owner><ID>simregion</ID></Owner><Buckets>`)
	for _, n := range names {
		b.WriteString("<Bucket><Name>")
		xmlEscape(&b, n)
		b.WriteString("</Name><CreationDate>" + h.modISO + "</CreationDate></Bucket>")
	}
	b.WriteString("</Buckets></ListAllMyBucketsResult>")
	w.Header().Set("Content-Type", "application/xml")
	_, _ = w.Write(b.Bytes())
}

// list answers ListObjectsV2 (list-type=2) and ListObjects (v1, marker),
// pages of up to 1,000 keys, from the bucket's keys in byte order.
func (h *handler) list(w http.ResponseWriter, r *http.Request, bucket string, q url.Values) {
	lq, ok := parseListQuery(w, r, q)
	if !ok {
		return
	}
	var body bytes.Buffer
	n, last, truncated := h.listPage(&body, bucket, lq)
	buf := h.bufs.Get().(*bytes.Buffer)
	defer h.bufs.Put(buf)
	buf.Reset()
	buf.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>`)
	xmlEscape(buf, bucket)
	buf.WriteString("</Name><Prefix>")
	lq.enc(buf, lq.prefix)
	buf.WriteString("</Prefix>")
	if lq.delim != "" {
		buf.WriteString("<Delimiter>")
		lq.enc(buf, lq.delim)
		buf.WriteString("</Delimiter>")
	}
	if lq.urlEnc {
		buf.WriteString("<EncodingType>url</EncodingType>")
	}
	if !lq.v2 {
		buf.WriteString("<Marker>")
		lq.enc(buf, lq.after)
		buf.WriteString("</Marker>")
	}
	fmt.Fprintf(buf, "<MaxKeys>%d</MaxKeys>", lq.maxKeys)
	if lq.v2 {
		fmt.Fprintf(buf, "<KeyCount>%d</KeyCount>", n)
	}
	fmt.Fprintf(buf, "<IsTruncated>%t</IsTruncated>", truncated)
	switch {
	case truncated && lq.v2:
		buf.WriteString("<NextContinuationToken>")
		buf.WriteString(base64.RawURLEncoding.EncodeToString([]byte(last)))
		buf.WriteString("</NextContinuationToken>")
	case truncated:
		buf.WriteString("<NextMarker>")
		lq.enc(buf, last)
		buf.WriteString("</NextMarker>")
	}
	buf.Write(body.Bytes())
	buf.WriteString("</ListBucketResult>")
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	_, _ = w.Write(buf.Bytes())
}

// listQuery is a ListObjects (v1 or v2) request's parameters.
type listQuery struct {
	v2            bool
	prefix, delim string
	maxKeys       int
	urlEnc        bool
	// after is the marker, start-after or continuation token's key.
	after string
}

// parseListQuery reads a listing's parameters; a bad one is answered
// (false).
func parseListQuery(w http.ResponseWriter, r *http.Request, q url.Values) (listQuery, bool) {
	lq := listQuery{v2: q.Get("list-type") == "2", prefix: q.Get("prefix"), delim: q.Get("delimiter"), maxKeys: 1000}
	if v := q.Get("max-keys"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			writeError(w, r, http.StatusBadRequest, "InvalidArgument", "max-keys must be a non-negative integer")
			return lq, false
		}
		lq.maxKeys = min(n, 1000)
	}
	lq.urlEnc = q.Get("encoding-type") == "url"
	lq.after = q.Get("start-after")
	if !lq.v2 {
		lq.after = q.Get("marker")
	}
	if tok := q.Get("continuation-token"); lq.v2 && tok != "" {
		b, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil {
			writeError(w, r, http.StatusBadRequest, "InvalidArgument", "The continuation token provided is incorrect")
			return lq, false
		}
		lq.after = string(b)
	}
	return lq, true
}

// enc writes s escaped for XML, URL-encoded first when asked.
func (lq listQuery) enc(b *bytes.Buffer, s string) {
	if lq.urlEnc {
		s = strings.ReplaceAll(uriEncode(s), "%2F", "/")
	}
	xmlEscape(b, s)
}

// listPage writes the Contents and CommonPrefixes of one page to body and
// returns how many it wrote, the last one, and whether more follow.
func (h *handler) listPage(body *bytes.Buffer, bucket string, lq listQuery) (n int, last string, truncated bool) {
	prefix, delim := lq.prefix, lq.delim
	// The first key after lq.after under prefix; a marker that names a
	// common prefix skips everything under it.
	from, strict := prefix, false
	if after := lq.after; after != "" && after >= prefix {
		from, strict = after, true
		if delim != "" && strings.HasSuffix(after, delim) && strings.HasPrefix(after, prefix) {
			from, strict = prefixEnd(after), false
		}
	}
	h.objs.mu.RLock()
	defer h.objs.mu.RUnlock()
	for {
		k, obj, ok := h.objs.next(bucket, from, strict)
		if !ok || !strings.HasPrefix(k, prefix) {
			return n, last, false
		}
		if n == lq.maxKeys {
			return n, last, true
		}
		if delim != "" {
			if j := strings.Index(k[len(prefix):], delim); j >= 0 {
				cp := k[:len(prefix)+j+len(delim)]
				body.WriteString("<CommonPrefixes><Prefix>")
				lq.enc(body, cp)
				body.WriteString("</Prefix></CommonPrefixes>")
				n, last = n+1, cp
				from, strict = prefixEnd(cp), false
				if from == "" {
					return n, last, false
				}
				continue
			}
		}
		body.WriteString("<Contents><Key>")
		lq.enc(body, k)
		body.WriteString("</Key><LastModified>")
		body.WriteString(h.modISO)
		body.WriteString("</LastModified><ETag>&quot;")
		body.WriteString(obj.etag[1 : len(obj.etag)-1])
		body.WriteString("&quot;</ETag><Size>")
		body.WriteString(strconv.FormatInt(obj.size, 10))
		body.WriteString("</Size><StorageClass>STANDARD</StorageClass></Contents>")
		n, last = n+1, k
		from, strict = k, true
	}
}

// found returns the object if it exists and matches the ETag the request's
// ifMatch header asks for, if any; when not, it answers as S3 does (404
// NoSuchKey, 412 PreconditionFailed) and returns nil.
func (h *handler) found(w http.ResponseWriter, r *http.Request, bucket, key, ifMatch string) *object {
	obj, ok := h.objs.get(bucket, key)
	if !ok {
		if !h.objs.exists(bucket) {
			writeError(w, r, http.StatusNotFound, "NoSuchBucket", "The specified bucket does not exist")
			return nil
		}
		writeError(w, r, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
		return nil
	}
	if m := r.Header.Get(ifMatch); m != "" && strings.Trim(m, `"`) != strings.Trim(obj.etag, `"`) {
		writeError(w, r, http.StatusPreconditionFailed, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold")
		return nil
	}
	return obj
}

// get answers HeadObject and GetObject, with a single range. Only an
// object of the described set (or a copy of one) has a body to serve.
func (h *handler) get(w http.ResponseWriter, r *http.Request, bucket, key string) {
	obj := h.found(w, r, bucket, key, "If-Match")
	if obj == nil {
		return
	}
	if r.Method == http.MethodGet && !obj.described {
		writeError(w, r, http.StatusNotImplemented, "NotImplemented", "the simulated region keeps no bodies: it serves only the data set it started with and copies of it")
		return
	}
	size := obj.size
	first, last := int64(0), size-1
	status := http.StatusOK
	hdr := w.Header()
	if rg := r.Header.Get("Range"); rg != "" && size > 0 {
		a, b, ok := parseRange(rg, size)
		if !ok {
			writeError(w, r, http.StatusRequestedRangeNotSatisfiable, "InvalidRange", "The requested range is not satisfiable")
			return
		}
		first, last, status = a, b, http.StatusPartialContent
		hdr.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b, size))
	}
	hdr.Set("ETag", obj.etag)
	hdr.Set("Last-Modified", h.modTime)
	hdr.Set("Accept-Ranges", "bytes")
	if obj.contentType != "" {
		hdr.Set("Content-Type", obj.contentType)
	}
	if r.Header.Get("x-amz-checksum-mode") == "ENABLED" {
		if obj.crc32 != "" {
			hdr.Set("x-amz-checksum-crc32", obj.crc32)
		}
		if obj.crc64nvme != "" {
			hdr.Set("x-amz-checksum-crc64nvme", obj.crc64nvme)
		}
	}
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

// put reads the whole body, checks what the client sent to check it by,
// keeps its description and answers with its MD5.
func (h *handler) put(w http.ResponseWriter, r *http.Request, bucket, key string) {
	var body io.Reader = r.Body
	if strings.HasPrefix(r.Header.Get("x-amz-content-sha256"), "STREAMING-") {
		body = &chunkedReader{r: bufio.NewReader(r.Body)}
	}
	buf := readBuffers.Get().(*[readBuffer]byte)
	n, digest, crc, crc64, err := h.digest(body, buf[:])
	readBuffers.Put(buf)
	if errors.Is(err, errSHA256Mismatch) {
		writeError(w, r, http.StatusBadRequest, "XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed.")
		return
	}
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
	obj := &object{size: n, etag: `"` + hex.EncodeToString(digest[:]) + `"`, contentType: r.Header.Get("Content-Type")}
	for _, sum := range []struct {
		name, header string
		got          []byte
		kept         *string
	}{
		{"CRC32", "x-amz-checksum-crc32", binary.BigEndian.AppendUint32(nil, crc), &obj.crc32},
		{"CRC64NVME", "x-amz-checksum-crc64nvme", binary.BigEndian.AppendUint64(nil, crc64), &obj.crc64nvme},
	} {
		c := r.Header.Get(sum.header)
		if c == "" {
			continue
		}
		if c != base64.StdEncoding.EncodeToString(sum.got) {
			writeError(w, r, http.StatusBadRequest, "BadDigest", "The "+sum.name+" you specified did not match the calculated checksum.")
			return
		}
		w.Header().Set(sum.header, c)
		*sum.kept = c
	}
	if !h.objs.put(bucket, key, obj) {
		writeError(w, r, http.StatusNotFound, "NoSuchBucket", "The specified bucket does not exist")
		return
	}
	w.Header().Set("ETag", obj.etag)
	w.WriteHeader(http.StatusOK)
}

// readBuffer is the size of put's reads: a body of up to that much is read
// whole before it is hashed, and one that has arrived whole is read with
// one system call.
const readBuffer = 128 << 10

// readBuffers are put's, reused: a buffer per request would be most of the
// fixture's garbage.
var readBuffers = sync.Pool{New: func() any { return new([readBuffer]byte) }}

// digest reads body to its end through buf and returns its length, MD5,
// CRC32 and CRC64NVME (the SDKs' default of today; minio/crc64nvme, not
// the client's code: the region checks the client). A body that fits in buf, as most do, is read whole first and
// then hashed by the SIMD server beside other puts' bodies (no hasher is
// held while a body arrives); a longer one streams through crypto/md5.
func (h *handler) digest(body io.Reader, buf []byte) (int64, [md5.Size]byte, uint32, uint64, error) {
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
		return int64(k), sum, crc32.ChecksumIEEE(b), crc64nvme.Checksum(b), nil
	}
	if err != nil {
		return int64(k), sum, 0, 0, err
	}
	md, crc, crc64 := md5.New(), crc32.NewIEEE(), crc64nvme.New()
	md.Write(buf)
	crc.Write(buf)
	crc64.Write(buf)
	n, err := hashBody(body, buf, md, crc, crc64)
	md.Sum(sum[:0])
	return int64(len(buf)) + n, sum, crc.Sum32(), crc64.Sum64(), err
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
func hashBody(body io.Reader, buf []byte, hs ...hash.Hash) (int64, error) {
	var n int64
	for {
		k, err := body.Read(buf)
		for _, h := range hs {
			h.Write(buf[:k])
		}
		n += int64(k)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// maxCopySource is the largest object CopyObject copies: beyond it S3
// wants a multipart copy.
const maxCopySource = 5 << 30

// copy answers CopyObject: the source must exist (and match
// x-amz-copy-source-if-match), must not be the destination unless the
// metadata is replaced, and must be at most 5 GiB; the destination gets
// the source's description.
func (h *handler) copy(w http.ResponseWriter, r *http.Request, bucket, key string) {
	src, err := url.PathUnescape(r.Header.Get("x-amz-copy-source"))
	if err != nil {
		writeError(w, r, http.StatusBadRequest, "InvalidArgument", "Copy Source must mention the source bucket and key: sourcebucket/sourcekey")
		return
	}
	src, _, _ = strings.Cut(strings.TrimPrefix(src, "/"), "?versionId=")
	srcBucket, srcKey, _ := strings.Cut(src, "/")
	if srcBucket == "" || srcKey == "" {
		writeError(w, r, http.StatusBadRequest, "InvalidArgument", "Copy Source must mention the source bucket and key: sourcebucket/sourcekey")
		return
	}
	obj := h.found(w, r, srcBucket, srcKey, "x-amz-copy-source-if-match")
	if obj == nil {
		return
	}
	replace := r.Header.Get("x-amz-metadata-directive") == "REPLACE"
	if srcBucket == bucket && srcKey == key && !replace {
		writeError(w, r, http.StatusBadRequest, "InvalidRequest", "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.")
		return
	}
	if obj.size > maxCopySource {
		writeError(w, r, http.StatusBadRequest, "InvalidRequest", "The specified copy source is larger than the maximum allowable size for a copy source: 5368709120")
		return
	}
	dup := *obj
	if replace {
		dup.contentType = r.Header.Get("Content-Type")
	}
	if !h.objs.put(bucket, key, &dup) {
		writeError(w, r, http.StatusNotFound, "NoSuchBucket", "The specified bucket does not exist")
		return
	}
	out := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<CopyObjectResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><LastModified>` +
		h.modISO + `</LastModified><ETag>&quot;` + strings.Trim(obj.etag, `"`) + `&quot;</ETag></CopyObjectResult>`
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	_, _ = io.WriteString(w, out)
}

// deleteRequest is DeleteObjects' body.
type deleteRequest struct {
	Quiet   bool `xml:"Quiet"`
	Objects []struct {
		Key string `xml:"Key"`
	} `xml:"Object"`
}

// deleteObjects deletes the keys named, at most 1,000. As S3, it wants the
// body's Content-MD5 or a checksum, and checks it.
func (h *handler) deleteObjects(w http.ResponseWriter, r *http.Request, bucket string) {
	b, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if errors.Is(err, errSHA256Mismatch) {
		writeError(w, r, http.StatusBadRequest, "XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed.")
		return
	}
	if err != nil {
		writeError(w, r, http.StatusBadRequest, "MalformedXML", err.Error())
		return
	}
	sumMD5 := md5.Sum(b)
	m, c := r.Header.Get("Content-MD5"), r.Header.Get("x-amz-checksum-crc32")
	switch {
	case m == "" && c == "" && !hasChecksumHeader(r.Header):
		writeError(w, r, http.StatusBadRequest, "InvalidRequest", "Missing required header for this request: Content-MD5")
		return
	case m != "" && m != base64.StdEncoding.EncodeToString(sumMD5[:]):
		writeError(w, r, http.StatusBadRequest, "BadDigest", "The Content-MD5 you specified did not match what we received.")
		return
	case c != "" && c != base64.StdEncoding.EncodeToString(binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(b))):
		writeError(w, r, http.StatusBadRequest, "BadDigest", "The CRC32 you specified did not match the calculated checksum.")
		return
	}
	var req deleteRequest
	if err := xml.Unmarshal(b, &req); err != nil || len(req.Objects) > 1000 {
		writeError(w, r, http.StatusBadRequest, "MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema")
		return
	}
	var out bytes.Buffer
	out.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`)
	for _, o := range req.Objects {
		h.objs.remove(bucket, o.Key)
		if !req.Quiet {
			out.WriteString("<Deleted><Key>")
			xmlEscape(&out, o.Key)
			out.WriteString("</Key></Deleted>")
		}
	}
	out.WriteString("</DeleteResult>")
	w.Header().Set("Content-Type", "application/xml")
	_, _ = w.Write(out.Bytes())
}

// hasChecksumHeader reports whether h carries a flexible checksum other
// than CRC32 (CRC32C, SHA-1, SHA-256, CRC64NVME): accepted unchecked.
func hasChecksumHeader(h http.Header) bool {
	for k := range h {
		if strings.HasPrefix(strings.ToLower(k), "x-amz-checksum-") && strings.ToLower(k) != "x-amz-checksum-mode" {
			return true
		}
	}
	return false
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
