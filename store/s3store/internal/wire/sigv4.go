package wire

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// SigV4 header signing of the raw client's requests (rawcopy.go), the
// same bytes as the SDK's signer (v4.Signer.SignHTTP with
// DisableURIPathEscaping) for the requests that client builds: a path
// escaped once, a query of unreserved characters ("x-id=PutObject"), and
// headers. Anything else (a query that would need escaping, an opaque
// URL) is left to the SDK's signer; TestSignerMatchesTheSDK and
// FuzzSignerMatchesTheSDK hold the two to the same Authorization header.
//
// Why: on 10,000 uploads of 100 KiB at 130 ms, the SDK's signer was a
// tenth of s3bulk's CPU (about 60 allocations and 6 KiB per request: a
// parsed query, a header map, sorted copies, strings joined), and a
// server-side copy spends a larger share still. This one builds the
// canonical request in one pooled buffer, sorts the few header names in
// place and reuses the day's signing key.

// EmptyPayloadHash is the SHA-256 of an empty body, which a CopyObject or a
// GetObject sends.
const EmptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// UnsignedPayload is X-Amz-Content-Sha256 of a body that is not signed.
const UnsignedPayload = "UNSIGNED-PAYLOAD"

// signAlgorithm names SigV4 in the string to sign and the header.
const signAlgorithm = "AWS4-HMAC-SHA256"

// signIgnored are the headers the SDK's signer never signs (its
// IgnoredHeaders), matched as it matches them: by the key as it lies in
// the map.
var signIgnored = [...]string{"Authorization", "User-Agent", "X-Amzn-Trace-Id", "Expect", "Transfer-Encoding"}

// Signer signs requests and keeps the last signing key it derived.
type Signer struct {
	mu  sync.Mutex
	key *signingKey
}

// signingKey is the key of one day, region, service and secret, and the
// HMACs made with it, for reuse.
type signingKey struct {
	akid, secret, day, region, service string
	key                                []byte
	macs                               sync.Pool
}

// signBuffers are the canonical requests' and strings to sign's bytes.
var signBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// Sign signs req as v4.Signer.SignHTTP does for header signing, with
// payloadHash as the payload's hash (the caller sets
// X-Amz-Content-Sha256). It reports false, having changed nothing, for a
// request it does not canonicalize the way the SDK does, having set no
// more than the SDK's signer sets again: the caller then signs with it.
func (s *Signer) Sign(creds aws.Credentials, req *http.Request, payloadHash, service, region string, now time.Time) bool {
	if req.URL.Opaque != "" || !plainQuery(req.URL.RawQuery) {
		return false
	}
	var dateArr [16]byte
	amzDate := string(now.UTC().AppendFormat(dateArr[:0], "20060102T150405Z"))
	day := amzDate[:8]
	h := req.Header
	h["X-Amz-Date"] = append(h["X-Amz-Date"][:0], amzDate)
	if creds.SessionToken != "" {
		h["X-Amz-Security-Token"] = append(h["X-Amz-Security-Token"][:0], creds.SessionToken)
	}
	host := req.URL.Host
	if req.Host != "" {
		host = req.Host
	}
	if port := hostPort(host); port != "" && defaultPort(req.URL.Scheme, port) {
		host = hostName(host)
		req.Host = host
	}
	var keysArr [24]string
	keys, ok := signedKeys(keysArr[:0], req)
	if !ok {
		return false
	}

	bp := signBuffers.Get().(*[]byte)
	defer signBuffers.Put(bp)
	b, signed, signedEnd := appendCanonicalRequest((*bp)[:0], req, keys, host)
	b = append(b, '\n')
	b = append(b, payloadHash...)
	sum := sha256.Sum256(b)

	// The string to sign, after the canonical request's signed headers,
	// which the Authorization header repeats.
	b = b[:signedEnd]
	sts := len(b)
	b = append(b, signAlgorithm+"\n"...)
	b = append(b, amzDate...)
	b = append(b, '\n')
	scope := len(b)
	b = append(b, day...)
	b = append(b, '/')
	b = append(b, region...)
	b = append(b, '/')
	b = append(b, service...)
	b = append(b, "/aws4_request"...)
	scopeEnd := len(b)
	b = append(b, '\n')
	b = hex.AppendEncode(b, sum[:])
	var sig [sha256.Size]byte
	mac := s.mac(creds, day, region, service)
	mac.Write(b[sts:])
	mac.Sum(sig[:0])
	s.done(mac)

	auth := len(b)
	b = append(b, signAlgorithm+" Credential="...)
	b = append(b, creds.AccessKeyID...)
	b = append(b, '/')
	b = append(b, b[scope:scopeEnd]...)
	b = append(b, ", SignedHeaders="...)
	b = append(b, b[signed:signedEnd]...)
	b = append(b, ", Signature="...)
	b = hex.AppendEncode(b, sig[:])
	h["Authorization"] = append(h["Authorization"][:0], string(b[auth:]))
	*bp = b
	return true
}

