package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/store"
)

// metaFlags set the metadata of uploaded and copied objects (cp, mv, sync).
type metaFlags struct {
	set       store.Metadata
	user      metadataFlag
	directive string
}

// storageClasses are S3's; a typo is a usage error rather than a failed
// request per object.
var storageClasses = []string{
	"STANDARD", "REDUCED_REDUNDANCY", "STANDARD_IA", "ONEZONE_IA", "INTELLIGENT_TIERING",
	"GLACIER", "DEEP_ARCHIVE", "GLACIER_IR", "OUTPOSTS", "EXPRESS_ONEZONE", "SNOW",
}

func (f *metaFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.set.StorageClass, "storage-class", "", "storage class of the objects written: "+strings.Join(storageClasses, ", "))
	fl.StringVar(&f.set.ContentType, "content-type", "", "Content-Type of the objects written (default: the source's, or guessed from the name)")
	fl.StringVar(&f.set.CacheControl, "cache-control", "", "Cache-Control of the objects written")
	fl.StringVar(&f.set.ContentEncoding, "content-encoding", "", "Content-Encoding of the objects written")
	fl.StringVar(&f.set.ContentDisposition, "content-disposition", "", "Content-Disposition of the objects written")
	fl.Var(&f.user, "metadata", "user metadata key=value added to the objects written (repeatable)")
	fl.StringVar(&f.directive, "metadata-directive", "COPY", "COPY: keep the source's metadata, changed by the flags above; REPLACE: only the flags above")
}

// options returns the engine's metadata options, nil when nothing changes.
func (f *metaFlags) options() (*engine.MetadataOptions, error) {
	o := &engine.MetadataOptions{Set: f.set}
	if len(f.user) > 0 {
		o.Set.User = f.user
	}
	switch strings.ToUpper(f.directive) {
	case "COPY":
	case "REPLACE":
		o.Replace = true
	default:
		return nil, usagef("--metadata-directive %q: want COPY or REPLACE", f.directive)
	}
	if c := strings.ToUpper(f.set.StorageClass); c != "" {
		if !slices.Contains(storageClasses, c) {
			return nil, usagef("--storage-class %q: want one of %s", f.set.StorageClass, strings.Join(storageClasses, ", "))
		}
		o.Set.StorageClass = c
	}
	if !o.Replace && o.Set.ContentType == "" && o.Set.CacheControl == "" && o.Set.ContentEncoding == "" &&
		o.Set.ContentDisposition == "" && o.Set.StorageClass == "" && len(o.Set.User) == 0 {
		return nil, nil
	}
	return o, nil
}

// metadataFlag is a repeatable key=value.
type metadataFlag map[string]string

func (m *metadataFlag) String() string {
	var kv []string
	for k, v := range *m {
		kv = append(kv, k+"="+v)
	}
	slices.Sort(kv)
	return strings.Join(kv, ",")
}
func (m *metadataFlag) Type() string { return "key=value" }
func (m *metadataFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("want key=value, got %q", v)
	}
	if *m == nil {
		*m = metadataFlag{}
	}
	(*m)[strings.ToLower(k)] = val
	return nil
}
