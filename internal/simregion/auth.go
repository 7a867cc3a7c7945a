package simregion

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Auth is the one key pair a simulated region accepts, and its region.
type Auth struct {
	AccessKey, SecretKey, Region string
}

// maxSkew is how far a request's x-amz-date may be from the region's clock.
const maxSkew = 15 * time.Minute

// authError is a refusal, answered as S3 answers it.
type authError struct {
	status int
	code   string
	msg    string
}

func (e *authError) Error() string { return e.code + ": " + e.msg }

func refuse(status int, code, msg string) *authError {
	return &authError{status: status, code: code, msg: msg}
}

// signer checks Signature Version 4, in the Authorization header or in the
// query (a presigned URL), as S3 does: the key, the scope's region and
// service, the clock, the signature over the canonical request, and, when
// the client signed the payload's SHA-256, the body against it (checked as
// the body is read). Chunk signatures of STREAMING-AWS4-HMAC-SHA256-PAYLOAD
// bodies are not checked; the body's checksums still are.
type signer struct {
	auth Auth
	now  func() time.Time
	keys sync.Map // "date" -> []byte signing key
}

func (s *signer) signingKey(date string) []byte {
	if k, ok := s.keys.Load(date); ok {
		return k.([]byte)
	}
	k := hmacSHA256([]byte("AWS4"+s.auth.SecretKey), date)
	k = hmacSHA256(k, s.auth.Region)
	k = hmacSHA256(k, "s3")
	k = hmacSHA256(k, "aws4_request")
	s.keys.Store(date, k)
	return k
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// sigv4 is what a request says about its own signature.
type sigv4 struct {
	credential, signedHeaders, signature, date, payload string
	presigned                                           bool
	expires                                             int
}

// check verifies r's signature. On success r.Body is replaced, when the
// payload's SHA-256 was signed, by a reader that fails at its end if the
// body does not match it.
func (s *signer) check(r *http.Request) *authError {
	q := r.URL.Query()
	var sv sigv4
	switch h := r.Header.Get("Authorization"); {
	case h != "":
		alg, rest, _ := strings.Cut(h, " ")
		if alg != "AWS4-HMAC-SHA256" {
			return refuse(http.StatusBadRequest, "InvalidArgument", "Unsupported Authorization Type")
		}
		for _, part := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
			switch k {
			case "Credential":
				sv.credential = v
			case "SignedHeaders":
				sv.signedHeaders = v
			case "Signature":
				sv.signature = v
			}
		}
		sv.date = r.Header.Get("X-Amz-Date")
		sv.payload = r.Header.Get("X-Amz-Content-Sha256")
		if sv.payload == "" {
			return refuse(http.StatusBadRequest, "InvalidRequest", "Missing required header for this request: x-amz-content-sha256")
		}
	case q.Has("X-Amz-Signature"):
		if q.Get("X-Amz-Algorithm") != "AWS4-HMAC-SHA256" {
			return refuse(http.StatusBadRequest, "AuthorizationQueryParametersError", "X-Amz-Algorithm only supports \"AWS4-HMAC-SHA256\"")
		}
		sv = sigv4{credential: q.Get("X-Amz-Credential"), signedHeaders: q.Get("X-Amz-SignedHeaders"),
			signature: q.Get("X-Amz-Signature"), date: q.Get("X-Amz-Date"), payload: "UNSIGNED-PAYLOAD", presigned: true}
		n, err := strconv.Atoi(q.Get("X-Amz-Expires"))
		if err != nil || n < 1 || n > 604800 {
			return refuse(http.StatusBadRequest, "AuthorizationQueryParametersError", "X-Amz-Expires must be a number of seconds from 1 to 604800")
		}
		sv.expires = n
	default:
		return refuse(http.StatusForbidden, "AccessDenied", "Access Denied: the simulated region answers signed requests only")
	}
	parts := strings.Split(sv.credential, "/")
	if len(parts) != 5 || parts[4] != "aws4_request" || parts[3] != "s3" {
		return refuse(http.StatusBadRequest, "AuthorizationHeaderMalformed", "the credential is malformed: "+sv.credential)
	}
	if parts[0] != s.auth.AccessKey {
		return refuse(http.StatusForbidden, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.")
	}
	if parts[2] != s.auth.Region {
		return refuse(http.StatusBadRequest, "AuthorizationHeaderMalformed", "the region '"+parts[2]+"' is wrong; expecting '"+s.auth.Region+"'")
	}
	when, err := time.Parse("20060102T150405Z", sv.date)
	if err != nil || !strings.HasPrefix(sv.date, parts[1]) {
		return refuse(http.StatusForbidden, "AccessDenied", "X-Amz-Date is missing or does not match the credential's date")
	}
	now := s.now()
	if sv.presigned {
		if now.After(when.Add(time.Duration(sv.expires) * time.Second)) {
			return refuse(http.StatusForbidden, "AccessDenied", "Request has expired")
		}
	} else if d := now.Sub(when); d > maxSkew || d < -maxSkew {
		return refuse(http.StatusForbidden, "RequestTimeTooSkewed", "The difference between the request time and the current time is too large.")
	}
	if tok := r.Header.Get("X-Amz-Security-Token") + q.Get("X-Amz-Security-Token"); tok != "" {
		return refuse(http.StatusForbidden, "InvalidToken", "The provided token is malformed or otherwise invalid.")
	}
	scope := strings.Join(parts[1:], "/")
	canonical := canonicalRequest(r, sv)
	sum := sha256.Sum256([]byte(canonical))
	toSign := "AWS4-HMAC-SHA256\n" + sv.date + "\n" + scope + "\n" + hex.EncodeToString(sum[:])
	m := hmac.New(sha256.New, s.signingKey(parts[1]))
	m.Write([]byte(toSign))
	want := hex.EncodeToString(m.Sum(nil))
	if !hmac.Equal([]byte(want), []byte(sv.signature)) {
		return refuse(http.StatusForbidden, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. Check your key and signing method.")
	}
	if len(sv.payload) == 64 && r.Body != nil {
		want, err := hex.DecodeString(sv.payload)
		if err != nil {
			return refuse(http.StatusBadRequest, "InvalidArgument", "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-... or a SHA-256 in hex")
		}
		r.Body = &sha256Body{ReadCloser: r.Body, h: sha256.New(), want: want}
	}
	return nil
}

// canonicalRequest is SigV4's canonical form of r: the path as sent (S3
// does not normalise it), the query sorted and encoded, the signed headers,
// the payload's hash.
func canonicalRequest(r *http.Request, sv sigv4) string {
	var b strings.Builder
	b.WriteString(r.Method)
	b.WriteByte('\n')
	path, rawQuery, _ := strings.Cut(r.RequestURI, "?")
	if path == "" {
		path = "/"
	}
	b.WriteString(path)
	b.WriteByte('\n')
	type kv struct{ k, v string }
	var params []kv
	for _, p := range strings.Split(rawQuery, "&") {
		if p == "" {
			continue
		}
		k, v, _ := strings.Cut(p, "=")
		k, v = unescape(k), unescape(v)
		if sv.presigned && k == "X-Amz-Signature" {
			continue
		}
		params = append(params, kv{uriEncode(k), uriEncode(v)})
	}
	sort.Slice(params, func(i, j int) bool {
		if params[i].k != params[j].k {
			return params[i].k < params[j].k
		}
		return params[i].v < params[j].v
	})
	for i, p := range params {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p.k + "=" + p.v)
	}
	b.WriteByte('\n')
	for _, name := range strings.Split(sv.signedHeaders, ";") {
		var v string
		switch name {
		case "host":
			v = r.Host
		case "content-length":
			v = r.Header.Get("Content-Length")
			if v == "" && r.ContentLength >= 0 {
				v = strconv.FormatInt(r.ContentLength, 10)
			}
		case "transfer-encoding":
			v = strings.Join(r.TransferEncoding, ",")
		default:
			v = strings.Join(r.Header.Values(name), ",")
		}
		b.WriteString(name + ":" + strings.Join(strings.Fields(v), " ") + "\n")
	}
	b.WriteString("\n" + sv.signedHeaders + "\n" + sv.payload)
	return b.String()
}

func unescape(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// uriEncode is SigV4's encoding: every byte but A-Z a-z 0-9 - _ . ~ as %XX.
func uriEncode(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

// errSHA256Mismatch is a body that does not match the SHA-256 it was
// signed with.
var errSHA256Mismatch = errors.New("the body does not match its x-amz-content-sha256")

// sha256Body hashes a body as it is read and fails at its end if the hash
// is not the one signed.
type sha256Body struct {
	io.ReadCloser
	h    hash.Hash
	want []byte
}

func (b *sha256Body) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.h.Write(p[:n])
	if err == io.EOF && !hmac.Equal(b.h.Sum(nil), b.want) {
		return n, errSHA256Mismatch
	}
	return n, err
}
