package cli

import (
	"encoding/base64"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// objectFlags are the request options of cp, mv and sync that are not
// metadata: encryption, ACL, Requester Pays, the source's region. They
// become options of the source and destination stores (s3store.Options),
// which send them on every request that needs them.
type objectFlags struct {
	sse               string
	sseKMSKeyID       string
	sseC              string
	sseCKey           string
	sseCCopySource    string
	sseCCopySourceKey string
	acl               string
	requestPayer      string
	sourceRegion      string
	sourceEndpointURL string
	sourceProfile     string
}

func (f *objectFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.sse, "sse", "", "server-side encryption of the objects written: AES256 (SSE-S3) or aws:kms (SSE-KMS)")
	fl.StringVar(&f.sseKMSKeyID, "sse-kms-key-id", "", "KMS key (id, ARN or alias) of the objects written; implies --sse aws:kms")
	fl.StringVar(&f.sseC, "sse-c", "", "AES256: SSE-C with the key of --sse-c-key, for the objects written (uploads, copies) or read (downloads)")
	fl.StringVar(&f.sseCKey, "sse-c-key", "", "the 32-byte SSE-C key (raw or base64), from file://PATH or env://VAR, never literally")
	fl.StringVar(&f.sseCCopySource, "sse-c-copy-source", "", "AES256: the source objects of an S3 to S3 copy are SSE-C encrypted with --sse-c-copy-source-key")
	fl.StringVar(&f.sseCCopySourceKey, "sse-c-copy-source-key", "", "the 32-byte SSE-C key of the copy's source objects, from file://PATH or env://VAR")
	fl.StringVar(&f.acl, "acl", "", "canned ACL of the objects written: "+strings.Join(s3store.CannedACLs, ", "))
	fl.StringVar(&f.requestPayer, "request-payer", "", "requester: agree to pay for the requests to Requester Pays buckets (sent on every request)")
	fl.StringVar(&f.sourceRegion, "source-region", "", "region of the source bucket when it differs from --region (S3 to S3 copies are sent to the destination's region)")
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
	return f.sse != "" || f.sseKMSKeyID != "" || f.sseC != "" || f.sseCKey != "" || f.sseCCopySource != "" ||
		f.sseCCopySourceKey != "" || f.acl != "" || f.requestPayer != "" || f.sourceRegion != "" ||
		f.sourceEndpointURL != "" || f.sourceProfile != ""
}

// options checks the flags against the direction of a transfer and returns
// the options of its source and destination stores. Keys are read from
// their files or variables here, so a bad key fails before any request.
func (f *objectFlags) options(src, dst s3url.Location, env environ) (srcOpts, dstOpts s3store.Options, err error) {
	toS3 := func(flag string) error {
		if !dst.IsS3() {
			return usagef("%s: only for objects written to S3, and the destination %s is local", flag, dst)
		}
		return nil
	}
	switch v := f.sse; {
	case v == "" && f.sseKMSKeyID != "":
		dstOpts.SSE = "aws:kms"
	case v == "":
	case strings.EqualFold(v, "AES256"):
		dstOpts.SSE = "AES256"
	case strings.EqualFold(v, "aws:kms"):
		dstOpts.SSE = "aws:kms"
	default:
		return srcOpts, dstOpts, usagef("--sse %q: want AES256 or aws:kms", v)
	}
	if f.sseKMSKeyID != "" {
		if dstOpts.SSE != "aws:kms" {
			return srcOpts, dstOpts, usagef("--sse-kms-key-id: needs --sse aws:kms, not --sse %s", f.sse)
		}
		dstOpts.SSEKMSKeyID = f.sseKMSKeyID
	}
	if dstOpts.SSE != "" {
		if err := toS3("--sse"); err != nil {
			return srcOpts, dstOpts, err
		}
	}
	if f.acl != "" {
		acl := strings.ToLower(f.acl)
		if !slices.Contains(s3store.CannedACLs, acl) {
			return srcOpts, dstOpts, usagef("--acl %q: want one of %s", f.acl, strings.Join(s3store.CannedACLs, ", "))
		}
		if err := toS3("--acl"); err != nil {
			return srcOpts, dstOpts, err
		}
		dstOpts.ACL = acl
	}
	switch {
	case f.requestPayer == "":
	case strings.EqualFold(f.requestPayer, "requester"):
		srcOpts.RequestPayer, dstOpts.RequestPayer = src.IsS3(), dst.IsS3()
	default:
		return srcOpts, dstOpts, usagef("--request-payer %q: want requester", f.requestPayer)
	}
	if f.sourceRegion != "" {
		if !src.IsS3() {
			return srcOpts, dstOpts, usagef("--source-region: only for an S3 source, and the source %s is local", src)
		}
		srcOpts.Region = f.sourceRegion
	}

	key, err := customerKey("--sse-c", f.sseC, "--sse-c-key", f.sseCKey, env)
	if err != nil {
		return srcOpts, dstOpts, err
	}
	if key != nil {
		if dstOpts.SSE != "" {
			return srcOpts, dstOpts, usagef("--sse-c and --sse: an object has one kind of server-side encryption")
		}
		// As the AWS CLI: the key of what is written, or, for a
		// download, of what is read.
		switch {
		case dst.IsS3():
			dstOpts.SSECustomerKey = key
		case src.IsS3():
			srcOpts.SSECustomerKey = key
		}
	}
	key, err = customerKey("--sse-c-copy-source", f.sseCCopySource, "--sse-c-copy-source-key", f.sseCCopySourceKey, env)
	if err != nil {
		return srcOpts, dstOpts, err
	}
	if key != nil {
		if !src.IsS3() || !dst.IsS3() {
			return srcOpts, dstOpts, usagef("--sse-c-copy-source: only for S3 to S3 copies (for a download, use --sse-c)")
		}
		// The source store reads the object (its metadata, before a
		// copy in parts); the destination's copy requests name it.
		srcOpts.SSECustomerKey = key
		dstOpts.CopySourceSSECustomerKey = key
	}
	return srcOpts, dstOpts, nil
}

