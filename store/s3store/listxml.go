package s3store

import (
	"bytes"
	"context"
	"io"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/s3bulk/s3bulk/store/s3store/internal/wire"
)

// A lighter ListObjectsV2 decoder.
//
// Listing a million keys, three quarters of the client's CPU went to the
// SDK's decoding of ListObjectsV2 responses: encoding/xml tokenizes every
// byte through an interface, and the SDK allocates a pointer for every
// field of every object, most of which a listing never reads. listDecoder
// takes the SDK's place for ListPage's requests only: it reads the body
// once and scans it for the fields a page carries (each object's Key,
// Size, LastModified, ETag and StorageClass, each CommonPrefixes' Prefix,
// IsTruncated and NextContinuationToken), straight into a store.Page.
//
// It accepts only what it fully understands and gives every field the
// value the SDK would: element names compared without regard to case,
// the same character references and character checks as encoding/xml,
// the same number, boolean and time parsing. Anything else (a CDATA
// section, a DOCTYPE, a raw carriage return, a namespace prefix, a nested
// element where a value belongs, a value that does not parse) and every
// answer that is not a 2xx goes to the SDK's own decoder with the same
// bytes, so an odd but valid answer is decoded as before and a bad one
// fails as before. Elements a page does not use are checked only for
// being well formed. listxml_test.go compares the two decoders on the
// answers of real servers and on fuzzed documents.

// listDecoderID names listDecoder in the middleware stack.
const listDecoderID = "s3bulk.ListObjectsV2Decoder"

// lightPage is the result-metadata key of the page listDecoder decoded.
type lightPage struct{}

// addListDecoder puts listDecoder in place of the SDK's deserializer,
// which it keeps for what it does not decode itself.
func (c *Client) addListDecoder(stack *middleware.Stack) error {
	sdk, ok := stack.Deserialize.Get("OperationDeserializer")
	if !ok {
		return nil
	}
	_, err := stack.Deserialize.Swap("OperationDeserializer", &listDecoder{sdk: sdk, c: c})
	return err
}

type listDecoder struct {
	sdk middleware.DeserializeMiddleware
	c   *Client
}

func (*listDecoder) ID() string { return listDecoderID }

// bodies are the buffers response bodies are read into.
var bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func (m *listDecoder) HandleDeserialize(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (
	middleware.DeserializeOutput, middleware.Metadata, error,
) {
	out, md, err := next.HandleDeserialize(ctx, in)
	replay := middleware.DeserializeHandlerFunc(func(context.Context, middleware.DeserializeInput) (
		middleware.DeserializeOutput, middleware.Metadata, error,
	) {
		return out, md, err
	})
	resp, ok := out.RawResponse.(*smithyhttp.Response)
	if err != nil || !ok || resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return m.sdk.HandleDeserialize(ctx, in, replay)
	}
	buf := bodies.Get().(*bytes.Buffer)
	buf.Reset()
	defer bodies.Put(buf)
	if resp.ContentLength > 0 && resp.ContentLength < 64<<20 {
		buf.Grow(int(resp.ContentLength))
	}
	_, rerr := buf.ReadFrom(resp.Body)
	// The SDK's deserializer closes the body it decodes, and closing it
	// is what ends the request's context in stallTransport: a body left
	// open keeps that context, and every context and value of the request
	// under it, in its parent's until the listing ends (4 KiB a page, 4
	// MiB a million keys). The light decoder takes the SDK's place, so it
	// closes what it read; the SDK, when it decodes after all, reads a
	// copy.
	resp.Body.Close()
	if rerr != nil {
		return out, md, &smithy.DeserializationError{Err: rerr}
	}
	if page, ok := wire.DecodeListPage(buf.Bytes()); ok {
		// An empty output: ListPage reads the page from the metadata.
		out.Result = &s3.ListObjectsV2Output{}
		md.Set(lightPage{}, &page)
		return out, md, nil
	}
	m.c.listFallbacks.Add(1)
	m.c.sayOnce("sdk-list-decoder", "a ListObjectsV2 answer is decoded by the SDK: it has XML the light decoder does not read")
	resp.Body = io.NopCloser(bytes.NewReader(buf.Bytes()))
	return m.sdk.HandleDeserialize(ctx, in, replay)
}
