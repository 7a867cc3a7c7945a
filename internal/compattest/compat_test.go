package compattest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/cli"
	"github.com/s3bulk/s3bulk/internal/s3test"
)

var update = flag.Bool("update", false, "record the live peers' results in "+recordFile)

// recordFile holds every peer's result per case, from a run with the peer
// present; a missing peer is compared against it instead.
const recordFile = "testdata/peers.json"

// TestMain runs the cases eight at a time unless -parallel says otherwise:
// a case mostly waits for child processes and the server, not for a core.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", "8")
	}
	s3test.Main(m)
}

// verdict is what the contract expects of s3bulk in a case.
type verdict int

const (
	asBoth     verdict = iota // aws and s5cmd agree, and s3bulk does the same
	asAWS                     // they disagree and the contract sides with aws
	asS5cmd                   // they disagree (or aws cannot say it) and the contract sides with s5cmd
	deliberate                // s3bulk differs from both on purpose (docs/compat.md): the case says what it does
)

func (v verdict) String() string {
	return [...]string{"same as both", "same as aws", "same as s5cmd", "deliberate difference"}[v]
}

// obj is a seeded object; lfile a seeded local file.
type obj struct{ key, body string }
type lfile struct{ path, body string }

// na marks a command a peer cannot express (aws has no wildcards in
// paths): the peer is not run and the verdict does not rest on it.
var na = []string{"n/a"}

// tcase is one command run through every tool, each in its own buckets and
// directory seeded alike.
type tcase struct {
	name string
	src  []obj   // in the source bucket (@src)
	dst  []obj   // in the destination bucket (@dst), written after src so never older
	loc  []lfile // in the local directory (@local)
	// locNew makes the local files newer than the objects (a download
	// destination that is up to date); by default they are older.
	locNew bool
	// cmd is the command in aws's words: verb, paths, flags. Paths start
	// with @src, @dst or @local. s3bulk takes it as it is; s5cmd gets it
	// rendered (see s5cmdArgs) unless s5 says otherwise.
	cmd     []string
	aws, s5 []string // the peer's own spelling (after "s3" / the global flags), or na
	verdict verdict
	want    *outcome // deliberate: what s3bulk does
	note    string   // why, for deliberate differences and surprises
	// stderr, when set, is a regular expression s3bulk's stderr matches,
	// and code the exact exit code s3bulk returns: where the contract
	// says what s3bulk tells the user, beyond what the peers show.
	stderr string
	code   int
	// needs are capabilities the case's keys or requests rely on: on a
	// server that lacks one, the tools fail on what it lacks, and the
	// case skips with what the server answered.
	needs []s3test.Capability
	// elsewhere says what the peers do, and which verdict holds, on
	// servers that answer a question otherwise than the gateway the
	// peers were recorded on (servers_test.go).
	elsewhere []elsewhere
}

// outcome is what a command did, as the cases compare it: exit status
// (0 or 1 for any failure), every key left in each bucket with its body
// (bodies name the source they were made from), every local file, and for
// ls the lines printed with dates masked.
type outcome struct {
	Exit  int               `json:"exit"`
	Src   map[string]string `json:"src,omitempty"`
	Dst   map[string]string `json:"dst,omitempty"`
	Local map[string]string `json:"local,omitempty"`
	Ls    []string          `json:"ls,omitempty"`
}

// run is one tool's run of a case.
type run struct {
	tool           string
	args           []string
	stdout, stderr string
	code           int
	err            error // could not run at all
	out            outcome
}

