package s3store

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/simregion"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store/internal/wire"
)

// cannedTransport answers every request with 200 and body.
type cannedTransport struct{ body []byte }

func (c cannedTransport) Do(r *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode:    http.StatusOK,
		Header:        http.Header{"Content-Type": {"application/xml"}},
		Body:          io.NopCloser(bytes.NewReader(c.body)),
		ContentLength: int64(len(c.body)),
		Request:       r,
	}, nil
}

// sdkDecode is the SDK's own decoding of a ListObjectsV2 answer.
func sdkDecode(body []byte) (store.Page, error) {
	c := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String("http://127.0.0.1:1"), UsePathStyle: true,
		Credentials: aws.AnonymousCredentials{}, HTTPClient: cannedTransport{body}, RetryMaxAttempts: 1,
	})
	out, err := c.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String("b")})
	if err != nil {
		return store.Page{}, err
	}
	return sdkPage(out), nil
}

const listHead = `<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
	`<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`

// S3's own example, with an owner, a checksum algorithm and a restore
// status, as AWS documents the answer.
const awsExample = listHead + `<Name>bucket</Name><Prefix/><KeyCount>2</KeyCount><MaxKeys>1000</MaxKeys>` +
	`<IsTruncated>true</IsTruncated><NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>` +
	`<Contents><Key>my-image.jpg</Key><LastModified>2009-10-12T17:50:30.000Z</LastModified>` +
	`<ETag>&quot;fba9dede5f27731c9771645a39863328&quot;</ETag><ChecksumAlgorithm>CRC32</ChecksumAlgorithm><ChecksumType>FULL_OBJECT</ChecksumType>` +
	`<Size>434234</Size><StorageClass>STANDARD</StorageClass>` +
	`<Owner><ID>75aa57f09aa0c8caeab4f8c24e99d10f8e7faeebf76c078efc7c6caea54ba06a</ID><DisplayName>mtd@amazon.com</DisplayName></Owner>` +
	`<RestoreStatus><IsRestoreInProgress>false</IsRestoreInProgress><RestoreExpiryDate>2012-12-21T00:00:00.000Z</RestoreExpiryDate></RestoreStatus></Contents>` +
	`<Contents><Key>photos/2006/&lt;a&amp;b&gt; &#233;&#x1F600;</Key><LastModified>2009-10-12T17:50:30Z</LastModified>` +
	`<ETag>"599bab3ed2c697f1d26842727561fd94-3"</ETag><Size>0</Size><StorageClass>GLACIER</StorageClass></Contents>` +
	`<CommonPrefixes><Prefix>my-a/</Prefix></CommonPrefixes><CommonPrefixes><Prefix>photos/</Prefix></CommonPrefixes>` +
	`</ListBucketResult>`

func contents(key, extra string) string {
	return `<Contents><Key>` + key + `</Key><LastModified>2024-01-02T03:04:05.678Z</LastModified><ETag>"d41d8cd98f00b204e9800998ecf8427e"</ETag><Size>7</Size>` + extra + `</Contents>`
}

