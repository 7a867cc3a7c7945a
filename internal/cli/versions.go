package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// versionFlags pick object versions: --version-id for one object, and
// --all-versions (cp, rm) for every version and delete marker.
type versionFlags struct {
	id  string
	all bool
}

// register adds --version-id, and --all-versions when all is set, to cmd.
func (f *versionFlags) register(cmd *cobra.Command, verb string, all bool) {
	cmd.Flags().StringVar(&f.id, "version-id", "", verb+" this version of the object rather than its current one")
	if all {
		cmd.Flags().BoolVar(&f.all, "all-versions", false, verb+" every version and delete marker of every object, each key's oldest first")
	}
}

// active reports whether versions were asked for.
func (f versionFlags) active() bool { return f.id != "" || f.all }

// check refuses version flags that cannot apply to src: a version of a
// prefix or of a wildcard match, versions of a local file, both flags.
func (f versionFlags) check(verb string, src s3url.Location, recursive bool) error {
	switch {
	case !f.active():
		return nil
	case f.id != "" && f.all:
		return usagef("%s: --version-id and --all-versions: pick one", verb)
	case !src.IsS3():
		return usagef("%s %s: object versions are S3's: the source must be an s3:// URL", verb, src)
	case f.id != "" && (recursive || src.HasWildcard() || src.IsDirLike()):
		return usagef("%s %s: --version-id names a version of one object, not of a prefix or a wildcard match", verb, src)
	}
	return nil
}

// checkVersioned refuses a copy of every version to a destination that
// would not keep them: a local directory, or a bucket whose versioning is
// not enabled (each version would overwrite the one before). It asks the
// bucket once, before anything is written.
func checkVersioned(ctx context.Context, dst engine.Endpoint) error {
	if dst.Loc.Local {
		return usagef("cp --all-versions: %s: the destination must be a versioned bucket", dst.Loc)
	}
	vl, ok := dst.Store.(store.VersionLister)
	if !ok {
		return usagef("cp --all-versions: %s keeps no versions", dst.Loc)
	}
	status, err := vl.Versioning(ctx)
	if err != nil {
		return err
	}
	if status != "Enabled" {
		return usagef("cp --all-versions: s3://%s does not keep versions (versioning %s): each version would overwrite the one before; enable versioning on it first", dst.Loc.Bucket, versioningName(status))
	}
	return nil
}

func versioningName(status string) string {
	if status == "" {
		return "never enabled"
	}
	return status
}