// customerKey checks an SSE-C algorithm flag and loads its key. It returns
// nil when neither flag was given. Errors name the flag and where the key
// was to come from, never the key.
func customerKey(algFlag, alg, keyFlag, ref string, env environ) ([]byte, error) {
	switch {
	case alg == "" && ref == "":
		return nil, nil
	case alg == "":
		return nil, usagef("%s needs %s AES256", keyFlag, algFlag)
	case !strings.EqualFold(alg, "AES256"):
		return nil, usagef("%s %q: want AES256", algFlag, alg)
	case ref == "":
		return nil, usagef("%s AES256 needs %s file://PATH or env://VAR", algFlag, keyFlag)
	}
	var raw []byte
	switch {
	case strings.HasPrefix(ref, "file://"), strings.HasPrefix(ref, "fileb://"):
		_, p, _ := strings.Cut(ref, "://")
		b, err := os.ReadFile(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, usagef("%s %s: no such file", keyFlag, ref)
			}
			return nil, usagef("%s %s: %v", keyFlag, ref, unwrapPathError(err))
		}
		raw = b
	case strings.HasPrefix(ref, "env://"):
		name := strings.TrimPrefix(ref, "env://")
		v, ok := env.lookup(name)
		if name == "" || !ok || v == "" {
			return nil, usagef("%s %s: the environment variable %s is not set", keyFlag, ref, name)
		}
		raw = []byte(v)
	default:
		// The value is not repeated: it may be the key itself.
		return nil, usagef("%s: give the key as file://PATH or env://VAR; a key on the command line is seen by other users and kept in shell history", keyFlag)
	}
	if len(raw) == s3store.SSECustomerKeySize {
		return raw, nil
	}
	if b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(raw))); err == nil && len(b) == s3store.SSECustomerKeySize {
		return b, nil
	}
	return nil, usagef("%s %s: the key has %d bytes, want %d (raw, or base64 of %d bytes)",
		keyFlag, ref, len(raw), s3store.SSECustomerKeySize, s3store.SSECustomerKeySize)
}

// withStoreOptions gives an endpoint's S3 store its options; local
// endpoints are returned as they are.
func withStoreOptions(ep engine.Endpoint, o s3store.Options) (engine.Endpoint, error) {
	st, ok := ep.Store.(*s3store.Store)
	if !ok {
		return ep, nil
	}
	ns, err := st.WithOptions(o)
	if err != nil {
		return ep, usageError{err}
	}
	ep.Store = ns
	return ep, nil
}
