package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/internal/objopts"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// objectFlags are the request options of cp, mv and sync that are not
// metadata: encryption, ACL, Requester Pays, the source's region
// (objopts.Request), and the source's own endpoint or profile. They become
// options of the source and destination stores (s3store.Options), which
// send them on every request that needs them.
type objectFlags struct {
	req               objopts.Request
	sourceEndpointURL string
	sourceProfile     string
}

func (f *objectFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.req.SSE, "sse", "", "server-side encryption of the objects written: AES256 (SSE-S3) or aws:kms (SSE-KMS)")
	fl.StringVar(&f.req.SSEKMSKeyID, "sse-kms-key-id", "", "KMS key (id, ARN or alias) of the objects written; implies --sse aws:kms")
	fl.StringVar(&f.req.SSEC, "sse-c", "", "AES256: SSE-C with the key of --sse-c-key, for the objects written (uploads, copies) or read (downloads)")
	fl.StringVar(&f.req.SSECKey, "sse-c-key", "", "the 32-byte SSE-C key (raw or base64), from file://PATH or env://VAR, never literally")
	fl.StringVar(&f.req.SSECCopySource, "sse-c-copy-source", "", "AES256: the source objects of an S3 to S3 copy are SSE-C encrypted with --sse-c-copy-source-key")
	fl.StringVar(&f.req.SSECCopySourceKey, "sse-c-copy-source-key", "", "the 32-byte SSE-C key of the copy's source objects, from file://PATH or env://VAR")
	fl.StringVar(&f.req.ACL, "acl", "", "canned ACL of the objects written: "+strings.Join(s3store.CannedACLs, ", "))
	fl.StringVar(&f.req.RequestPayer, "request-payer", "", "requester: agree to pay for the requests to Requester Pays buckets (sent on every request)")
	fl.StringVar(&f.req.SourceRegion, "source-region", "", "region of the source bucket when it differs from --region (S3 to S3 copies are sent to the destination's region)")
	fl.StringVar(&f.sourceEndpointURL, "source-endpoint-url", "", "S3 endpoint of the source bucket when it is not the destination's (another provider): the bytes stream through this machine")
	fl.StringVar(&f.sourceProfile, "source-profile", "", "AWS profile of the source bucket (another account); it wins over AWS_* credentials in the environment, which the destination keeps using")
}

// side says where the source lives when the source flags name its own
// endpoint or profile.
func (f *objectFlags) side(src s3url.Location) (sourceSide, error) {
	side := sourceSide{endpointURL: f.sourceEndpointURL, profile: f.sourceProfile}
	if side == (sourceSide{}) {
		return side, nil
	}
	if !src.IsS3() {
		flag := "--source-endpoint-url"
		if side.endpointURL == "" {
			flag = "--source-profile"
		}
		return side, usagef("%s: only for an S3 source, and the source %s is local", flag, src)
	}
	if side.endpointURL != "" {
		if err := checkEndpointURL("--source-endpoint-url", side.endpointURL); err != nil {
			return side, err
		}
	}
	return side, nil
}

// active reports whether any of the flags was given.
func (f *objectFlags) active() bool {
	return f.req.Active() || f.sourceEndpointURL != "" || f.sourceProfile != ""
}

// options returns the options of a transfer's source and destination
// stores (objopts.Request.Stores); every error is a usage error.
func (f *objectFlags) options(src, dst s3url.Location, env environ) (srcOpts, dstOpts s3store.Options, err error) {
	srcOpts, dstOpts, err = f.req.Stores(src, dst, env.lookup)
	if err != nil {
		return srcOpts, dstOpts, usageError{err}
	}
	return srcOpts, dstOpts, nil
}

// stores is options and side together: what the source and destination
// stores of a transfer from src to dst are given, and where the source
// lives.
func (f *objectFlags) stores(src, dst s3url.Location, env environ) (srcOpts, dstOpts s3store.Options, side sourceSide, err error) {
	if srcOpts, dstOpts, err = f.options(src, dst, env); err != nil {
		return srcOpts, dstOpts, side, err
	}
	side, err = f.side(src)
	return srcOpts, dstOpts, side, err
}
