package s3store

import (
	"context"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyauth "github.com/aws/smithy-go/auth"
	smithyendpoints "github.com/aws/smithy-go/endpoints"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// customEndpoint resolves every request of an S3-compatible endpoint to the
// one base URL the user gave, path-style or virtual-hosted.
//
// Why not the SDK's resolver: it evaluates AWS's endpoint rule set (access
// points, S3 Express, FIPS, dual-stack, Outposts...) on every request,
// which none of those servers have; profiling 5,000 small server-side
// copies put a large share of the client's CPU there. AWS endpoints (no
// custom URL) keep the SDK's resolver and all its rules.
type customEndpoint struct {
	base      url.URL
	pathStyle bool
}

func newCustomEndpoint(raw string, pathStyle bool) (*customEndpoint, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return &customEndpoint{base: *u, pathStyle: pathStyle}, nil
}

func (c *customEndpoint) ResolveEndpoint(_ context.Context, p s3.EndpointParameters) (smithyendpoints.Endpoint, error) {
	u := c.base
	if p.Bucket != nil && *p.Bucket != "" {
		if c.pathStyle {
			u.Path += "/" + *p.Bucket
		} else {
			u.Host = *p.Bucket + "." + u.Host
		}
	}
	region := ""
	if p.Region != nil {
		region = *p.Region
	}
	// S3 signs the path as sent: no double encoding, signing name "s3".
	var signer smithy.Properties
	smithyhttp.SetSigV4SigningName(&signer, "s3")
	smithyhttp.SetSigV4SigningRegion(&signer, region)
	smithyhttp.SetDisableDoubleEncoding(&signer, true)
	var props smithy.Properties
	smithyauth.SetAuthOptions(&props, []*smithyauth.Option{{SchemeID: "aws.auth#sigv4", SignerProperties: signer}})
	return smithyendpoints.Endpoint{URI: u, Properties: props}, nil
}