func (r *run) String() string {
	return fmt.Sprintf("%s %s\nexit %d\nstdout:\n%s\nstderr:\n%s", r.tool, strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// sandbox is one tool's buckets and directory in a case.
type sandbox struct {
	src, dst, local string
}

func (s sandbox) expand(arg string) string {
	switch {
	case strings.HasPrefix(arg, "@src"):
		return "s3://" + s.src + arg[len("@src"):]
	case strings.HasPrefix(arg, "@dst"):
		return "s3://" + s.dst + arg[len("@dst"):]
	case strings.HasPrefix(arg, "@local"):
		return s.local + arg[len("@local"):]
	}
	return arg
}

// record is the file of recorded peer results: case name -> peer -> outcome.
type record map[string]map[string]outcome

func loadRecord(t *testing.T) record {
	rec := record{}
	b, err := os.ReadFile(recordFile)
	if errors.Is(err, os.ErrNotExist) {
		return rec
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatalf("%s: %v", recordFile, err)
	}
	return rec
}

func TestCompat(t *testing.T) {
	srv := s3test.Start(t)
	// s3bulk runs in this process and finds the server as a user's s3bulk
	// would, through the environment; it is set once, before any case runs
	// in parallel, and is the same for all of them.
	for _, kv := range srv.Env() {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	peers := map[string]peer{"aws": findAWS(), "s5cmd": findS5cmd(context.Background())}
	for _, name := range []string{"aws", "s5cmd"} {
		t.Logf("%s: %s", name, peers[name].mode())
	}
	for _, p := range peers {
		if p.live() {
			preflight(t, srv, p)
		}
	}
	rec := loadRecord(t)
	open := loadOpen(t)
	ans := askAll(t, srv)
	for name := range open {
		if !slices.ContainsFunc(cases, func(c tcase) bool { return c.name == name }) {
			t.Errorf("%s names %q, which is no case", openFile, name)
		}
	}
	if *update && os.Getenv(s3test.EndpointEnv) != "" {
		t.Fatalf("-update records the peers on the embedded gateway: run it without %s", s3test.EndpointEnv)
	}
	if *update {
		for _, p := range peers {
			if !p.live() {
				t.Logf("-update: %s is not live; its recorded results are kept", p.name)
			}
		}
	}
	// A semaphore for child processes: the aws CLI costs a Python start-up
	// each, and a few at once keep two cores busy.
	procs := make(chan struct{}, 6)
	var mu sync.Mutex
	fresh := record{}
	seen := map[string]bool{}
	counts := map[verdict]int{}
	t.Run("case", func(t *testing.T) {
		for _, c := range cases {
			if seen[c.name] {
				t.Fatalf("two cases named %q", c.name)
			}
			seen[c.name] = true
			counts[c.verdict]++
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				got := runCase(t, srv, peers, expect(c, rec, ans), open, procs, c)
				mu.Lock()
				defer mu.Unlock()
				for name, r := range got {
					if name != "s3bulk" && r != nil {
						if fresh[c.name] == nil {
							fresh[c.name] = map[string]outcome{}
						}
						fresh[c.name][name] = r.out
					}
				}
			})
		}
	})
	t.Logf("%d cases: %d same as both, %d same as aws, %d same as s5cmd, %d deliberate differences",
		len(cases), counts[asBoth], counts[asAWS], counts[asS5cmd], counts[deliberate])
	if len(cases) < 60 {
		t.Errorf("%d cases; the suite promises at least 60", len(cases))
	}
	// Live peers' results must be what testdata says, so that a run
	// without them checks s3bulk against the same thing (a peer that
	// changed may also be why cases failed above).
	for _, c := range cases {
		for _, p := range peers {
			if !p.live() || skipped(c, p.name) {
				continue
			}
			got, ok := fresh[c.name][p.name]
			if !ok {
				continue // the case failed before the peer ran
			}
			want, ok := expect(c, rec, ans).peers[p.name]
			switch {
			case *update:
			case !ok:
				t.Errorf("case %s: no recorded result of %s; run go test ./internal/compattest -update", c.name, p.name)
			case !cmp.Equal(want, got):
				t.Errorf("case %s: %s now does something else than recorded (-recorded +live):\n%s\nrun go test ./internal/compattest -update if the peer changed on purpose, or say in the case what it does on this server",
					c.name, p.name, cmp.Diff(want, got))
			}
		}
	}
	if *update {
		writeRecord(t, rec, fresh, peers)
	}
}

func skipped(c tcase, peer string) bool {
	if peer == "aws" {
		return isNA(c.aws)
	}
	return isNA(c.s5)
}

func isNA(args []string) bool { return len(args) == 1 && args[0] == na[0] }

func writeRecord(t *testing.T, old, fresh record, peers map[string]peer) {
	out := record{}
	for _, c := range cases {
		for _, p := range peers {
			if skipped(c, p.name) {
				continue
			}
			// A peer that is missing, or a case -run left out, keeps
			// what was recorded.
			o, ok := fresh[c.name][p.name]
			if !ok {
				o, ok = old[c.name][p.name]
			}
			if !ok {
				continue
			}
			if out[c.name] == nil {
				out[c.name] = map[string]outcome{}
			}
			out[c.name][p.name] = o
		}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(recordFile, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %d cases in %s", len(out), recordFile)
}

// runCase seeds a sandbox per tool, runs the command in each and checks
// s3bulk against the verdict.
func runCase(t *testing.T, srv *s3test.Server, peers map[string]peer, e expectation, open map[string]string, procs chan struct{}, c tcase) map[string]*run {
	srv.Require(t, c.needs...)
	for _, why := range e.why {
		t.Log(why)
	}
	tools := []string{"s3bulk"}
	for _, name := range []string{"aws", "s5cmd"} {
		if peers[name].live() && !skipped(c, name) {
			tools = append(tools, name)
		}
	}
	boxes := map[string]sandbox{}
	client := srv.Client(t)
	for _, tool := range tools {
		b := sandbox{src: srv.NewBucket(t), dst: srv.NewBucket(t), local: filepath.Join(t.TempDir(), "local")}
		for _, o := range c.src {
			s3test.PutObject(t, client, b.src, o.key, []byte(o.body))
		}
		for _, o := range c.dst {
			s3test.PutObject(t, client, b.dst, o.key, []byte(o.body))
		}
		writeLocal(t, b.local, c.loc, c.locNew)
		boxes[tool] = b
	}
	runs := map[string]*run{}
	var wg sync.WaitGroup
	for _, tool := range tools {
		r := &run{tool: tool}
		runs[tool] = r
		wg.Add(1)
		go func() {
			defer wg.Done()
			execute(r, c, boxes[tool], srv, peers, procs)
		}()
	}
	wg.Wait()
	for _, tool := range tools {
		r := runs[tool]
		if r.err != nil {
			t.Fatalf("%s: %v", tool, r.err)
		}
		r.out = observe(t, srv, boxes[tool], r, c)
	}
	check(t, c, e, open, runs)
	return runs
}

// check compares s3bulk's outcome with the peers' as the verdict expected
// on this server says. A case listed in openFile is a divergence known and
// reported: it must still diverge (so the list shrinks as s3bulk is
// fixed), and is logged.
func check(t *testing.T, c tcase, e expectation, open map[string]string, runs map[string]*run) {
	peerOut := map[string]*outcome{}
	for _, name := range []string{"aws", "s5cmd"} {
		if skipped(c, name) {
			continue
		}
		if r := runs[name]; r != nil {
			o := r.out
			peerOut[name] = &o
		} else if o, ok := e.peers[name]; ok {
			o := o
			peerOut[name] = &o
		} else {
			t.Errorf("no result of %s for this case: it is not live and %s has none; run with it present and -update", name, recordFile)
		}
	}
	me := runs["s3bulk"]
	describe := func(name string) string {
		if r := runs[name]; r != nil {
			return r.String()
		}
		return name + ": recorded result"
	}
	// diverged collects what s3bulk does against the contract.
	var diverged []string
	same := func(name string) {
		want := peerOut[name]
		if want == nil {
			return
		}
		if diff := cmp.Diff(*want, me.out); diff != "" {
			diverged = append(diverged, fmt.Sprintf("s3bulk differs from %s (-%s +s3bulk):\n%s\n%s\n%s", name, name, diff, me, describe(name)))
		}
	}
	differ := func(a, b string) {
		if peerOut[a] != nil && peerOut[b] != nil && cmp.Equal(*peerOut[a], *peerOut[b]) {
			t.Errorf("verdict %q but aws and s5cmd agree: the case is mislabelled", e.verdict)
		}
	}
	switch e.verdict {
	case asBoth:
		if isNA(c.aws) || isNA(c.s5) {
			t.Errorf("verdict %q but a peer is n/a", e.verdict)
		}
		same("aws")
		same("s5cmd")
	case asAWS:
		differ("aws", "s5cmd")
		same("aws")
	case asS5cmd:
		differ("aws", "s5cmd")
		same("s5cmd")
	case deliberate:
		if e.want == nil || c.note == "" {
			t.Fatalf("a deliberate difference says what s3bulk does and why")
		}
		if diff := cmp.Diff(*e.want, me.out); diff != "" {
			diverged = append(diverged, fmt.Sprintf("s3bulk differs from the contract (-want +s3bulk):\n%s\n%s", diff, me))
		}
		for name, o := range peerOut {
			if cmp.Equal(*o, *e.want) {
				t.Errorf("verdict %q but %s does the same: the case is mislabelled", e.verdict, name)
			}
		}
	}
	if c.stderr != "" && !regexp.MustCompile(c.stderr).MatchString(me.stderr) {
		diverged = append(diverged, fmt.Sprintf("s3bulk's stderr does not match %q:\n%s", c.stderr, me))
	}
	if c.code != 0 && me.code != c.code {
		diverged = append(diverged, fmt.Sprintf("s3bulk exits %d, want %d:\n%s", me.code, c.code, me))
	}
	why, isOpen := open[c.name]
	switch {
	case isOpen && len(diverged) == 0:
		t.Errorf("listed in %s (%s) but s3bulk now does what the contract says: take it off the list", openFile, why)
	case isOpen:
		t.Logf("open divergence (%s), listed in %s:\n%s", why, openFile, strings.Join(diverged, "\n"))
	default:
		for _, d := range diverged {
			t.Error(d)
		}
	}
	if t.Failed() {
		for _, name := range []string{"aws", "s5cmd"} {
			if r := runs[name]; r != nil {
				t.Logf("%s", r)
			}
		}
	}
}

// openFile lists the cases where s3bulk is known to break the contract,
// one name a line with the reason after a '#'. It is empty when s3bulk
// meets the contract everywhere.
const openFile = "testdata/open.txt"

func loadOpen(t *testing.T) map[string]string {
	b, err := os.ReadFile(openFile)
	if err != nil {
		t.Fatal(err)
	}
	open := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		name, why, _ := strings.Cut(line, "#")
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		open[name] = strings.TrimSpace(why)
	}
	return open
}

// execute runs the command of c with one tool in its sandbox.
func execute(r *run, c tcase, b sandbox, srv *s3test.Server, peers map[string]peer, procs chan struct{}) {
	words := c.cmd
	switch r.tool {
	case "aws":
		if c.aws != nil {
			words = c.aws
		}
	case "s5cmd":
		words = s5cmdArgs(c.cmd)
		if c.s5 != nil {
			words = c.s5
		}
	}
	args := make([]string, len(words))
	for i, w := range words {
		args[i] = b.expand(w)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if r.tool == "s3bulk" {
		r.args = args
		var out, errOut bytes.Buffer
		r.code = cli.Run(ctx, append([]string{"--no-progress"}, args...), cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut})
		r.stdout, r.stderr = out.String(), errOut.String()
		return
	}
	switch r.tool {
	case "aws":
		args = append(append([]string{"s3"}, args...), "--endpoint-url", srv.Endpoint)
	case "s5cmd":
		args = append([]string{"--endpoint-url", srv.Endpoint}, args...)
	}
	r.args = args
	procs <- struct{}{}
	defer func() { <-procs }()
	r.stdout, r.stderr, r.code, r.err = runPeer(ctx, srv, peers[r.tool].path, filepath.Dir(b.local), args)
}

// runPeer runs a peer's executable in dir; err is set only when it could
// not run or was killed.
func runPeer(ctx context.Context, srv *s3test.Server, path, dir string, args []string) (stdout, stderr string, code int, err error) {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = peerEnv(srv)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.ExitCode() > 0:
		code, err = ee.ExitCode(), nil
	default:
		err = fmt.Errorf("%s %s: %v", path, strings.Join(args, " "), err)
	}
	return out.String(), errOut.String(), code, err
}

// preflight makes sure a live peer reaches the server: a peer that fails
// for want of configuration would otherwise look like a peer that refuses
// every command, and be recorded so.
func preflight(t *testing.T, srv *s3test.Server, p peer) {
	bucket := srv.NewBucket(t)
	s3test.PutObject(t, srv.Client(t), bucket, "preflight/key.txt", []byte("x"))
	args := []string{"s3", "ls", "s3://" + bucket + "/preflight/", "--endpoint-url", srv.Endpoint}
	if p.name == "s5cmd" {
		args = []string{"--endpoint-url", srv.Endpoint, "ls", "s3://" + bucket + "/preflight/"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stdout, stderr, code, err := runPeer(ctx, srv, p.path, t.TempDir(), args)
	if err != nil || code != 0 || !strings.Contains(stdout, "key.txt") {
		t.Fatalf("%s cannot list a bucket on the test server (exit %d, %v):\n%s%s", p.name, code, err, stdout, stderr)
	}
}

// peerEnv is the environment of a peer: the caller's without any AWS_
// setting, plus the server's.
func peerEnv(srv *s3test.Server) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			env = append(env, kv)
		}
	}
	// botocore's default CRC trailers are not what every S3-compatible
	// server expects; s3bulk's tests send checksums only when required too.
	env = append(env, "AWS_REQUEST_CHECKSUM_CALCULATION=when_required", "AWS_RESPONSE_CHECKSUM_VALIDATION=when_required")
	// An empty AWS_PROFILE names a profile to the aws CLI: leave out
	// what the server's environment sets empty.
	for _, kv := range srv.Env() {
		if !strings.HasSuffix(kv, "=") {
			env = append(env, kv)
		}
	}
	return env
}

