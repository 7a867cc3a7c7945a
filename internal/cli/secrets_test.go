package cli

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3bulk/s3bulk/internal/batchops/fakecontrol"
	"github.com/s3bulk/s3bulk/internal/gateway"
	"github.com/s3bulk/s3bulk/internal/testfs"
)

// Credentials no other string in a run can contain by chance. The access
// key id is not a secret (it is in every request and every log of S3); the
// secret key and the session token must never be printed.
const (
	secretsAccessKey = "AKIDS3BULKSECRETSTEST"
	secretsSecretKey = "sEcReT-7c1e0f-s3bulk-must-never-print-this"
	secretsToken     = "ToKeN-93ab55-s3bulk-must-never-print-this-either"
	secretsWrongKey  = "wRoNg-2d4f8a-s3bulk-must-never-print-this-too"
	// secretsSSECKey is an SSE-C key (32 bytes): neither it, nor its
	// base64 nor its MD5 (what requests carry) may be printed.
	secretsSSECKey = "SsEcKeY-s3bulk-never-print-32by!"
)

// secretsSSECForms are the SSE-C key as requests carry it: base64, and the
// base64 of its MD5.
var secretsSSECForms = func() string {
	sum := md5.Sum([]byte(secretsSSECKey))
	return regexp.QuoteMeta(base64.StdEncoding.EncodeToString([]byte(secretsSSECKey))) + "|" +
		regexp.QuoteMeta(base64.StdEncoding.EncodeToString(sum[:]))
}()

// leaks finds what must never be printed: the secrets, and the signature
// material of a request (an Authorization header, a presigned query).
var leaks = regexp.MustCompile(regexp.QuoteMeta(secretsSecretKey) + "|" + regexp.QuoteMeta(secretsToken) + "|" +
	regexp.QuoteMeta(secretsWrongKey) + "|" + regexp.QuoteMeta(secretsSSECKey) + "|" + secretsSSECForms + `|(?i)signature=[0-9a-f]{16}|x-amz-security-token|x-amz-credential=|authorization:\s*aws4`)

// secretLeaks is leaks without signatures and session tokens: presign's
// output is a signed URL by design, which with temporary credentials must
// carry the session token for the server to accept it (as the AWS CLI's
// does); it must still carry no secret key.
var secretLeaks = regexp.MustCompile(regexp.QuoteMeta(secretsSecretKey) + "|" +
	regexp.QuoteMeta(secretsWrongKey) + "|" + regexp.QuoteMeta(secretsSSECKey) + "|" + secretsSSECForms)

// cliChildEnv, when set to a JSON array of arguments, makes this test
// binary run that s3bulk command line instead of the tests: the server
// under test (serve) is a process of its own, as it is for users.
const cliChildEnv = "S3BULK_CLI_TEST_CHILD_ARGS"

// lockedBuffer is a bytes.Buffer safe for concurrent writers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func runAsCLIChild(argsJSON string) {
	var args []string
	if err := json.Unmarshal([]byte(argsJSON), &args); err != nil {
		os.Exit(ExitUsage)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Run(ctx, args, Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}

// secretsEnv is the whole AWS environment of a run against endpoint.
func secretsEnv(t *testing.T, endpoint, secret, token string) map[string]string {
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"AWS_ACCESS_KEY_ID":           secretsAccessKey,
		"AWS_SECRET_ACCESS_KEY":       secret,
		"AWS_SESSION_TOKEN":           token,
		"AWS_REGION":                  gateway.DefaultRegion,
		"AWS_DEFAULT_REGION":          gateway.DefaultRegion,
		"AWS_ENDPOINT_URL":            endpoint,
		"AWS_PROFILE":                 "",
		"AWS_CONFIG_FILE":             empty,
		"AWS_SHARED_CREDENTIALS_FILE": empty,
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_MAX_ATTEMPTS":            "2", // failing passes fail fast
	}
}