// signedKeys appends to keys the keys of the headers req signs, sorted by
// their lowercase names. Two keys of one name would take both keys'
// values in the order of the SDK's map iteration, which is random: such a
// request is left to the SDK (false).
func signedKeys(keys []string, req *http.Request) ([]string, bool) {
	keys = append(keys, "host")
	if req.ContentLength > 0 {
		keys = append(keys, "content-length")
	}
	for k := range req.Header {
		if slices.Contains(signIgnored[:], k) || strings.EqualFold(k, "content-length") {
			continue
		}
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareFold)
	for i := 1; i < len(keys); i++ {
		if compareFold(keys[i], keys[i-1]) == 0 {
			return keys, false
		}
	}
	return keys, true
}

// appendCanonicalRequest appends req's canonical request up to its
// signed headers (the payload hash is the caller's), and says where the
// list of signed headers starts and ends in b.
func appendCanonicalRequest(b []byte, req *http.Request, keys []string, host string) (_ []byte, signed, signedEnd int) {
	b = append(b, req.Method...)
	b = append(b, '\n')
	if p := req.URL.EscapedPath(); p != "" {
		b = append(b, p...)
	} else {
		b = append(b, '/')
	}
	b = append(b, '\n')
	if q := req.URL.RawQuery; strings.Contains(q, "&") {
		// Sorted, as the SDK's signer also leaves it.
		req.URL.RawQuery = sortedQuery(q)
	}
	b = append(b, req.URL.RawQuery...)
	b = append(b, '\n')
	for _, k := range keys {
		b = appendLower(b, k)
		b = append(b, ':')
		switch {
		case k == "host":
			// Not a key of the header: a "Host" key would have made two.
			b = appendHeaderValue(b, host)
		case k == "content-length":
			b = strconv.AppendInt(b, req.ContentLength, 10)
		default:
			for j, v := range req.Header[k] {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendHeaderValue(b, v)
			}
		}
		b = append(b, '\n')
	}
	b = append(b, '\n')
	signed = len(b)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ';')
		}
		b = appendLower(b, k)
	}
	return b, signed, len(b)
}

// mac returns an HMAC-SHA256 keyed with the key of SigV4's derivation for
// creds on day, in region, for service; done takes it back. The key of
// the last day, credentials and region is kept, with its HMACs.
func (s *Signer) mac(creds aws.Credentials, day, region, service string) *keyedMAC {
	s.mu.Lock()
	k := s.key
	if k == nil || k.akid != creds.AccessKeyID || k.secret != creds.SecretAccessKey || k.day != day || k.region != region || k.service != service {
		key := hmacSHA256([]byte("AWS4"+creds.SecretAccessKey), day)
		key = hmacSHA256(key, region)
		key = hmacSHA256(key, service)
		key = hmacSHA256(key, "aws4_request")
		k = &signingKey{akid: creds.AccessKeyID, secret: creds.SecretAccessKey, day: day, region: region, service: service, key: key}
		s.key = k
	}
	s.mu.Unlock()
	if m, ok := k.macs.Get().(*keyedMAC); ok {
		return m
	}
	return &keyedMAC{Hash: hmac.New(sha256.New, k.key), of: k}
}