// listCases are answers the light decoder reads itself (light true) or
// leaves to the SDK; either way the result must be the SDK's.
var listCases = []struct {
	name  string
	light bool
	body  string
}{
	{"aws example", true, awsExample},
	{"empty listing", true, listHead + `<Name>b</Name><KeyCount>0</KeyCount><IsTruncated>false</IsTruncated></ListBucketResult>`},
	{"self-closing root", true, `<ListBucketResult/>`},
	{"not truncated drops the token", true, listHead + `<IsTruncated>false</IsTruncated><NextContinuationToken>t</NextContinuationToken>` + contents("a", "") + `</ListBucketResult>`},
	{"indented", true, listHead + "\n  <IsTruncated>TRUE</IsTruncated>\n  <NextContinuationToken>tok</NextContinuationToken>\n  <Contents>\n    <Key>  spaced key\t</Key>\n    <Size>12</Size>\n  </Contents>\n</ListBucketResult>\n"},
	{"names in another case", true, `<listbucketresult><contents><KEY>k</KEY><size>3</size><etag>"x"</etag><storageclass>REDUCED_REDUNDANCY</storageclass></contents><commonprefixes><prefix>p/</prefix></commonprefixes><istruncated>1</istruncated><nextcontinuationtoken>n</nextcontinuationtoken></listbucketresult>`},
	{"comments and unknown elements", true, `<!-- before --><R a="1" b = 'x:y' xmlns:q="u"><!-- c --><Unknown><Deep><Deeper x="1"/>text &amp; more</Deep></Unknown>` + contents("k", `<Extra>e</Extra><!-- in -->`) + ` <?xml version="1.0"?> </R>trailing junk <<`},
	{"prefixes merge into key order", true, listHead + contents("a", "") + contents("c", "") + `<CommonPrefixes><Prefix>b/</Prefix></CommonPrefixes><CommonPrefixes><Prefix>d/</Prefix></CommonPrefixes></ListBucketResult>`},
	{"empty values", true, listHead + `<Contents><Key></Key><ETag/><StorageClass/></Contents><CommonPrefixes><Prefix/></CommonPrefixes><CommonPrefixes></CommonPrefixes></ListBucketResult>`},
	{"a repeated field keeps the last", true, listHead + `<Contents><Key>a</Key><Key>b</Key><Size>1</Size><Size>2</Size></Contents></ListBucketResult>`},
	{"an empty reference", false, listHead + contents("&#48;&#x41;&#X;", "") + `</ListBucketResult>`},
	{"character references", true, listHead + contents("&#48;&#x41;&#00000065;&#x10FFFF;&#13;", "") + `</ListBucketResult>`},
	{"non-ASCII", true, listHead + contents("日本語/ключ/ü", "") + `</ListBucketResult>`},
	{"offset time", true, listHead + `<Contents><Key>k</Key><LastModified>2024-01-02T03:04:05+02:00</LastModified></Contents></ListBucketResult>`},
	{"CDATA", false, listHead + `<Contents><Key><![CDATA[a<b]]></Key></Contents></ListBucketResult>`},
	{"DOCTYPE", false, `<!DOCTYPE x><ListBucketResult>` + contents("k", "") + `</ListBucketResult>`},
	{"a raw carriage return", false, listHead + contents("a\r\nb", "") + `</ListBucketResult>`},
	{"a namespace prefix", false, `<s3:ListBucketResult xmlns:s3="u"><s3:Contents><s3:Key>k</s3:Key></s3:Contents></s3:ListBucketResult>`},
	{"another encoding", false, `<?xml version="1.0" encoding="ISO-8859-1"?><ListBucketResult>` + contents("k", "") + `</ListBucketResult>`},
	{"a bad size", false, listHead + `<Contents><Key>k</Key><Size>1e3</Size></Contents></ListBucketResult>`},
	{"an empty size", false, listHead + `<Contents><Key>k</Key><Size/></Contents></ListBucketResult>`},
	{"a bad key count", false, listHead + `<KeyCount>many</KeyCount></ListBucketResult>`},
	{"a bad restore date", false, listHead + `<Contents><Key>k</Key><RestoreStatus><RestoreExpiryDate>soon</RestoreExpiryDate></RestoreStatus></Contents></ListBucketResult>`},
	{"a bad time", false, listHead + `<Contents><Key>k</Key><LastModified>yesterday</LastModified></Contents></ListBucketResult>`},
	{"a bad boolean", false, listHead + `<IsTruncated>yes</IsTruncated></ListBucketResult>`},
	{"an element in a value", false, listHead + `<Contents><Key>a<b/>c</Key></Contents></ListBucketResult>`},
	{"a comment in a value", false, listHead + `<Contents><Key>a<!-- -->c</Key></Contents></ListBucketResult>`},
	{"a comment with --", false, listHead + `<!-- a -- b --></ListBucketResult>`},
	{"a comment ending in -", false, listHead + `<!-- a ---></ListBucketResult>`},
	{"an unknown entity", false, listHead + contents("&nbsp;", "") + `</ListBucketResult>`},
	{"an illegal character", false, listHead + contents("a&#0;b", "") + `</ListBucketResult>`},
	{"a raw control character", false, listHead + contents("a\x01b", "") + `</ListBucketResult>`},
	{"a surrogate reference", false, listHead + contents("&#xD800;", "") + `</ListBucketResult>`},
	{"invalid UTF-8", false, listHead + contents("a\xffb", "") + `</ListBucketResult>`},
	{"mismatched end tag", false, listHead + `<Contents><Key>k</Value></Contents></ListBucketResult>`},
	{"cut short", false, listHead + contents("k", "")},
	{"]]> in text", false, listHead + contents("a]]>b", "") + `</ListBucketResult>`},
	{"an empty body", false, ``},
}

