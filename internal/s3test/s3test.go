package s3test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3bulk/s3bulk/internal/gateway"
)

// Environment variables. EndpointEnv is for developers; the others pass the
// configuration of a child gateway from a test binary to its re-executed
// self.
const (
	// EndpointEnv, when set, makes Start use that S3 endpoint instead of
	// starting a gateway, with credentials and region from the standard
	// AWS_ variables.
	EndpointEnv = "S3BULK_TEST_ENDPOINT"

	childEnv       = "S3BULK_S3TEST_CHILD"
	childDirEnv    = "S3BULK_S3TEST_DIR"
	childAddrEnv   = "S3BULK_S3TEST_ADDR"
	childAccessEnv = "S3BULK_S3TEST_ACCESS_KEY"
	childSecretEnv = "S3BULK_S3TEST_SECRET_KEY"
	childRegionEnv = "S3BULK_S3TEST_REGION"
	childVersEnv   = "S3BULK_S3TEST_VERSIONING_DIR"
)

// Server is an S3 endpoint and the credentials that work on it.
type Server struct {
	Endpoint  string
	Region    string
	AccessKey string
	SecretKey string

	// emptyFile stands in for ~/.aws/config and ~/.aws/credentials in Env.
	emptyFile string
	// child is the gateway process, nil for an external endpoint.
	child  *gateway.Child
	shared bool
	// versioning starts the gateway with a versioning directory.
	versioning bool
}

// The shared server of this test binary. Package state is unavoidable
// here: the server outlives every test and is stopped by Main.
var shared struct {
	once   sync.Once
	server *Server
	tmp    string
	err    error
}