func TestSecretsNeverAppearInOutput(t *testing.T) {
	if args := os.Getenv(cliChildEnv); args != "" {
		runAsCLIChild(args)
	}
	t.Parallel()

	// The server: s3bulk serve, with the distinctive credentials in its
	// environment, logging at debug level.
	data := t.TempDir()
	argsJSON, _ := json.Marshal([]string{"--log-level", "debug", "serve", "--dir", data})
	cmd := exec.Command(os.Args[0], "-test.run=^TestSecretsNeverAppearInOutput$")
	cmd.Env = append(os.Environ(), cliChildEnv+"="+string(argsJSON),
		"AWS_ACCESS_KEY_ID="+secretsAccessKey, "AWS_SECRET_ACCESS_KEY="+secretsSecretKey)
	var serveErr bytes.Buffer
	cmd.Stderr = &serveErr
	child, err := gateway.Spawn(t.Context(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	endpoint := child.Endpoint

	sdk := s3.New(s3.Options{
		BaseEndpoint: aws.String(endpoint), Region: gateway.DefaultRegion, UsePathStyle: true,
		Credentials:                credentials.NewStaticCredentialsProvider(secretsAccessKey, secretsSecretKey, ""),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
	control := fakecontrol.New(t, sdk, fakecontrol.Options{})
	batchFlags := []string{"--control-endpoint-url", control.URL, "--account-id", control.AccountID(), "--poll-interval", "1ms"}
	const role = "arn:aws:iam::123456789012:role/s3bulk-batch"

	up, down := t.TempDir(), t.TempDir()
	testfs.Write(t, up, map[string]string{"a.txt": "a", "dir/b.json": "{}"})
	if err := os.WriteFile(filepath.Join(up, "big.bin"), bodyFor(1, 6<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	parts := []string{"--part-size", "5MiB", "--multipart-threshold", "5MiB"}
	keyFile := filepath.Join(t.TempDir(), "ssec.key")
	if err := os.WriteFile(keyFile, []byte(secretsSSECKey), 0o600); err != nil {
		t.Fatal(err)
	}
	ssec := []string{"--sse-c", "AES256", "--sse-c-key", "file://" + keyFile}
	ssecSrc := []string{"--sse-c-copy-source", "AES256", "--sse-c-copy-source-key", "file://" + keyFile}
	runFile := filepath.Join(t.TempDir(), "commands")
	if err := os.WriteFile(runFile, []byte("cp s3://src/one.txt s3://dst/run.txt\nrm s3://dst/run.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// Every command, every direction, with the requests it makes logged.
	commands := [][]string{
		{"mb", "s3://src"},
		{"mb", "s3://dst"},
		{"mb", "s3://seeded"},
		{"mb", "s3://bench-dst"},
		{"mb", "s3://empty"},
		{"ls"},
		append([]string{"cp", "--recursive"}, append(parts, up, "s3://src/up/")...),
		{"cp", filepath.Join(up, "a.txt"), "s3://src/one.txt"},
		{"ls", "--recursive", "s3://src/"},
		{"--json", "ls", "s3://src/up/"},
		append([]string{"cp", "--recursive"}, append(parts, "s3://src/up/", "s3://dst/up/")...),
		{"cp", "s3://src/one.txt", "s3://dst/one.txt"},
		{"--dry-run", "cp", "--recursive", "s3://src/", "s3://dst/dry/"},
		append([]string{"--json", "cp", "--recursive"}, append(parts, "s3://src/up/", down)...),
		// SSE-C both ways and server-side, in one part and in parts.
		slices.Concat([]string{"cp", "--recursive"}, ssec, parts, []string{up, "s3://src/enc/"}),
		slices.Concat([]string{"cp", "--recursive"}, ssec, ssecSrc, parts, []string{"s3://src/enc/", "s3://dst/enc/"}),
		slices.Concat([]string{"--json", "cp", "--recursive"}, ssec, parts, []string{"s3://dst/enc/", filepath.Join(down, "enc")}),
		{"cp", "s3://src/one.txt", filepath.Join(down, "one.txt")},
		{"--json", "verify", "s3://src/up/", "s3://dst/up/"},
		{"verify", up, "s3://dst/up/"},
		{"seed", "s3://seeded/seed", "--objects", "8", "--size", "1KiB", "--users-per-company", "2"},
		{"--json", "bench", "--source", "s3://seeded/seed/", "--dest", "s3://bench-dst/copy/", "--methods", "s3bulk"},
		append([]string{"batch", "cp", "s3://src/up/", "s3://dst/batch/", "--role-arn", role, "--wait"}, batchFlags...),
		append([]string{"batch", "ls"}, batchFlags...),
		append([]string{"batch", "policy", "s3://src/up/", "s3://dst/batch/"}, batchFlags...),
		{"mpu", "ls", "s3://src/"},
		{"mpu", "abort", "s3://src/unfinished/"},
		{"mv", "s3://dst/one.txt", "s3://dst/moved.txt"},
		{"sync", "--delete", up, "s3://dst/synced/"},
		{"--json", "plan", "sync", "--delete", "s3://src/up/", "s3://dst/synced/"},
		{"du", "s3://src/"},
		{"cat", "s3://src/one.txt"},
		{"cp", "s3://src/one.txt", "-"},
		{"presign", "s3://src/one.txt"},
		{"presign", "--put", "--expires-in", "600", "s3://src/presigned.txt"},
		{"run", runFile},
		{"--dry-run", "rm", "--recursive", "s3://dst/synced/"},
		{"rm", "s3://dst/moved.txt"},
		{"rb", "s3://empty"},
		{"version"},
	}
	// Every verb is here, but two: serve is the server above, and demo
	// starts a server of its own with fixed demo credentials, never the
	// user's (and would re-execute this test binary as s3bulk).
	covered := map[string]bool{"serve": true, "demo": true}
	for _, args := range commands {
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				covered[a] = true
				break
			}
		}
	}
	for _, c := range (&app{}).commands() {
		if !covered[c.Name()] {
			t.Errorf("s3bulk %s is not run by this test: add it to the commands", c.Name())
		}
	}
	// Job ids are only known once the job exists: status, report and
	// cancel run after batch cp, on the job it printed.
	jobCommands := func(id string) [][]string {
		return [][]string{
			append([]string{"batch", "status", id}, batchFlags...),
			append([]string{"batch", "report", id}, batchFlags...),
			append([]string{"batch", "cancel", id}, batchFlags...),
		}
	}

	check := func(t *testing.T, args []string, stdout, stderr string) {
		t.Helper()
		out := stdout
		if slices.Contains(args, "presign") {
			if m := secretLeaks.FindString(stdout); m != "" {
				t.Errorf("s3bulk %s printed %q in its URL:\n%s", strings.Join(args, " "), m, stdout)
			}
			out = ""
		}
		if m := leaks.FindString(out + stderr); m != "" {
			t.Errorf("s3bulk %s printed %q:\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), m, stdout, stderr)
		}
	}
	run := func(t *testing.T, env map[string]string, args []string) (string, string, int) {
		t.Helper()
		var kv []string
		for k, v := range env {
			kv = append(kv, k+"="+v)
		}
		all := append([]string{"--no-progress", "--log-level", "debug"}, args...)
		// Locked: the logger and the renderers write stderr from many
		// goroutines (see TestDebugLogsAndResultsShareStderrWithoutARace).
		var out, errOut lockedBuffer
		code := Run(t.Context(), all, Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut, Env: kv})
		check(t, all, out.String(), errOut.String())
		return out.String(), errOut.String(), code
	}

	t.Run("with the right credentials every command works and says nothing secret", func(t *testing.T) {
		env := secretsEnv(t, endpoint, secretsSecretKey, "")
		debugLines := 0
		for _, args := range commands {
			out, errOut, code := run(t, env, args)
			if code != ExitOK {
				t.Errorf("s3bulk %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
			}
			debugLines += strings.Count(errOut, "level=DEBUG")
			if strings.Join(args, " ") == "mb s3://src" {
				// An upload left unfinished, for mpu to list and abort.
				_, err := sdk.CreateMultipartUpload(t.Context(), &s3.CreateMultipartUploadInput{Bucket: aws.String("src"), Key: aws.String("unfinished/x")})
				if err != nil {
					t.Fatal(err)
				}
			}
			if args[0] == "batch" && args[1] == "cp" {
				for _, more := range jobCommands(jobID(t, out)) {
					run(t, env, more)
				}
			}
		}
		// The search above means something only if the requests were logged.
		if debugLines < len(commands) {
			t.Errorf("only %d debug lines for %d commands: is --log-level debug logging requests?", debugLines, len(commands))
		}
	})
	t.Run("with a session token the server refuses, the token is not in the errors", func(t *testing.T) {
		env := secretsEnv(t, endpoint, secretsSecretKey, secretsToken)
		for _, args := range commands {
			run(t, env, args)
		}
	})
	t.Run("with a wrong secret key, the wrong key is not in the errors", func(t *testing.T) {
		env := secretsEnv(t, endpoint, secretsWrongKey, "")
		for _, args := range commands {
			run(t, env, args)
		}
	})

	if err := child.Stop(); err != nil {
		t.Errorf("serve: %v", err)
	}
	if m := leaks.FindString(serveErr.String()); m != "" {
		t.Errorf("s3bulk serve printed %q:\n%s", m, serveErr.String())
	}
}