// s5cmdArgs renders a command in aws's words as s5cmd says it: no
// --recursive (a wildcard instead: s3://b/dir/ becomes s3://b/dir/*), the
// other flags before the paths.
func s5cmdArgs(words []string) []string {
	verb, rest := words[0], words[1:]
	var flags, paths []string
	recursive := false
	for i := 0; i < len(rest); i++ {
		switch w := rest[i]; w {
		case "--recursive":
			recursive = true
		case "--exclude", "--include":
			flags = append(flags, w, rest[i+1])
			i++
		default:
			if strings.HasPrefix(w, "--") {
				flags = append(flags, w)
			} else {
				paths = append(paths, w)
			}
		}
	}
	if len(paths) > 0 {
		src := paths[0]
		s3 := strings.HasPrefix(src, "@src") || strings.HasPrefix(src, "@dst")
		if recursive || (verb == "sync" && s3) {
			if !strings.HasSuffix(src, "/") {
				src += "/"
			}
			if s3 || verb != "sync" {
				src += "*"
			}
		}
		paths[0] = src
	}
	return append(append([]string{verb}, flags...), paths...)
}

// writeLocal seeds the local directory (always created, maybe empty).
func writeLocal(t *testing.T, root string, files []lfile, newer bool) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if newer {
		mtime = time.Now().Add(time.Hour)
	}
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.path))
		if strings.HasSuffix(f.path, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
}