// Main runs the tests of a package, or, in a re-executed test binary, the
// gateway that Start asked for. Call it from TestMain. Each of checks runs
// after the tests passed and the server stopped (a goroutine-leak check,
// say); an error fails the test binary.
func Main(m *testing.M, checks ...func() error) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(runChild())
	}
	code := m.Run()
	if s := shared.server; s != nil && s.child != nil {
		if err := s.child.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "s3test: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}
	if shared.tmp != "" {
		_ = os.RemoveAll(shared.tmp)
	}
	if err := stopVersioned(); err != nil {
		fmt.Fprintf(os.Stderr, "s3test: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	for _, check := range checks {
		if code != 0 {
			break
		}
		if err := check(); err != nil {
			fmt.Fprintf(os.Stderr, "after the tests: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

func runChild() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := gateway.Main(ctx, gateway.Options{
		Dir:       os.Getenv(childDirEnv),
		Addr:      os.Getenv(childAddrEnv),
		AccessKey: os.Getenv(childAccessEnv),
		SecretKey: os.Getenv(childSecretEnv),
		Region:    os.Getenv(childRegionEnv),
		Quiet:     true,

		VersioningDir: os.Getenv(childVersEnv),
	}, os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "s3test gateway: %v\n", err)
		return 1
	}
	return 0
}

// Start returns the server shared by all tests of this binary, starting it
// on first use.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := Shared()
	if err != nil {
		t.Fatalf("s3test: start shared server: %v", err)
	}
	return s
}

// Shared is Start for an Example, which has no testing.TB: the server
// shared by all tests of this binary, started on first use and stopped by
// Main.
func Shared() (*Server, error) {
	shared.once.Do(func() {
		if ep := os.Getenv(EndpointEnv); ep != "" {
			shared.server, shared.err = external(ep)
			if shared.err == nil {
				shared.server.shared = true
			}
			return
		}
		shared.tmp, shared.err = os.MkdirTemp("", "s3bulk-s3test-")
		if shared.err != nil {
			return
		}
		shared.server, shared.err = startGateway(shared.tmp)
		if shared.err == nil {
			shared.server.shared = true
		}
	})
	return shared.server, shared.err
}

// Option changes a gateway that StartPrivate starts.
type Option func(*Server)

// WithCredentials gives the gateway its own root credentials, so that two
// servers of one test are two accounts: a request signed for one is
// refused by the other.
func WithCredentials(accessKey, secretKey string) Option {
	return func(s *Server) { s.AccessKey, s.SecretKey = accessKey, secretKey }
}

// WithVersioning lets the gateway's buckets keep object versions once a
// test enables versioning on them (PutBucketVersioning). The shared server
// has no versioning.
func WithVersioning() Option {
	return func(s *Server) { s.versioning = true }
}

// StartPrivate starts a gateway for this test alone, with its own data
// directory, which the test may Stop to see what happens when the endpoint
// goes away. A test may start several (two providers, two accounts). It is
// stopped at cleanup if the test did not.
func StartPrivate(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := startGateway(t.TempDir(), opts...)
	if err != nil {
		t.Fatalf("s3test: start private server: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("s3test: %v", err)
		}
	})
	return s
}

// Stop ends a private server. It is an error to stop the shared server or
// an external endpoint. Safe to call more than once.
func (s *Server) Stop() error {
	if s.shared || s.child == nil {
		return errors.New("s3test: only a server from StartPrivate can be stopped")
	}
	return s.child.Stop()
}

// stopped reports whether the server's gateway process has exited.
func (s *Server) stopped() bool {
	if s.child == nil {
		return false
	}
	select {
	case <-s.child.Done():
		return true
	default:
		return false
	}
}

// externalEnv is the AWS_ configuration of an external endpoint as the
// process started with it, read at package initialisation: a TestMain may
// scrub the environment (so that the code under test sees no developer's
// credentials) before the first test asks for the server.
var externalEnv = struct{ region, accessKey, secretKey string }{
	os.Getenv("AWS_REGION"), os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"),
}

func external(endpoint string) (*Server, error) {
	s := &Server{
		Endpoint:  strings.TrimRight(endpoint, "/"),
		Region:    externalEnv.region,
		AccessKey: externalEnv.accessKey,
		SecretKey: externalEnv.secretKey,
	}
	if s.Region == "" {
		s.Region = gateway.DefaultRegion
	}
	if s.AccessKey == "" || s.SecretKey == "" {
		return nil, fmt.Errorf("%s is set but AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY is not", EndpointEnv)
	}
	f, err := os.CreateTemp("", "s3bulk-s3test-empty-")
	if err != nil {
		return nil, err
	}
	f.Close()
	shared.tmp = f.Name()
	s.emptyFile = f.Name()
	return s, nil
}

// startGateway re-executes this test binary in child mode, serving a
// directory under tmp.
func startGateway(tmp string, opts ...Option) (*Server, error) {
	s := &Server{
		Region:    gateway.DefaultRegion,
		AccessKey: gateway.DefaultAccessKey,
		SecretKey: gateway.DefaultSecretKey,
		emptyFile: filepath.Join(tmp, "empty"),
	}
	for _, o := range opts {
		o(s)
	}
	if err := os.WriteFile(s.emptyFile, nil, 0o644); err != nil {
		return nil, err
	}
	// -test.run=^$ keeps the child from running tests should Main not be
	// wired into TestMain; Spawn then reports that the child exited.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		childEnv+"=1",
		childDirEnv+"="+filepath.Join(tmp, "data"),
		childAddrEnv+"="+gateway.DefaultAddr,
		childAccessEnv+"="+s.AccessKey,
		childSecretEnv+"="+s.SecretKey,
		childRegionEnv+"="+s.Region,
	)
	if s.versioning {
		cmd.Env = append(cmd.Env, childVersEnv+"="+filepath.Join(tmp, "versions"))
	}
	cmd.Stderr = os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	child, err := gateway.Spawn(ctx, cmd)
	if err != nil {
		return nil, fmt.Errorf("%w (does TestMain call s3test.Main?)", err)
	}
	s.child = child
	s.Endpoint = child.Endpoint
	return s, nil
}

// Client returns an SDK client for setup and verification. It reads no
// shared config files or environment, so a developer's ~/.aws never leaks
// into a test.
func (s *Server) Client(t testing.TB) *s3.Client {
	t.Helper()
	return s.SDK()
}

// SDK is Client for an Example, which has no testing.TB.
func (s *Server) SDK() *s3.Client {
	return s3.New(s3.Options{
		BaseEndpoint: aws.String(s.Endpoint),
		Region:       s.Region,
		Credentials:  credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, ""),
		UsePathStyle: true,
		// Checksums only where S3 requires them, as third-party servers
		// expect; the SDK default adds CRC32 trailers to every upload.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
}

// Env returns the AWS_ environment for a child process (the s3bulk CLI, or
// another tool) that should reach this server and nothing else.
func (s *Server) Env() []string {
	return []string{
		"AWS_ACCESS_KEY_ID=" + s.AccessKey,
		"AWS_SECRET_ACCESS_KEY=" + s.SecretKey,
		"AWS_SESSION_TOKEN=",
		"AWS_REGION=" + s.Region,
		"AWS_DEFAULT_REGION=" + s.Region,
		"AWS_ENDPOINT_URL=" + s.Endpoint,
		"AWS_PROFILE=",
		"AWS_CONFIG_FILE=" + s.emptyFile,
		"AWS_SHARED_CREDENTIALS_FILE=" + s.emptyFile,
		"AWS_EC2_METADATA_DISABLED=true",
	}
}
