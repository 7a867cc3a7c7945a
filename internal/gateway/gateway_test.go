package gateway

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/sync/errgroup"
)

// The test binary doubles as the processes the tests start, chosen by
// modeEnv: "serve" runs the gateway, "spawner" starts a serving child and
// then waits to be killed.
const (
	modeEnv    = "S3BULK_GATEWAY_TEST_MODE"
	dirEnv     = "S3BULK_GATEWAY_TEST_DIR"
	addrEnv    = "S3BULK_GATEWAY_TEST_ADDR"
	sidecarEnv = "S3BULK_GATEWAY_TEST_SIDECAR"
	quietEnv   = "S3BULK_GATEWAY_TEST_QUIET"
)

func TestMain(m *testing.M) {
	switch os.Getenv(modeEnv) {
	case "serve":
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		opts := Options{Dir: os.Getenv(dirEnv), Addr: os.Getenv(addrEnv), Quiet: os.Getenv(quietEnv) == "1"}
		if err := run(ctx, opts, os.Stdout, os.Getenv(sidecarEnv) == "1"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "spawner":
		cmd := childCmd(os.Getenv(dirEnv), "serve")
		child, err := Spawn(context.Background(), cmd)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(EndpointPrefix + child.Endpoint)
		select {} // until killed
	}
	os.Exit(m.Run())
}

// childCmd runs this test binary as a gateway (mode "serve") or a spawner.
// The gateway would take its root key from the AWS_ variables of a
// developer who has some; the tests sign with the default key.
func childCmd(dir, mode string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), modeEnv+"="+mode, dirEnv+"="+dir, quietEnv+"=1",
		"AWS_ACCESS_KEY_ID="+DefaultAccessKey, "AWS_SECRET_ACCESS_KEY="+DefaultSecretKey)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// reap kills cmd at cleanup unless the test already waited for it, so that
// no failing test leaves a process behind.
func reap(t *testing.T, cmd *exec.Cmd) {
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
}

// spawn starts a serving child and stops it, checking for a clean exit, at
// cleanup.
func spawn(t *testing.T, dir string, env ...string) *Child {
	t.Helper()
	child, err := Spawn(t.Context(), childCmd(dir, "serve", env...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := child.Stop(); err != nil {
			t.Error(err)
		}
	})
	return child
}

func client(endpoint string) *s3.Client {
	return s3.New(s3.Options{
		BaseEndpoint:               aws.String(endpoint),
		Region:                     DefaultRegion,
		Credentials:                credentials.NewStaticCredentialsProvider(DefaultAccessKey, DefaultSecretKey, ""),
		UsePathStyle:               true,
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
}

func TestServeKeepsObjectsAndMetadata(t *testing.T) {
	tests := []struct {
		name string
		env  []string
	}{
		{"with metadata in extended attributes", nil},
		{"with metadata in a sidecar directory", []string{sidecarEnv + "=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			c := client(spawn(t, dir, tt.env...).Endpoint)
			ctx := t.Context()
			if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("bkt")}); err != nil {
				t.Fatal(err)
			}
			_, err := c.PutObject(ctx, &s3.PutObjectInput{
				Bucket: aws.String("bkt"), Key: aws.String("a/b c"),
				Body: strings.NewReader("hello"), ContentType: aws.String("text/plain"),
				Metadata: map[string]string{"origin": "test"},
			})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.CopyObject(ctx, &s3.CopyObjectInput{
				Bucket: aws.String("bkt"), Key: aws.String("copy"), CopySource: aws.String("bkt/a/b%20c"),
			})
			if err != nil {
				t.Fatalf("copy: %v", err)
			}
			head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("bkt"), Key: aws.String("copy")})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{"content-type": aws.ToString(head.ContentType), "origin": head.Metadata["origin"]}
			want := map[string]string{"content-type": "text/plain", "origin": "test"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("copied object's metadata (-want +got):\n%s", diff)
			}
			buckets, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, b := range buckets.Buckets {
				names = append(names, aws.ToString(b.Name))
			}
			if diff := cmp.Diff([]string{"bkt"}, names); diff != "" {
				t.Errorf("buckets (-want +got):\n%s", diff)
			}
			if _, err := os.Stat(filepath.Join(dir, "bkt", "a", "b c")); err != nil {
				t.Errorf("object is not a plain file under the served directory: %v", err)
			}
		})
	}
}

