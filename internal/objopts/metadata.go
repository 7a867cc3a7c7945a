package objopts

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/store"
)

// StorageClasses are S3's; a typo is a usage error rather than a failed
// request per object.
var StorageClasses = []string{
	"STANDARD", "REDUCED_REDUNDANCY", "STANDARD_IA", "ONEZONE_IA", "INTELLIGENT_TIERING",
	"GLACIER", "DEEP_ARCHIVE", "GLACIER_IR", "OUTPOSTS", "EXPRESS_ONEZONE", "SNOW",
}

// Metadata is what --storage-class, --content-type, --cache-control,
// --content-encoding, --content-disposition, --metadata and
// --metadata-directive set on the objects written.
type Metadata struct {
	Set       store.Metadata
	User      UserMetadata
	Directive string // COPY or REPLACE, any case
}

// Options returns the engine's metadata options, nil when nothing changes.
func (m Metadata) Options() (*engine.MetadataOptions, error) {
	o := &engine.MetadataOptions{Set: m.Set}
	if len(m.User) > 0 {
		o.Set.User = m.User
	}
	switch strings.ToUpper(m.Directive) {
	case "COPY":
	case "REPLACE":
		o.Replace = true
	default:
		return nil, fmt.Errorf("--metadata-directive %q: want COPY or REPLACE", m.Directive)
	}
	if c := strings.ToUpper(m.Set.StorageClass); c != "" {
		if !slices.Contains(StorageClasses, c) {
			return nil, fmt.Errorf("--storage-class %q: want one of %s", m.Set.StorageClass, strings.Join(StorageClasses, ", "))
		}
		o.Set.StorageClass = c
	}
	if !o.Replace && o.Set.ContentType == "" && o.Set.CacheControl == "" && o.Set.ContentEncoding == "" &&
		o.Set.ContentDisposition == "" && o.Set.StorageClass == "" && len(o.Set.User) == 0 {
		return nil, nil
	}
	return o, nil
}

// UserMetadata is a repeatable key=value flag value (a pflag.Value): keys
// are lowercased, as S3 keeps them.
type UserMetadata map[string]string

func (m *UserMetadata) String() string { return pairsText(*m) }

// Type names the value in help.
func (m *UserMetadata) Type() string { return "key=value" }

// Set adds one key=value.
func (m *UserMetadata) Set(v string) error {
	k, val, err := keyValue(v)
	if err != nil {
		return err
	}
	if *m == nil {
		*m = UserMetadata{}
	}
	(*m)[strings.ToLower(k)] = val
	return nil
}

// pairsText is the value of a key=value flag as a text: its pairs in the
// order of their keys, comma-separated.
func pairsText(m map[string]string) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		kv = append(kv, k+"="+m[k])
	}
	return strings.Join(kv, ",")
}

// keyValue reads one value of a repeatable key=value flag (--metadata,
// --tags): the key is what comes before the first '=', and may not be
// empty; the value may hold '='.
func keyValue(v string) (k, val string, err error) {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return "", "", fmt.Errorf("want key=value, got %q", v)
	}
	return k, val, nil
}
