package wire

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/google/go-cmp/cmp"
)

// signBoth signs two copies of the request that build makes, one with
// sigv4 and one with the SDK's signer as the raw client configures it, and
// returns both requests' headers, hosts and queries; ok is sigv4's answer.
func signBoth(t testing.TB, build func() *http.Request, creds aws.Credentials, payloadHash, region string, now time.Time) (ours, sdk *http.Request, ok bool) {
	ours, sdk = build(), build()
	ok = (&Signer{}).Sign(creds, ours, payloadHash, "s3", region, now)
	signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
	if err := signer.SignHTTP(t.Context(), creds, sdk, payloadHash, "s3", region, now); err != nil {
		t.Fatal(err)
	}
	return ours, sdk, ok
}

type signed struct {
	Header        http.Header
	Host, RawPath string
	RawQuery      string
}

func signedOf(r *http.Request) signed {
	return signed{Header: r.Header, Host: r.Host, RawPath: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery}
}

func TestSignerMatchesTheSDK(t *testing.T) {
	now := time.Date(2026, 12, 1, 23, 59, 59, 0, time.FixedZone("x", 3600))
	creds := aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"}
	withToken := creds
	withToken.SessionToken = "token/with+odd=chars"
	tests := []struct {
		name    string
		method  string
		url     string
		host    string // Request.Host, when set
		length  int64
		headers map[string][]string
		creds   aws.Credentials
		payload string
	}{
		{name: "a PutObject as the raw client sends it", method: "PUT", url: "http://127.0.0.1:9000/dst/up/f-00001.json?x-id=PutObject", length: 102400,
			headers: map[string][]string{"Content-Type": {"application/json"}, "X-Amz-Checksum-Crc32": {"AAAAAA=="}, "X-Amz-Sdk-Checksum-Algorithm": {"CRC32"},
				"X-Amz-Content-Sha256": {UnsignedPayload}, "User-Agent": {"s3bulk"}}, payload: UnsignedPayload},
		{name: "a GetObject with a range, on a virtual host", method: "GET", url: "https://bucket.s3.us-west-2.amazonaws.com/a/b.txt?x-id=GetObject",
			headers: map[string][]string{"Range": {"bytes=0-99"}, "If-Match": {`"abc"`}, "Accept-Encoding": {"identity"}, "X-Amz-Content-Sha256": {EmptyPayloadHash}},
			payload: EmptyPayloadHash},
		{name: "a CopyObject with a session token and an escaped key", method: "PUT", url: "http://localhost:9000/dst/k%20with%20spaces/%E2%82%AC?x-id=CopyObject",
			headers: map[string][]string{"X-Amz-Copy-Source": {"src/k%20with%20spaces/%E2%82%AC"}, "X-Amz-Metadata-Directive": {"COPY"}},
			creds:   withToken, payload: EmptyPayloadHash},
		{name: "the default port is dropped from the host", method: "GET", url: "http://example.com:80/b/k?x-id=GetObject", payload: EmptyPayloadHash},
		{name: "and https's", method: "GET", url: "https://example.com:443/b/k?x-id=GetObject", payload: EmptyPayloadHash},
		{name: "an IPv6 host with its default port", method: "GET", url: "http://[::1]:80/b/k?x-id=GetObject", payload: EmptyPayloadHash},
		{name: "an IPv6 host with another port", method: "GET", url: "http://[::1]:9000/b/k?x-id=GetObject", payload: EmptyPayloadHash},
		{name: "Request.Host wins over the URL's", method: "GET", url: "http://127.0.0.1:9000/b/k?x-id=GetObject", host: "b.example.com:9000", payload: EmptyPayloadHash},
		{name: "header values with runs of spaces and white space at the ends", method: "PUT", url: "http://h/b/k?x-id=PutObject", length: 1,
			headers: map[string][]string{"X-Amz-Meta-A": {"  two  spaces   here  "}, "X-Amz-Meta-B": {"\t tab\t and  more \n"}, "X-Amz-Meta-C": {"one", "two  values"}, "Content-Disposition": {"attachment;  filename=\"a  b\""}},
			payload: UnsignedPayload},
		{name: "an empty header value", method: "PUT", url: "http://h/b/k?x-id=PutObject", headers: map[string][]string{"X-Amz-Meta-Empty": {""}}, payload: UnsignedPayload},
		{name: "a zero content length is not signed", method: "PUT", url: "http://h/b/k?x-id=PutObject", length: 0, payload: UnsignedPayload},
		{name: "a query of two pairs, sorted", method: "GET", url: "http://h/b/k?x-id=GetObject&partNumber=2", payload: EmptyPayloadHash},
		{name: "no query and the bucket's root", method: "GET", url: "http://h/b", payload: EmptyPayloadHash},
		{name: "headers the signer ignores", method: "PUT", url: "http://h/b/k?x-id=PutObject", length: 5,
			headers: map[string][]string{"Expect": {"100-continue"}, "X-Amzn-Trace-Id": {"x"}, "Transfer-Encoding": {"chunked"}, "Authorization": {"old"}, "Content-Length": {"5"}},
			payload: UnsignedPayload},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.creds
			if c.AccessKeyID == "" {
				c = creds
			}
			build := func() *http.Request {
				u, err := url.Parse(tt.url)
				if err != nil {
					t.Fatal(err)
				}
				r := &http.Request{Method: tt.method, URL: u, Host: tt.host, ContentLength: tt.length, Header: http.Header{}}
				for k, v := range tt.headers {
					r.Header[k] = append([]string(nil), v...)
				}
				return r
			}
			ours, sdk, ok := signBoth(t, build, c, tt.payload, "us-west-2", now)
			if !ok {
				t.Fatal("sigv4 left the request to the SDK")
			}
			if diff := cmp.Diff(signedOf(sdk), signedOf(ours)); diff != "" {
				t.Errorf("signed request differs from the SDK's (-sdk +ours):\n%s", diff)
			}
		})
	}
}

