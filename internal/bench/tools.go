package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"golang.org/x/sync/errgroup"
)

// toolOf maps methods to the executables they run.
var toolOf = map[string]string{MethodAWS: "aws", MethodS5cmd: "s5cmd", MethodRclone: "rclone"}

// versionArgs print a tool's version.
var versionArgs = map[string][]string{"aws": {"--version"}, "s5cmd": {"version"}, "rclone": {"version"}}

// findTool returns the tool's path, or "" and why it is not there.
func (r *runner) findTool(name string) (path, reason string) {
	if p := r.cfg.Tools[name]; p != "" {
		resolved, err := r.cfg.LookPath(p)
		if err != nil {
			return "", fmt.Sprintf("%s: %v", p, err)
		}
		path = resolved
	} else {
		resolved, err := r.cfg.LookPath(name)
		if err != nil {
			return "", name + " not found on PATH"
		}
		path = resolved
	}
	if r.toolVersions == nil {
		r.toolVersions = map[string]string{}
	}
	out, err := exec.Command(path, versionArgs[name]...).CombinedOutput()
	if err != nil {
		return "", fmt.Sprintf("%s %s: %v: %s", path, strings.Join(versionArgs[name], " "), err, firstLine(out))
	}
	r.toolVersions[name] = firstLine(out)
	return path, ""
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(s)
}