// done takes back an HMAC from mac, for reuse while its key is current.
func (s *Signer) done(m *keyedMAC) {
	m.Reset()
	m.of.macs.Put(m)
}

// keyedMAC is an HMAC and the key it was made with.
type keyedMAC struct {
	hash.Hash
	of *signingKey
}

// compareFold orders header keys by their lowercase names (ASCII, as
// header names are; other bytes compare as they are).
func compareFold(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if x, y := lowerASCII(a[i]), lowerASCII(b[i]); x != y {
			return int(x) - int(y)
		}
	}
	return len(a) - len(b)
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// appendLower appends k with its ASCII letters lowercased.
func appendLower(b []byte, k string) []byte {
	for i := 0; i < len(k); i++ {
		b = append(b, lowerASCII(k[i]))
	}
	return b
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// appendHeaderValue appends v as the SDK's signer canonicalizes a header
// value: runs of spaces made one (its StripExcessSpaces) and white space
// at either end trimmed.
func appendHeaderValue(b []byte, v string) []byte {
	v = strings.TrimSpace(v)
	if !strings.Contains(v, "  ") {
		return append(b, v...)
	}
	space := false
	for i := 0; i < len(v); i++ {
		if v[i] == ' ' && space {
			continue
		}
		space = v[i] == ' '
		b = append(b, v[i])
	}
	return b
}

// plainQuery reports whether q holds only name=value pairs of unreserved
// characters, each name once: its canonical form is its pairs sorted.
func plainQuery(q string) bool {
	var namesArr [8]string
	names := namesArr[:0]
	for pair := range strings.SplitSeq(q, "&") {
		if q == "" {
			return true
		}
		name, value, ok := strings.Cut(pair, "=")
		if !ok || name == "" || !unreservedOnly(name) || !unreservedOnly(value) || slices.Contains(names, name) {
			return false
		}
		names = append(names, name)
	}
	return true
}

func unreservedOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~') {
			return false
		}
	}
	return true
}

// sortedQuery is q (a plainQuery) with its pairs sorted by name.
func sortedQuery(q string) string {
	pairs := strings.Split(q, "&")
	slices.SortFunc(pairs, func(x, y string) int {
		nx, _, _ := strings.Cut(x, "=")
		ny, _, _ := strings.Cut(y, "=")
		return strings.Compare(nx, ny)
	})
	return strings.Join(pairs, "&")
}

// hostPort is the port of host, "" when it has none, as the SDK's signer
// reads it (net/url's Port of Go 1.8).
func hostPort(host string) string {
	colon := strings.IndexByte(host, ':')
	if colon == -1 {
		return ""
	}
	if i := strings.Index(host, "]:"); i != -1 {
		return host[i+len("]:"):]
	}
	if strings.Contains(host, "]") {
		return ""
	}
	return host[colon+1:]
}

// hostName is host without its port, as the SDK's signer strips it
// (net/url's Hostname of Go 1.8: an IPv6 literal loses its brackets).
func hostName(host string) string {
	colon := strings.IndexByte(host, ':')
	if colon == -1 {
		return host
	}
	if i := strings.IndexByte(host, ']'); i != -1 {
		return strings.TrimPrefix(host[:i], "[")
	}
	return host[:colon]
}

// defaultPort reports whether port is scheme's own, which the SDK's
// signer drops from the host it signs (and sends).
func defaultPort(scheme, port string) bool {
	scheme = strings.ToLower(scheme)
	return scheme == "http" && port == "80" || scheme == "https" && port == "443"
}