// Requests it does not canonicalize itself are left to the SDK, untouched
// but for what the SDK's signer sets again.
func TestSignerLeavesOddRequestsToTheSDK(t *testing.T) {
	creds := aws.Credentials{AccessKeyID: "AKID", SecretAccessKey: "secret"}
	for _, raw := range []string{
		"http://h/b/k?prefix=a%2Fb",        // an escaped query
		"http://h/b/k?a=1&a=2",             // a name twice
		"http://h/b/k?uploads",             // a name without a value
		"http://h/b/k?list-type=2&p=a+b",   // a plus
		"http://h/b/k?x=%E2%82%AC&y=plain", // escapes again
	} {
		u, _ := url.Parse(raw)
		r := &http.Request{Method: "GET", URL: u, Header: http.Header{}}
		if (&Signer{}).Sign(creds, r, EmptyPayloadHash, "s3", "us-east-1", time.Now()) {
			t.Errorf("%s: signed, want it left to the SDK", raw)
		}
		if r.Header.Get("Authorization") != "" || r.URL.RawQuery != u.RawQuery {
			t.Errorf("%s: changed the request it left to the SDK", raw)
		}
	}
	u, _ := url.Parse("http://h/b/k?x-id=PutObject")
	r := &http.Request{Method: "PUT", URL: u, Header: http.Header{"X-Amz-Meta-A": {"1"}, "x-amz-meta-a": {"2"}}}
	if (&Signer{}).Sign(creds, r, UnsignedPayload, "s3", "us-east-1", time.Now()) {
		t.Error("signed a request with two keys of one header name, want it left to the SDK")
	}
}