// tailBuffer keeps the last bytes a tool wrote, for error messages.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 2 << 10

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailMax {
		t.buf = t.buf[len(t.buf)-tailMax:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(strings.Fields(string(bytes.TrimSpace(t.buf))), " ")
}

// exec runs one tool process and adds its CPU time to *cpu.
func (r *runner) exec(ctx context.Context, env []string, cpu *float64, mu *sync.Mutex, path string, args ...string) error {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = env
	var out tailBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if cmd.ProcessState != nil {
		mu.Lock()
		*cpu += (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
		mu.Unlock()
	}
	if err != nil {
		msg := out.String()
		if len(msg) > 400 {
			msg = msg[len(msg)-400:]
		}
		return fmt.Errorf("%s %s: %w: %s", path, strings.Join(args, " "), err, msg)
	}
	return nil
}

// pages is how many ListObjectsV2 pages of 1,000 keys a listing of n takes.
func pages(n int) int64 { return int64(max(1, (n+999)/1000)) }

// awsCLI is the report's method 3: `aws s3 cp --recursive` per company
// prefix, CompanyConcurrency processes at a time.
func (r *runner) awsCLI(ctx context.Context, path string) (outcome, error) {
	env, err := r.cfg.Conn.toolEnv(ctx)
	if err != nil {
		return outcome{}, err
	}
	var cpu float64
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.cfg.CompanyConcurrency)
	var lists int64
	for _, grp := range r.groups {
		lists += pages(len(grp.Objects))
		args := r.awsArgs(grp)
		g.Go(func() error { return r.exec(gctx, env, &cpu, &mu, path, args...) })
	}
	err = g.Wait()
	return outcome{
		requests:  map[string]int64{"ListObjectsV2": lists, "CopyObject": int64(len(r.entries))},
		estimated: true, external: true, cpu: cpu,
	}, err
}

// awsArgs are the arguments of the AWS CLI process that copies grp.
func (r *runner) awsArgs(grp Group) []string {
	args := []string{"s3", "cp", r.cfg.Source.String() + grp.Company, r.cfg.Dest.String() + grp.Company, "--recursive"}
	if grp.Company == "" {
		// Keys directly under the prefix: everything without a slash.
		args = append(args, "--exclude", "*/*")
	}
	if ep := r.cfg.Conn.Endpoint; ep != "" {
		args = append(args, "--endpoint-url", ep)
	}
	if region := r.cfg.Conn.AWS.Region; region != "" {
		args = append(args, "--region", region)
	}
	return append(args, "--only-show-errors", "--no-progress")
}

// awsAlone runs the AWS CLI's process for the largest company with the
// machine to itself, into an emptied destination, and checks that every
// object arrived: on fewer cores than the report's client, four processes
// at once measure this machine's Python, and one alone measures what
// each of the report's processes did on a core of its own.
func (r *runner) awsAlone(ctx context.Context) (*AloneRun, error) {
	path, reason := r.findTool(toolOf[MethodAWS])
	if path == "" {
		return nil, fmt.Errorf("bench: aws alone: %s", reason)
	}
	env, err := r.cfg.Conn.toolEnv(ctx)
	if err != nil {
		return nil, err
	}
	grp := r.groups[0]
	for _, g := range r.groups {
		if len(g.Objects) > len(grp.Objects) {
			grp = g
		}
	}
	r.cfg.Observe(Event{Method: MethodAWS, Stage: "alone"})
	if err := r.clear(ctx, r.cfg.Dest); err != nil {
		return nil, err
	}
	var cpu float64
	var mu sync.Mutex
	start := time.Now()
	if err := r.exec(ctx, env, &cpu, &mu, path, r.awsArgs(grp)...); err != nil {
		return nil, fmt.Errorf("bench: aws alone: %w", err)
	}
	secs := time.Since(start).Seconds()
	if n, _, problem, err := r.verify(ctx, grp.Objects); err != nil {
		return nil, err
	} else if problem != "" {
		return nil, fmt.Errorf("bench: aws alone copied %d of %d objects of %s: %s", n, len(grp.Objects), grp.Company, problem)
	}
	per := secs / float64(len(grp.Objects))
	return &AloneRun{
		Company: grp.Company, Objects: int64(len(grp.Objects)), Seconds: secs,
		ScheduledObjectsPerSecond: float64(len(r.entries)) / scheduledSeconds(r.groups, r.cfg.CompanyConcurrency, per),
	}, nil
}

// s5cmd copies the whole prefix with one wildcard, its usual form.
func (r *runner) s5cmd(ctx context.Context, path string) (outcome, error) {
	env, err := r.cfg.Conn.toolEnv(ctx)
	if err != nil {
		return outcome{}, err
	}
	var args []string
	if ep := r.cfg.Conn.Endpoint; ep != "" {
		args = append(args, "--endpoint-url", ep)
	}
	args = append(args, "--log", "error", "cp", r.cfg.Source.String()+"*", r.cfg.Dest.String())
	var cpu float64
	var mu sync.Mutex
	err = r.exec(ctx, env, &cpu, &mu, path, args...)
	return outcome{
		requests:  map[string]int64{"ListObjectsV2": pages(len(r.entries)), "CopyObject": int64(len(r.entries))},
		estimated: true, external: true, cpu: cpu,
	}, err
}

// rcloneRemote names the remote configured through environment variables.
const rcloneRemote = "S3BULKBENCH"

// rcloneTransfers is the parallelism rclone is given: its defaults (4
// transfers, 8 checkers) are meant for home links, and its S3 docs advise
// raising both for many small objects.
const rcloneTransfers = "64"

// rclone copies between two paths of one remote, configured with no config
// file, so the copy is server-side.
func (r *runner) rclone(ctx context.Context, path string) (outcome, error) {
	env, err := r.cfg.Conn.toolEnv(ctx)
	if err != nil {
		return outcome{}, err
	}
	var creds aws.Credentials
	if r.cfg.Conn.AWS.Credentials != nil {
		if creds, err = r.cfg.Conn.AWS.Credentials.Retrieve(ctx); err != nil {
			return outcome{}, fmt.Errorf("retrieve credentials for rclone: %w", err)
		}
	}
	// rclone's SDK cannot apply AWS_CA_BUNDLE to its own HTTP transport and
	// refuses to start; it takes the same file as --ca-cert.
	env, caBundle := withoutEnv(env, "AWS_CA_BUNDLE")
	provider := "AWS"
	if r.cfg.Conn.Endpoint != "" {
		provider = "Other"
	}
	// No config file: the remote lives in the environment only, and a
	// user's own remotes and defaults stay out of the measurement.
	env = append(env, "RCLONE_CONFIG="+os.DevNull)
	set := func(k, v string) { env = append(env, "RCLONE_CONFIG_"+rcloneRemote+"_"+k+"="+v) }
	set("TYPE", "s3")
	set("PROVIDER", provider)
	set("ENV_AUTH", "false")
	set("ACCESS_KEY_ID", creds.AccessKeyID)
	set("SECRET_ACCESS_KEY", creds.SecretAccessKey)
	set("SESSION_TOKEN", creds.SessionToken)
	set("REGION", r.cfg.Conn.AWS.Region)
	set("ENDPOINT", r.cfg.Conn.Endpoint)
	set("FORCE_PATH_STYLE", fmt.Sprint(r.cfg.Conn.PathStyle || r.cfg.Conn.Endpoint != ""))
	remote := func(t Target) string { return rcloneRemote + ":" + t.Bucket + "/" + t.Prefix }
	args := []string{"copy", remote(r.cfg.Source), remote(r.cfg.Dest),
		"--transfers", rcloneTransfers, "--checkers", rcloneTransfers, "--fast-list",
		"--s3-no-check-bucket", "--quiet"}
	if caBundle != "" {
		args = append(args, "--ca-cert", caBundle)
	}
	var cpu float64
	var mu sync.Mutex
	err = r.exec(ctx, env, &cpu, &mu, path, args...)
	n := len(r.entries)
	return outcome{
		// --fast-list lists source and destination once each.
		requests:  map[string]int64{"ListObjectsV2": 2 * pages(n), "CopyObject": int64(n)},
		estimated: true, external: true, cpu: cpu,
		note: "run with --transfers " + rcloneTransfers + " --checkers " + rcloneTransfers + " --fast-list",
	}, err
}
