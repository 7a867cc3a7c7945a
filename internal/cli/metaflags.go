package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/objopts"
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
}

// apply sets the options of --copy-props and --tags on o; every error is
// a usage error.
func (f *metaFlags) apply(o *engine.Options) error {
	props, tags, err := f.props.Options()
	if err != nil {
		return usageError{err}
	}
	o.Props, o.Tags = props, tags
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