// The signing key is derived again when the day, the credentials or the
// region change.
func TestSignerKeyFollowsDayAndCredentials(t *testing.T) {
	s := &Signer{}
	a := aws.Credentials{AccessKeyID: "A", SecretAccessKey: "one"}
	b := aws.Credentials{AccessKeyID: "A", SecretAccessKey: "two"}
	day1, day2 := time.Date(2026, 12, 1, 23, 59, 59, 0, time.UTC), time.Date(2026, 12, 2, 0, 0, 1, 0, time.UTC)
	for _, c := range []struct {
		creds  aws.Credentials
		now    time.Time
		region string
	}{{a, day1, "us-east-1"}, {a, day2, "us-east-1"}, {b, day2, "us-east-1"}, {b, day2, "eu-west-1"}, {a, day1, "us-east-1"}} {
		build := func() *http.Request {
			u, _ := url.Parse("http://h/b/k?x-id=GetObject")
			return &http.Request{Method: "GET", URL: u, Header: http.Header{}}
		}
		ours := build()
		if !s.Sign(c.creds, ours, EmptyPayloadHash, "s3", c.region, c.now) {
			t.Fatal("left to the SDK")
		}
		_, sdk, _ := signBoth(t, build, c.creds, EmptyPayloadHash, c.region, c.now)
		if got, want := ours.Header.Get("Authorization"), sdk.Header.Get("Authorization"); got != want {
			t.Errorf("%s %s %s: Authorization %q, SDK's %q", c.creds.SecretAccessKey, c.now, c.region, got, want)
		}
	}
}

func FuzzSignerMatchesTheSDK(f *testing.F) {
	f.Add("PUT", "/dst/up/f-00001.json", "x-id=PutObject", "Content-Type", "application/json", "X-Amz-Meta-A", "  a  b ", int64(100), "tok")
	f.Add("GET", "/b/%E2%82%AC/k%20x", "x-id=GetObject&partNumber=1", "Range", "bytes=0-1", "if-match", "\"e\"", int64(0), "")
	f.Fuzz(func(t *testing.T, method, path, query, k1, v1, k2, v2 string, length int64, token string) {
		u, err := url.Parse("http://127.0.0.1:9000" + path + "?" + query)
		if err != nil || u.Opaque != "" {
			t.Skip()
		}
		if !validHeader(k1, v1) || !validHeader(k2, v2) {
			t.Skip()
		}
		creds := aws.Credentials{AccessKeyID: "AKID", SecretAccessKey: "secret", SessionToken: token}
		build := func() *http.Request {
			u := *u
			r := &http.Request{Method: method, URL: &u, ContentLength: length, Header: http.Header{}}
			r.Header[k1] = append(r.Header[k1], v1)
			r.Header[k2] = append(r.Header[k2], v2)
			return r
		}
		ours, sdk, ok := signBoth(t, build, creds, UnsignedPayload, "us-east-1", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
		if !ok {
			return
		}
		if diff := cmp.Diff(signedOf(sdk), signedOf(ours)); diff != "" {
			t.Errorf("signed request differs from the SDK's (-sdk +ours):\n%s", diff)
		}
	})
}

// validHeader reports whether k: v could be sent (net/http refuses the
// rest before a signature matters).
func validHeader(k, v string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; c <= ' ' || c >= 0x7f || c == ':' {
			return false
		}
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

func BenchmarkSign(b *testing.B) {
	creds := aws.Credentials{AccessKeyID: "AKID", SecretAccessKey: "secret"}
	u, _ := url.Parse("http://127.0.0.1:9000/dst/up/f-00001.json?x-id=PutObject")
	build := func() *http.Request {
		r := &http.Request{Method: "PUT", URL: u, Host: u.Host, ContentLength: 102400, Header: make(http.Header, 16)}
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-Amz-Checksum-Crc32", "AAAAAA==")
		r.Header.Set("X-Amz-Sdk-Checksum-Algorithm", "CRC32")
		r.Header.Set("X-Amz-Content-Sha256", UnsignedPayload)
		r.Header.Set("User-Agent", "s3bulk")
		return r
	}
	b.Run("request alone", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			build()
		}
	})
	b.Run("sigv4", func(b *testing.B) {
		s := &Signer{}
		b.ReportAllocs()
		for b.Loop() {
			s.Sign(creds, build(), UnsignedPayload, "s3", "us-east-1", time.Now())
		}
	})
	b.Run("sdk", func(b *testing.B) {
		s := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
		b.ReportAllocs()
		for b.Loop() {
			_ = s.SignHTTP(b.Context(), creds, build(), UnsignedPayload, "s3", "us-east-1", time.Now())
		}
	})
}
