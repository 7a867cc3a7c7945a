package objopts

import (
	"fmt"
	"slices"
	"strings"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/store"
)

// CopyProps are the values of --copy-props, the AWS CLI v2's.
var CopyProps = []string{"none", "metadata-directive", "default"}

// Props is what --copy-props, --tags and --checksum-algorithm set: which
// properties of an S3 source a copy to S3 keeps, the tags of the objects
// written and the algorithm of their checksums.
type Props struct {
	CopyProps string // one of CopyProps; "" is "default"
	Tags      TagsFlag
	// ChecksumAlgorithm is one of store.ChecksumAlgorithms, any case; ""
	// keeps the source's.
	ChecksumAlgorithm string
}

// Checksum returns the engine's Options.ChecksumAlgorithm of
// --checksum-algorithm, the AWS CLI v2's.
func (p Props) Checksum() (string, error) {
	alg := strings.ToUpper(p.ChecksumAlgorithm)
	if alg == "" || slices.Contains(store.ChecksumAlgorithms, alg) {
		return alg, nil
	}
	return "", fmt.Errorf("--checksum-algorithm %q: want one of CRC32, CRC32C, CRC64NVME, SHA1, SHA256", p.ChecksumAlgorithm)
}

// Options returns the engine's Options.Props and Options.Tags.
func (p Props) Options() (engine.CopyProps, store.Tags, error) {
	var cp engine.CopyProps
	switch p.CopyProps {
	case "", "default":
		cp = engine.CopyPropsDefault
	case "metadata-directive":
		cp = engine.CopyPropsMetadataDirective
	case "none":
		cp = engine.CopyPropsNone
	default:
		return 0, nil, fmt.Errorf("--copy-props %q: want one of %s", p.CopyProps, strings.Join(CopyProps, ", "))
	}
	if p.Tags.tags == nil {
		return cp, nil, nil
	}
	if err := p.Tags.tags.Check(); err != nil {
		return 0, nil, fmt.Errorf("--tags: %w", err)
	}
	return cp, p.Tags.tags, nil
}

// TagsFlag is the value of --tags (a pflag.Value): one key=value a time,
// repeatable; the value may hold '='.
type TagsFlag struct{ tags store.Tags }

func (f *TagsFlag) String() string { return pairsText(f.tags) }

// Type names the value in help.
func (f *TagsFlag) Type() string { return "key=value" }

// Set adds one key=value.
func (f *TagsFlag) Set(v string) error {
	k, val, err := keyValue(v)
	if err != nil {
		return err
	}
	if f.tags == nil {
		f.tags = store.Tags{}
	}
	if _, dup := f.tags[k]; dup {
		return fmt.Errorf("tag %q given twice", k)
	}
	f.tags[k] = val
	return nil
}
