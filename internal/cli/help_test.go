package cli

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata")

// helpOf runs `s3bulk PATH... --help` in-process.
func helpOf(t *testing.T, path ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), append(path, "--help"), Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut}); code != ExitOK {
		t.Fatalf("s3bulk %s --help: exit %d: %s", strings.Join(path, " "), code, errOut.String())
	}
	return out.String()
}

// everyCommand walks the command tree, root first.
func everyCommand() []*cobra.Command {
	root := (&app{}).rootCmd()
	var all []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		all = append(all, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return all
}

// placeholder is what a flag's usage may put in backquotes: the name of its
// value in capitals (DIR, ARN, HOST:PORT), which help prints after the flag.
var placeholder = regexp.MustCompile("`[A-Z][A-Z:_]*`")

func TestHelpReadsWell(t *testing.T) {
	t.Parallel()
	doubled := regexp.MustCompile(`\(default ([^)]*)\) \(default `)
	for _, c := range everyCommand() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" || (c.Parent() != nil && c.Parent().Name() == "completion") {
			continue // cobra's own, or not shown
		}
		path := strings.Fields(c.CommandPath())[1:]
		t.Run(c.CommandPath(), func(t *testing.T) {
			help := helpOf(t, path...)
			if m := doubled.FindString(help); m != "" {
				t.Errorf("a default is said twice: %q", m)
			}
			c.Flags().VisitAll(func(f *pflag.Flag) {
				if strings.Count(f.Usage, "`") != 2*len(placeholder.FindAllString(f.Usage, -1)) {
					t.Errorf("--%s: backquotes in %q make a placeholder of other words than a capitalised value name", f.Name, f.Usage)
				}
			})
			// Verbs show their examples in cobra's Examples section; the
			// groups of subcommands (mpu, plan, batch) show theirs too.
			if c.Parent() != nil && c.Parent().Parent() == nil && !strings.Contains(help, "\nExamples:\n  s3bulk ") {
				t.Errorf("no Examples section:\n%s", help)
			}
		})
	}
}

func TestMaxDeleteSaysZeroMeansNoLimit(t *testing.T) {
	t.Parallel()
	if help := helpOf(t, "sync"); !regexp.MustCompile(`--max-delete int +.*\(0: no limit\)`).MatchString(help) {
		t.Errorf("sync --help does not say --max-delete 0 means no limit:\n%s", help)
	}
}

// TestServeHelpGolden keeps serve's help as written (go test -run
// TestServeHelpGolden -update rewrites it).
func TestServeHelpGolden(t *testing.T) {
	t.Parallel()
	got := helpOf(t, "serve")
	file := filepath.Join("testdata", "serve-help.golden")
	if *updateGolden {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("serve --help (-want +got):\n%s", diff)
	}
}

func TestVersionNamesTheModuleVersionAndCommit(t *testing.T) {
	t.Parallel()
	want := regexp.MustCompile(`^s3bulk (v\S+|\(devel\)) \(commit ([0-9a-f]{12}|unknown)(, modified)?, go\S+ \S+/\S+\)\n$`)
	for _, args := range [][]string{{"--version"}, {"version"}} {
		var out, errOut bytes.Buffer
		code := Run(context.Background(), args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut})
		if code != ExitOK || !want.MatchString(out.String()) {
			t.Errorf("s3bulk %s: exit %d, %q; want %v", args[0], code, out.String(), want)
		}
	}
}
