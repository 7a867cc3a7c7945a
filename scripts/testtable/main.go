// Command testtable folds the output of `go test -json` into one row of the
// table scripts/test-servers.sh prints: passed, skipped (with the reasons)
// and failed, counting leaf tests (a test with subtests counts as its
// subtests), then the date and tree of the run. With -details it also
// lists every failed test, and every skip that is not a capability probe's
// ("server lacks ..."), which a run against any server should have none of.
//
//	go test -json ./... | go run ./scripts/testtable -server gofakes3 -version v1.2.0 -date 2026-12-01 -tree b1efc9d
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

type result struct {
	action string
	last   string // the last line the test printed, for a skip's reason
}

func main() {
	server := flag.String("server", "", "server name for the row")
	version := flag.String("version", "", "server version for the row")
	date := flag.String("date", "", "date of the run for the row")
	tree := flag.String("tree", "", "tree (commit) of the run for the row")
	details := flag.Bool("details", false, "also list the failed tests and the skips that are not capability probes")
	header := flag.Bool("header", false, "print the table's header and exit")
	flag.Parse()
	if *header {
		fmt.Println("| server | version | passed | skipped | failed | date | tree |")
		fmt.Println("|---|---|---|---|---|---|---|")
		return
	}
	row, more, err := fold(os.Stdin, *server, *version, *date, *tree)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testtable:", err)
		os.Exit(1)
	}
	fmt.Println(row)
	if *details {
		for _, l := range more {
			fmt.Println(l)
		}
	}
}

// fileLine is the "file_test.go:123: " prefix of a test's log line.
var fileLine = regexp.MustCompile(`^\s*[\w.-]+\.go:\d+: `)

// probeSkip is how a skip for a capability the server lacks begins
// (internal/s3test).
const probeSkip = "server lacks "

func fold(r io.Reader, server, version, date, tree string) (string, []string, error) {
	results, failedPkgs, err := readEvents(r)
	if err != nil {
		return "", nil, err
	}
	t := tally(results, failedPkgs)
	skipCell := fmt.Sprint(t.skipped)
	if rs := t.reasonCounts(); len(rs) > 0 {
		skipCell += " (" + strings.Join(rs, "; ") + ")"
	}
	row := fmt.Sprintf("| %s | %s | %d | %s | %d | %s | %s |", server, version, t.passed, strings.ReplaceAll(skipCell, "|", `\|`), len(t.failed), date, tree)
	var more []string
	for _, f := range t.failed {
		more = append(more, "FAIL "+f)
	}
	return row, append(more, t.unprobed...), nil
}

// readEvents reads `go test -json` events into each test's result (by
// package + " " + test) and the packages that failed.
func readEvents(r io.Reader) (map[string]*result, []string, error) {
	results := map[string]*result{}
	var failedPkgs []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			continue // a build error's plain text
		}
		if e.Test == "" {
			if e.Action == "fail" {
				failedPkgs = append(failedPkgs, e.Package)
			}
			continue
		}
		id := e.Package + " " + e.Test
		res := results[id]
		if res == nil {
			res = &result{}
			results[id] = res
		}
		switch e.Action {
		case "pass", "fail", "skip":
			res.action = e.Action
		case "output":
			line := strings.TrimRight(e.Output, "\n")
			t := strings.TrimSpace(line)
			if t != "" && !strings.HasPrefix(t, "=== ") && !strings.HasPrefix(t, "--- ") {
				res.last = fileLine.ReplaceAllString(line, "")
			}
		}
	}
	return results, failedPkgs, sc.Err()
}

// counts are a run's tests folded: passed, skipped (and why), failed, and
// the skips that are not capability probes.
type counts struct {
	passed, skipped  int
	failed, unprobed []string
	reasons          map[string]int
}

// tally folds each test's result into counts; a parent counts through
// its subtests.
func tally(results map[string]*result, failedPkgs []string) counts {
	ids := make([]string, 0, len(results))
	for id := range results {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	c := counts{reasons: map[string]int{}}
	for i, id := range ids {
		if i+1 < len(ids) && strings.HasPrefix(ids[i+1], id+"/") {
			// A parent: its subtests count, unless it failed on its own
			// (an assertion after its subtests, all of which passed).
			if results[id].action == "fail" && !subtestFailed(ids[i+1:], id, results) {
				c.failed = append(c.failed, id)
			}
			continue
		}
		switch res := results[id]; res.action {
		case "":
			// Started and never ended: the package timed out or crashed
			// while it ran.
			c.failed = append(c.failed, id+" (did not finish)")
		case "pass":
			c.passed++
		case "skip":
			c.skipped++
			reason := strings.TrimSpace(res.last)
			c.reasons[reason]++
			if !strings.HasPrefix(reason, probeSkip) {
				c.unprobed = append(c.unprobed, fmt.Sprintf("SKIP %s (not a capability probe): %s", id, reason))
			}
		case "fail":
			c.failed = append(c.failed, id)
		}
	}
	// A package that failed without a failed test (it did not build, or
	// its TestMain failed) counts as one failure.
	for _, p := range failedPkgs {
		if !slices.ContainsFunc(c.failed, func(id string) bool { return strings.HasPrefix(id, p+" ") }) {
			c.failed = append(c.failed, p+" (package)")
		}
	}
	return c
}

// reasonCounts are the skips' reasons with their counts, most first, then
// by name.
func (c counts) reasonCounts() []string {
	keys := make([]string, 0, len(c.reasons))
	for k := range c.reasons {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if d := c.reasons[b] - c.reasons[a]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	var rs []string
	for _, k := range keys {
		rs = append(rs, fmt.Sprintf("%d: %s", c.reasons[k], k))
	}
	return rs
}

// subtestFailed reports whether a subtest of parent failed; after is the
// sorted ids that follow parent, its subtests first.
func subtestFailed(after []string, parent string, results map[string]*result) bool {
	for _, id := range after {
		if !strings.HasPrefix(id, parent+"/") {
			return false
		}
		if results[id].action == "fail" {
			return true
		}
	}
	return false
}
