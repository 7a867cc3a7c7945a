package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// versionText is what `s3bulk --version` and `s3bulk version` print: the
// module version (a tag for `go install ...@v1.2.3`, "(devel)" for a build
// from a clone), the commit it was built from when the build recorded it,
// and the Go version.
func versionText() string {
	version, commit, dirty := "(devel)", "unknown", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" {
			version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
				if len(commit) > 12 {
					commit = commit[:12]
				}
			case "vcs.modified":
				if s.Value == "true" {
					dirty = ", modified"
				}
			}
		}
	}
	return fmt.Sprintf("s3bulk %s (commit %s%s, %s %s/%s)", version, commit, dirty, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version and commit s3bulk was built from",
		Example: "  s3bulk version\n  s3bulk --version",
		Args:    usageArgs(cobra.NoArgs),
		// No session, no logger: nothing to set up.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(a.stdio.Out, versionText())
			return err
		},
	}
}