// observe collects what a run left behind.
func observe(t *testing.T, srv *s3test.Server, b sandbox, r *run, c tcase) outcome {
	o := outcome{}
	if r.code != 0 {
		o.Exit = 1
	}
	client := srv.Client(t)
	o.Src = contents(t, client, b.src)
	o.Dst = contents(t, client, b.dst)
	o.Local = readLocal(t, b.local)
	if c.cmd[0] == "ls" {
		o.Ls = lsLines(r.tool, r.stdout)
	}
	return o
}

func contents(t *testing.T, client *s3.Client, bucket string) map[string]string {
	m := map[string]string{}
	for _, k := range s3test.ListKeys(t, client, bucket, "") {
		m[k] = string(s3test.GetObject(t, client, bucket, k))
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// readLocal returns every file under root, and every empty directory as
// "dir/" with an empty body: a tool that makes a directory for a folder
// marker shows.
func readLocal(t *testing.T, root string) map[string]string {
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "." {
				return nil
			}
			ents, err := os.ReadDir(p)
			if err == nil && len(ents) == 0 {
				m[rel+"/"] = ""
			}
			return err
		}
		body, err := os.ReadFile(p)
		m[rel] = string(body)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

var (
	awsDate   = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`)
	s5cmdLine = regexp.MustCompile(`^(\d{4}/\d\d/\d\d \d\d:\d\d:\d\d)?\s+(DIR|\d+)\s+(.*)$`)
)

// dateMask stands for the date and time in an ls line: they are the
// server's and the clock's, not the tool's.
const dateMask = "YYYY-MM-DD hh:mm:ss"

// lsLines are the lines ls printed, dates masked. s5cmd's own layout is
// rewritten in aws's, so that names, sizes and PRE lines compare; aws's and
// s3bulk's are kept as printed, column widths and all.
func lsLines(tool, stdout string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(stdout, "\n"), "\n") {
		if l == "" {
			continue
		}
		if tool == "s5cmd" {
			m := s5cmdLine.FindStringSubmatch(l)
			switch {
			case m == nil:
			case m[2] == "DIR":
				l = fmt.Sprintf("%30s %s", "PRE", m[3])
			default:
				l = fmt.Sprintf("%s %10s %s", dateMask, m[2], m[3])
			}
			lines = append(lines, l)
			continue
		}
		lines = append(lines, awsDate.ReplaceAllLiteralString(l, dateMask))
	}
	return lines
}
