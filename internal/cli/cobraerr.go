package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The errors cobra and pflag make about what was typed are plain strings
// written for a terminal dump ("unknown command ...\n\nDid you mean
// this?\n\tcp\n"). These functions say the same in one line, as a person
// expects to read it.

// unknownCommand rewrites cobra's unknown-command error: an unknown flag
// before the verb is named as such (cobra takes `-q` for a flag with a
// value and reports the verb's first argument as the unknown command), and
// suggestions become "did you mean cp or cat?".
func unknownCommand(root *cobra.Command, args []string, err error) error {
	if !strings.HasPrefix(err.Error(), "unknown command ") {
		return err
	}
	if ferr := unknownLeadingFlag(root, args); ferr != nil {
		return ferr
	}
	var name string
	if _, serr := fmt.Sscanf(strings.TrimPrefix(err.Error(), "unknown command "), "%q", &name); serr != nil {
		return err
	}
	msg := fmt.Sprintf("unknown command %q", name)
	if s := root.SuggestionsFor(name); len(s) > 0 {
		msg += " (did you mean " + orList(s) + "?)"
	}
	return usagef("%s; see 's3bulk --help'", msg)
}

// unknownLeadingFlag finds a flag before the verb that the root does not
// know, and returns pflag's own words for it with a suggestion.
func unknownLeadingFlag(root *cobra.Command, args []string) error {
	flags := root.PersistentFlags()
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" || !strings.HasPrefix(arg, "-") || arg == "-" {
			return nil // the verb, or the end of flags
		}
		if name, ok := strings.CutPrefix(arg, "--"); ok {
			name, _, hasValue := strings.Cut(name, "=")
			f := flags.Lookup(name)
			if f == nil {
				return flagError(root, fmt.Errorf("unknown flag: --%s", name))
			}
			if !hasValue && f.NoOptDefVal == "" {
				i++ // its value
			}
			continue
		}
		for j, c := range arg[1:] {
			f := flags.ShorthandLookup(string(c))
			if f == nil {
				return flagError(root, fmt.Errorf("unknown shorthand flag: '%c' in %s", c, arg))
			}
			if f.NoOptDefVal == "" {
				if j == len(arg)-2 {
					i++ // its value is the next argument
				}
				break
			}
		}
	}
	return nil
}

// flagError is the error for a bad flag on cmd: pflag's message, with the
// flags the user may have meant.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	var guess []string
	switch {
	case strings.HasPrefix(msg, "unknown shorthand flag: '"):
		c := msg[len("unknown shorthand flag: '")]
		guess = flagsLike(cmd, func(f *pflag.Flag) bool { return f.Name[0] == c })
	case strings.HasPrefix(msg, "unknown flag: --"):
		name := strings.TrimPrefix(msg, "unknown flag: --")
		guess = flagsLike(cmd, func(f *pflag.Flag) bool {
			return strings.HasPrefix(f.Name, name) || strings.HasPrefix(name, f.Name) || levenshtein(name, f.Name) <= 2
		})
	}
	if len(guess) > 0 && len(guess) <= 4 {
		msg += " (did you mean " + orList(guess) + "?)"
	}
	return usageError{fmt.Errorf("%s; see '%s --help'", msg, cmd.CommandPath())}
}

// flagsLike lists cmd's flags (its own and inherited) that match.
func flagsLike(cmd *cobra.Command, match func(*pflag.Flag) bool) []string {
	var out []string
	seen := map[string]bool{}
	visit := func(f *pflag.Flag) {
		if !f.Hidden && !seen[f.Name] && match(f) {
			seen[f.Name] = true
			out = append(out, "--"+f.Name)
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	sort.Strings(out)
	return out
}

// orList joins names the way a sentence does: "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