func TestServeTakesManyConcurrentRequests(t *testing.T) {
	c := client(spawn(t, t.TempDir()).Endpoint)
	ctx := t.Context()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("bkt")}); err != nil {
		t.Fatal(err)
	}
	// More requests in flight than a benchmark uses must not be throttled.
	var g errgroup.Group
	for i := range 300 {
		g.Go(func() error {
			_, err := c.PutObject(ctx, &s3.PutObjectInput{
				Bucket: aws.String("bkt"), Key: aws.String(fmt.Sprint(i)), Body: strings.NewReader("x"),
			}, func(o *s3.Options) { o.RetryMaxAttempts = 1 })
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Error(err)
	}
}

func TestStdoutCarriesOnlyTheEndpointLine(t *testing.T) {
	// Not quiet, so versitygw's notices and the request log are produced
	// and must all land on stderr.
	cmd := childCmd(t.TempDir(), "serve", quietEnv+"=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reap(t, cmd)
	r := bufio.NewReader(out)
	first, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("read endpoint line: %v (stderr: %s)", err, stderr.String())
	}
	if !regexp.MustCompile(`^endpoint: http://127\.0\.0\.1:\d+\n$`).MatchString(first) {
		t.Errorf("first line = %q, want endpoint: http://127.0.0.1:PORT", first)
	}
	endpoint := strings.TrimSpace(strings.TrimPrefix(first, EndpointPrefix))
	_, err = client(endpoint).CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("logged")})
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(r)
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit after SIGTERM: %v (stderr: %s)", err, stderr.String())
	}
	if len(rest) != 0 {
		t.Errorf("stdout after the endpoint line = %q, want nothing", rest)
	}
	if !strings.Contains(stderr.String(), " 200 PUT /logged ") {
		t.Errorf("stderr has no request log line for PUT /logged:\n%s", stderr.String())
	}
}

func TestSpawnFailures(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	tests := []struct {
		name    string
		cmd     func() *exec.Cmd
		wantErr string
	}{
		{"a child that exits early is reported with its stderr", func() *exec.Cmd {
			return childCmd("", "serve")
		}, "no directory given"},
		{"a fixed address in use is not retried", func() *exec.Cmd {
			return childCmd(t.TempDir(), "serve", addrEnv+"="+busy.Addr().String())
		}, "address already in use"},
		{"a command that is not a gateway is reported", func() *exec.Cmd {
			return exec.Command(os.Args[0], "-test.run=^$")
		}, "exited before reporting its endpoint"},
		{"a command with stdout already set is refused", func() *exec.Cmd {
			cmd := childCmd(t.TempDir(), "serve")
			cmd.Stdout = io.Discard
			return cmd
		}, "cmd.Stdout must be nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			child, err := Spawn(t.Context(), tt.cmd())
			if err == nil {
				child.Stop()
				t.Fatalf("Spawn succeeded, want an error containing %q", tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Spawn error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestStopEndsTheChild(t *testing.T) {
	child, err := Spawn(t.Context(), childCmd(t.TempDir(), "serve"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := child.Stop(); err != nil {
			t.Errorf("stop #%d: %v", i+1, err)
		}
	}
	select {
	case <-child.Done():
	default:
		t.Fatal("Stop returned but the child has not exited")
	}
	_, err = net.Dial("tcp", strings.TrimPrefix(child.Endpoint, "http://"))
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial after stop: err = %v, want connection refused", err)
	}
}