func TestListDecoderAgreesWithTheSDK(t *testing.T) {
	for _, tt := range listCases {
		t.Run(tt.name, func(t *testing.T) {
			light, ok := wire.DecodeListPage([]byte(tt.body))
			if ok != tt.light {
				t.Errorf("light decoder ok = %v, want %v", ok, tt.light)
			}
			sdk, err := sdkDecode([]byte(tt.body))
			if !ok {
				return // the SDK decodes it, whatever it says
			}
			if err != nil {
				t.Fatalf("the light decoder read an answer the SDK refuses (%v): %+v", err, light)
			}
			if diff := cmp.Diff(sdk, light); diff != "" {
				t.Errorf("page (-sdk +light):\n%s", diff)
			}
		})
	}
	// What the SDK makes of the first case, spelled out, so that both
	// decoders cannot agree on nothing.
	page, _ := wire.DecodeListPage([]byte(awsExample))
	want := store.Page{
		Objects: []store.Object{
			{Key: "my-a/", IsPrefix: true},
			{Key: "my-image.jpg", Size: 434234, ModTime: time.Date(2009, 10, 12, 17, 50, 30, 0, time.UTC), ETag: "fba9dede5f27731c9771645a39863328", StorageClass: "STANDARD"},
			{Key: "photos/", IsPrefix: true},
			{Key: "photos/2006/<a&b> é\U0001F600", ModTime: time.Date(2009, 10, 12, 17, 50, 30, 0, time.UTC), ETag: "599bab3ed2c697f1d26842727561fd94-3", StorageClass: "GLACIER"},
		},
		Next: "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=",
	}
	if diff := cmp.Diff(want, page); diff != "" {
		t.Errorf("the AWS example (-want +got):\n%s", diff)
	}
}

