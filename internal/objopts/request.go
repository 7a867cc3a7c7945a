package objopts

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// Request is what --sse, --sse-kms-key-id, --sse-c, --sse-c-key,
// --sse-c-copy-source, --sse-c-copy-source-key, --acl, --request-payer and
// --source-region ask for, as typed.
type Request struct {
	SSE               string
	SSEKMSKeyID       string
	SSEC              string
	SSECKey           string
	SSECCopySource    string
	SSECCopySourceKey string
	ACL               string
	RequestPayer      string
	SourceRegion      string
}

// Active reports whether any option was given.
func (r Request) Active() bool { return r != Request{} }

// Stores checks the options against the direction of a transfer from src
// to dst and returns the options of its source and destination stores.
// SSE-C keys are read here, from their files or from lookup (an
// environment), so that a bad key fails before any request.
func (r Request) Stores(src, dst s3url.Location, lookup func(string) (string, bool)) (srcOpts, dstOpts s3store.Options, err error) {
	toS3 := func(flag string) error {
		if !dst.IsS3() {
			return fmt.Errorf("%s: only for objects written to S3, and the destination %s is local", flag, dst)
		}
		return nil
	}
	switch v := r.SSE; {
	case v == "" && r.SSEKMSKeyID != "":
		dstOpts.SSE = "aws:kms"
	case v == "":
	case strings.EqualFold(v, "AES256"):
		dstOpts.SSE = "AES256"
	case strings.EqualFold(v, "aws:kms"):
		dstOpts.SSE = "aws:kms"
	default:
		return srcOpts, dstOpts, fmt.Errorf("--sse %q: want AES256 or aws:kms", v)
	}
	if r.SSEKMSKeyID != "" {
		if dstOpts.SSE != "aws:kms" {
			return srcOpts, dstOpts, fmt.Errorf("--sse-kms-key-id: needs --sse aws:kms, not --sse %s", r.SSE)
		}
		dstOpts.SSEKMSKeyID = r.SSEKMSKeyID
	}
	if dstOpts.SSE != "" {
		if err := toS3("--sse"); err != nil {
			return srcOpts, dstOpts, err
		}
	}
	if r.ACL != "" {
		acl := strings.ToLower(r.ACL)
		if !slices.Contains(s3store.CannedACLs, acl) {
			return srcOpts, dstOpts, fmt.Errorf("--acl %q: want one of %s", r.ACL, strings.Join(s3store.CannedACLs, ", "))
		}
		if err := toS3("--acl"); err != nil {
			return srcOpts, dstOpts, err
		}
		dstOpts.ACL = acl
	}
	switch {
	case r.RequestPayer == "":
	case strings.EqualFold(r.RequestPayer, "requester"):
		srcOpts.RequestPayer, dstOpts.RequestPayer = src.IsS3(), dst.IsS3()
	default:
		return srcOpts, dstOpts, fmt.Errorf("--request-payer %q: want requester", r.RequestPayer)
	}
	if r.SourceRegion != "" {
		if !src.IsS3() {
			return srcOpts, dstOpts, fmt.Errorf("--source-region: only for an S3 source, and the source %s is local", src)
		}
		srcOpts.Region = r.SourceRegion
	}

	key, err := customerKey("--sse-c", r.SSEC, "--sse-c-key", r.SSECKey, lookup)
	if err != nil {
		return srcOpts, dstOpts, err
	}
	if key != nil {
		if dstOpts.SSE != "" {
			return srcOpts, dstOpts, errors.New("--sse-c and --sse: an object has one kind of server-side encryption")
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
	key, err = customerKey("--sse-c-copy-source", r.SSECCopySource, "--sse-c-copy-source-key", r.SSECCopySourceKey, lookup)
	if err != nil {
		return srcOpts, dstOpts, err
	}
	if key != nil {
		if !src.IsS3() || !dst.IsS3() {
			return srcOpts, dstOpts, errors.New("--sse-c-copy-source: only for S3 to S3 copies (for a download, use --sse-c)")
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
func customerKey(algFlag, alg, keyFlag, ref string, lookup func(string) (string, bool)) ([]byte, error) {
	switch {
	case alg == "" && ref == "":
		return nil, nil
	case alg == "":
		return nil, fmt.Errorf("%s needs %s AES256", keyFlag, algFlag)
	case !strings.EqualFold(alg, "AES256"):
		return nil, fmt.Errorf("%s %q: want AES256", algFlag, alg)
	case ref == "":
		return nil, fmt.Errorf("%s AES256 needs %s file://PATH or env://VAR", algFlag, keyFlag)
	}
	var raw []byte
	switch {
	case strings.HasPrefix(ref, "file://"), strings.HasPrefix(ref, "fileb://"):
		_, p, _ := strings.Cut(ref, "://")
		b, err := os.ReadFile(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%s %s: no such file", keyFlag, ref)
			}
			return nil, fmt.Errorf("%s %s: %v", keyFlag, ref, store.PathCause(err)) // the path is ref's
		}
		raw = b
	case strings.HasPrefix(ref, "env://"):
		name := strings.TrimPrefix(ref, "env://")
		v, ok := lookup(name)
		if name == "" || !ok || v == "" {
			return nil, fmt.Errorf("%s %s: the environment variable %s is not set", keyFlag, ref, name)
		}
		raw = []byte(v)
	default:
		// The value is not repeated: it may be the key itself.
		return nil, fmt.Errorf("%s: give the key as file://PATH or env://VAR; a key on the command line is seen by other users and kept in shell history", keyFlag)
	}
	if len(raw) == s3store.SSECustomerKeySize {
		return raw, nil
	}
	if b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(raw))); err == nil && len(b) == s3store.SSECustomerKeySize {
		return b, nil
	}
	return nil, fmt.Errorf("%s %s: the key has %d bytes, want %d (raw, or base64 of %d bytes)",
		keyFlag, ref, len(raw), s3store.SSECustomerKeySize, s3store.SSECustomerKeySize)
}
