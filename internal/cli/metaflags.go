package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/objopts"
	"github.com/s3bulk/s3bulk/s3url"
)

// metaFlags set the metadata of uploaded and copied objects (cp, mv, sync).
type metaFlags struct {
	m     objopts.Metadata
	props objopts.Props
}

func (f *metaFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.m.Set.StorageClass, "storage-class", "", "storage class of the objects written: "+strings.Join(objopts.StorageClasses, ", "))
	fl.StringVar(&f.m.Set.ContentType, "content-type", "", "Content-Type of the objects written (default: the source's, or guessed from the name)")
	fl.StringVar(&f.m.Set.CacheControl, "cache-control", "", "Cache-Control of the objects written")
	fl.StringVar(&f.m.Set.ContentEncoding, "content-encoding", "", "Content-Encoding of the objects written")
	fl.StringVar(&f.m.Set.ContentDisposition, "content-disposition", "", "Content-Disposition of the objects written")
	fl.Var(&f.m.User, "metadata", "user metadata key=value added to the objects written (repeatable)")
	fl.StringVar(&f.m.Directive, "metadata-directive", "COPY", "COPY: keep the source's metadata, changed by the flags above; REPLACE: only the flags above")
	fl.StringVar(&f.props.CopyProps, "copy-props", "default", "what an S3 to S3 copy keeps of its source: default (content headers, user metadata and tags), metadata-directive (all but the tags), none")
	fl.Var(&f.props.Tags, "tags", "tag key=value of the objects written, instead of the source's (repeatable, at most 10)")
	fl.StringVar(&f.props.ChecksumAlgorithm, "checksum-algorithm", "", "checksum of the objects written to S3: CRC32, CRC32C, CRC64NVME, SHA1 or SHA256 (default: the source's, else CRC64NVME)")
}

// apply sets the options of --copy-props, --tags and --checksum-algorithm
// on o; every error is a usage error.
func (f *metaFlags) apply(o *engine.Options) error {
	props, tags, err := f.props.Options()
	if err != nil {
		return usageError{err}
	}
	alg, err := f.props.Checksum()
	if err != nil {
		return usageError{err}
	}
	o.Props, o.Tags, o.ChecksumAlgorithm = props, tags, alg
	return nil
}

// options returns the engine's metadata options, nil when nothing changes;
// every error is a usage error.
func (f *metaFlags) options() (*engine.MetadataOptions, error) {
	o, err := f.m.Options()
	if err != nil {
		return nil, usageError{err}
	}
	return o, nil
}

// checkWritten refuses the flags that only mean something for objects
// written to S3 when dst is not S3.
func checkWritten(o engine.Options, dst s3url.Location) error {
	switch {
	case dst.IsS3():
	case o.Tags != nil:
		return usagef("--tags: only for objects written to S3, and %s is local", dst)
	case o.ChecksumAlgorithm != "":
		return usagef("--checksum-algorithm: only for objects written to S3, and %s is local (downloads are checked against the source's checksum anyway)", dst)
	}
	return nil
}