// FuzzListDecoder: whatever the light decoder accepts, the SDK decodes to
// the same page.
func FuzzListDecoder(f *testing.F) {
	for _, tt := range listCases {
		f.Add([]byte(tt.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		light, ok := wire.DecodeListPage(body)
		if !ok {
			return
		}
		sdk, err := sdkDecode(body)
		if err != nil {
			t.Fatalf("the light decoder read an answer the SDK refuses (%v): %+v", err, light)
		}
		if diff := cmp.Diff(sdk, light); diff != "" {
			t.Errorf("page (-sdk +light):\n%s", diff)
		}
	})
}

// xmlKeys are keys that XML must escape or that sort unexpectedly.
var xmlKeys = []string{
	"a&b", "a<b>c", `quote"d`, "apos'd", "tab\tkey", "new\nline", "sp ace/x", "日本語/ключ",
	"emoji-\U0001F600", "100%/x", "plus+sign", "dir/sub/leaf", "dir/sub2/leaf", "dir/leaf", "z]]>y",
}

// comparePages lists every page of bucket with both decoders, for a few
// queries and a small page size, and wants the same pages and no answer
// left to the SDK.
func comparePages(t *testing.T, c *Client, bucket string) {
	t.Helper()
	ctx := t.Context()
	pages := 0
	for _, q := range []struct{ prefix, delimiter string }{{"", ""}, {"", "/"}, {"dir/", "/"}, {"dir/", ""}} {
		in := &s3.ListObjectsV2Input{Bucket: aws.String(bucket), MaxKeys: aws.Int32(4)}
		if q.prefix != "" {
			in.Prefix = aws.String(q.prefix)
		}
		if q.delimiter != "" {
			in.Delimiter = aws.String(q.delimiter)
		}
		for {
			lightOut, err := c.s3.ListObjectsV2(ctx, in, c.withListDecoder)
			if err != nil {
				t.Fatal(err)
			}
			light, ok := lightOut.ResultMetadata.Get(lightPage{}).(*store.Page)
			if !ok {
				t.Fatalf("%+v: the light decoder did not decode the answer", q)
			}
			sdkOut, err := c.s3.ListObjectsV2(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(sdkPage(sdkOut), *light); diff != "" {
				t.Fatalf("%+v page %d (-sdk +light):\n%s", q, pages, diff)
			}
			pages++
			if light.Next == "" {
				break
			}
			in.ContinuationToken = aws.String(light.Next)
		}
	}
	if pages < 8 {
		t.Errorf("%d pages compared, want several per query", pages)
	}
	if n := c.listFallbacks.Load(); n != 0 {
		t.Errorf("%d answers left to the SDK, want 0", n)
	}
}

func TestListDecoderOnTheServer(t *testing.T) {
	srv := s3test.Start(t)
	srv.Require(t, s3test.Listing, s3test.OddKeys)
	c := newTestClient(t, srv, nil)
	s := c.Bucket(srv.NewBucket(t))
	for i, k := range xmlKeys {
		mustPut(t, s, k, []byte(strings.Repeat("x", i)), store.Metadata{})
	}
	comparePages(t, c, s.Bucket())
}

func TestListDecoderOnTheLatencyFixture(t *testing.T) {
	keys := append(simregion.ReportKeys(40), xmlKeys...)
	fk, err := simregion.Start(simregion.Config{Bucket: "src", Keys: keys, Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fk.Close() })
	c, err := NewClient(t.Context(), Config{EndpointURL: fk.URL(), AccessKey: "a", SecretKey: "s", Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	comparePages(t, c, "src")
}

// bodyCounter is an HTTP client that counts the response bodies it hands
// out and how many of them were closed.
type bodyCounter struct {
	base           s3.HTTPClient
	opened, closed atomic.Int64
}

func (c *bodyCounter) Do(r *http.Request) (*http.Response, error) {
	resp, err := c.base.Do(r)
	if err == nil {
		c.opened.Add(1)
		resp.Body = &countedBody{ReadCloser: resp.Body, closed: &c.closed}
	}
	return resp, err
}

type countedBody struct {
	io.ReadCloser
	once   sync.Once
	closed *atomic.Int64
}

func (b *countedBody) Close() error {
	b.once.Do(func() { b.closed.Add(1) })
	return b.ReadCloser.Close()
}

// A response body left open keeps its request's context and values
// alive until the listing's context ends: every page's answer must be
// closed by the time ListObjectsV2 returns, whichever decoder read it.
func TestListDecoderClosesEveryAnswer(t *testing.T) {
	t.Run("pages the light decoder reads from the server", func(t *testing.T) {
		srv := s3test.Start(t)
		srv.Require(t, s3test.Listing)
		c := newTestClient(t, srv, nil)
		s := c.Bucket(srv.NewBucket(t))
		for i := range 5 {
			mustPut(t, s, fmt.Sprintf("k%d", i), []byte("x"), store.Metadata{})
		}
		bc := &bodyCounter{}
		counted := func(o *s3.Options) { bc.base, o.HTTPClient = o.HTTPClient, bc }
		in := &s3.ListObjectsV2Input{Bucket: aws.String(s.Bucket()), MaxKeys: aws.Int32(2)}
		for pages := 1; ; pages++ {
			out, err := c.s3.ListObjectsV2(t.Context(), in, c.withListDecoder, counted)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := out.ResultMetadata.Get(lightPage{}).(*store.Page); !ok {
				t.Fatal("the light decoder did not decode the answer")
			}
			if o, cl := bc.opened.Load(), bc.closed.Load(); o != int64(pages) || cl != o {
				t.Fatalf("after %d pages: %d answers, %d closed", pages, o, cl)
			}
			if !aws.ToBool(out.IsTruncated) {
				break
			}
			in.ContinuationToken = out.NextContinuationToken
		}
	})
	for _, tt := range listCases {
		t.Run(tt.name, func(t *testing.T) {
			bc := &bodyCounter{base: cannedTransport{[]byte(tt.body)}}
			c := s3.New(s3.Options{
				Region: "us-east-1", BaseEndpoint: aws.String("http://127.0.0.1:1"), UsePathStyle: true,
				Credentials: aws.AnonymousCredentials{}, HTTPClient: bc, RetryMaxAttempts: 1,
			})
			_, _ = c.ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: aws.String("b")}, (&Client{}).withListDecoder)
			if o, cl := bc.opened.Load(), bc.closed.Load(); o != 1 || cl != 1 {
				t.Errorf("%d answers, %d closed; want 1 and 1", o, cl)
			}
		})
	}
}
