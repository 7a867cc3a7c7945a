package s3store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	awsretry "github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/s3bulk/s3bulk/internal/retry"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store/internal/transport"
)

// Config configures a Client. The zero value works: credentials, region and
// endpoint then come from the environment and the shared AWS config files
// exactly as for the AWS CLI.
type Config struct {
	// Region overrides AWS_REGION and the profile's region. When nothing
	// sets a region, us-east-1 is used.
	Region string
	// Profile selects a shared-config profile (like AWS_PROFILE).
	Profile string
	// EndpointURL overrides AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL and the
	// profile's endpoint_url, for S3-compatible servers.
	EndpointURL string
	// PathStyle forces path-style (true) or virtual-hosted (false) bucket
	// addressing. nil chooses path-style exactly when a custom endpoint is
	// configured (by EndpointURL or the environment), since most
	// S3-compatible servers have no wildcard DNS for bucket subdomains.
	PathStyle *bool
	// ChecksumWhenRequired sends and validates checksums only where S3
	// requires them, instead of on every upload and download. Some
	// S3-compatible servers reject the SDK's default trailing checksums.
	ChecksumWhenRequired bool
	// Concurrency is how many requests the run keeps in flight; the idle
	// connection pool is sized to it. Default 64.
	Concurrency int
	// MaxAttempts is the number of HTTP attempts per request, first one
	// included. Default: AWS_MAX_ATTEMPTS, else 10.
	MaxAttempts int
	// AccessKey and SecretKey, when both set, replace the credential chain;
	// SessionToken goes with them for temporary credentials.
	AccessKey, SecretKey, SessionToken string
	// ConfigFiles and CredentialsFiles, when set, replace the shared config
	// and credentials files (AWS_CONFIG_FILE, AWS_SHARED_CREDENTIALS_FILE,
	// ~/.aws/config and ~/.aws/credentials).
	ConfigFiles, CredentialsFiles []string
	// Anonymous sends unsigned requests (public buckets).
	Anonymous bool
	// OnThrottle is called once per throttled response (503 SlowDown, 429,
	// ...); the run's AIMD limiter listens here. Called concurrently.
	OnThrottle func()
	// OnRequest is called once per HTTP attempt with the operation name
	// ("CopyObject", "UploadPart", ...), retries included; benchmarks count
	// requests and their cost from it. Called concurrently.
	OnRequest func(op string)
	// OnResponse is called once per HTTP attempt when it has ended, with
	// the operation name and its outcome: "ok", or the class of its error
	// ("throttled", "retryable", "permanent", "fatal"). Called
	// concurrently.
	OnResponse func(op, outcome string)
	// Logger receives one debug line per attempt (operation, bucket, key,
	// status, duration, error). Credentials, session tokens, SSE-C keys and
	// presigned URLs are never logged. nil logs nothing.
	Logger *slog.Logger
	// StallTimeout is the least time an exchange may make no progress
	// (send no request body bytes, get no response headers or no body
	// bytes) before it is cancelled and retried on a new connection. The
	// wait is longer when the server has been slower: twice its smoothed
	// answer time plus four times the variation (RFC 6298), and as long
	// as no request sent after it was answered, up to StallTimeoutCap
	// (docs/design/0008-stalls.md). Default DefaultStallTimeout; negative
	// disables.
	StallTimeout time.Duration
	// CopyStallTimeout is the wait for response headers of requests whose
	// server-side work grows with object size before the server answers
	// (CopyObject, UploadPartCopy, CompleteMultipartUpload, DeleteObjects).
	// Default 5m.
	CopyStallTimeout time.Duration
	// DisableRawRequests sends every request through the SDK's operation
	// stack, even on custom endpoints: CopyObject, and the GetObject and
	// small PutObject of copies streamed through the client, are otherwise
	// sent without it (see rawcopy.go).
	DisableRawRequests bool
	// Backoff is the wait between attempts; the zero value is full jitter
	// from 100ms (250ms when throttled) up to 20s (see Backoff).
	Backoff Backoff
}

// sdkResponseValidation is the SDK middleware that validates response
// checksums; resumingReader does that job instead.
const sdkResponseValidation = "AWSChecksum:ValidateOutputPayloadChecksum"

const (
	defaultRegion           = "us-east-1"
	defaultConcurrency      = 64
	defaultMaxAttempts      = 10
	defaultCopyStallTimeout = 5 * time.Minute
)

// DefaultStallTimeout is Config.StallTimeout's default.
const DefaultStallTimeout = 5 * time.Second

// StallTimeoutCap is the most an exchange waits for progress, however slow
// the server has been, unless StallTimeout (or, for a server-side copy's
// answer, CopyStallTimeout) is larger.
const StallTimeoutCap = transport.MaxStallWait

// Client is a configured S3 client shared by every bucket of a run. It is
// safe for concurrent use.
type Client struct {
	s3       *s3.Client
	region   string
	endpoint string // "" for AWS's own endpoints
	// identity decides whether two clients can copy between each other
	// server-side: the same endpoint and the same access key.
	identity    string
	maxAttempts int
	backoff     retry.Backoff
	// raw, when set, sends metadata-keeping CopyObject requests, GetObject
	// and small PutObject requests without the SDK's operation stack (see
	// rawcopy.go).
	raw *rawClient
	// checksumWhenRequired turns off the checksums of checksum.go.
	checksumWhenRequired bool
	// reach stops retrying an endpoint that has never answered.
	reach transport.Reachability
	// uploads maps the ID of each multipart upload this client started
	// and has not finished to whether it was started with a checksum, so
	// that completing a copy costs no ListParts. An ID missing here (an
	// upload resumed from an earlier run) is looked up.
	uploads sync.Map
	// payload is what the server is known to do with unsigned payloads
	// over plain HTTP (payload.go).
	payload atomic.Int32
	// listFallbacks counts the ListObjectsV2 answers listDecoder left to
	// the SDK (listxml.go).
	listFallbacks atomic.Int64
	// logger and said: sayOnce's.
	logger *slog.Logger
	said   sync.Map
}

// sayOnce logs msg at debug level the first time this client meets what
// topic names (a server without an operation it can do without).
func (c *Client) sayOnce(topic, msg string, args ...any) {
	if _, dup := c.said.LoadOrStore(topic, true); dup || c.logger == nil {
		return
	}
	c.logger.Debug(msg, args...)
}

// NewClient loads the AWS configuration (environment, shared config and
// credentials files, profile, SSO, IMDS, container credentials) and builds a
// client. It fails with an error wrapping store.ErrInvalidCredentials when no
// credentials can be found, rather than on the first request.
func NewClient(ctx context.Context, cfg Config) (*Client, error) {
	awsCfg, err := LoadAWSConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if awsCfg.Region == "" {
		awsCfg.Region = defaultRegion
	}
	if cfg.Anonymous {
		awsCfg.Credentials = aws.AnonymousCredentials{}
	}

	c := &Client{
		region:               awsCfg.Region,
		maxAttempts:          cfg.MaxAttempts,
		backoff:              cfg.Backoff.retry(),
		checksumWhenRequired: cfg.ChecksumWhenRequired,
		logger:               cfg.Logger,
	}
	if c.maxAttempts <= 0 {
		c.maxAttempts = awsCfg.RetryMaxAttempts
	}
	if c.maxAttempts <= 0 {
		c.maxAttempts = defaultMaxAttempts
	}

	accessKey := ""
	if !cfg.Anonymous {
		if awsCfg.Credentials == nil {
			return nil, credentialsError(errors.New("no credential provider"))
		}
		creds, err := awsCfg.Credentials.Retrieve(ctx)
		if err != nil {
			return nil, credentialsError(err)
		}
		accessKey = creds.AccessKeyID
	}

	c.s3 = s3.NewFromConfig(awsCfg, func(o *s3.Options) {
		if cfg.EndpointURL != "" {
			o.BaseEndpoint = aws.String(cfg.EndpointURL)
		}
		if o.BaseEndpoint != nil {
			c.endpoint = *o.BaseEndpoint
		}
		if cfg.PathStyle != nil {
			o.UsePathStyle = *cfg.PathStyle
		} else {
			o.UsePathStyle = o.BaseEndpoint != nil
		}
		hc := newHTTPClient(cfg, &c.reach)
		if o.BaseEndpoint != nil {
			if r, err := newCustomEndpoint(*o.BaseEndpoint, o.UsePathStyle); err == nil {
				o.EndpointResolverV2 = r
				if !cfg.Anonymous && !cfg.DisableRawRequests {
					c.raw = newRawClient(c, r, awsCfg.Credentials, hc, cfg)
				}
			}
		}
		o.HTTPClient = hc
		o.Retryer = newRetryer(c.maxAttempts, cfg.Backoff, &c.reach)
		o.RetryMaxAttempts = 0 // the retryer above already has it
		o.ClientLogMode = 0    // never log signed requests or bodies
		// Get verifies downloads itself, across resumed requests, and
		// asks for stored checksums only when it reads a whole object
		// (checksum.go); the SDK would otherwise add the header to every
		// ranged GET, and its validation stops at the first response.
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		o.DisableLogOutputChecksumValidationSkipped = true
		obs := &observer{onRequest: cfg.OnRequest, onThrottle: cfg.OnThrottle, onResponse: cfg.OnResponse, logger: cfg.Logger}
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			// Absent from operations without a response checksum.
			_, _ = stack.Deserialize.Remove(sdkResponseValidation)
			if err := c.addUnsignedPayload(stack); err != nil {
				return err
			}
			if cfg.Logger != nil {
				if err := stack.Initialize.Add(targetRecorder{}, middleware.After); err != nil {
					return err
				}
			}
			return stack.Finalize.Insert(obs, "Retry", middleware.After)
		})
	})
	c.identity = c.endpoint + "\x00" + accessKey
	return c, nil
}

func credentialsError(err error) error {
	return &Error{
		Op:       "load credentials",
		URL:      "for s3",
		Sentinel: store.ErrInvalidCredentials,
		Err: fmt.Errorf("set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, choose a profile "+
			"(AWS_PROFILE), or sign in with `aws sso login`: %w", err),
	}
}

// newHTTPClient builds the transport: the SDK's defaults (dial and TLS
// timeouts, keep-alive), an idle pool as large as the run's concurrency,
// request bodies sent through pooled buffers, and stall detection.
func newHTTPClient(cfg Config, reach *transport.Reachability) *http.Client {
	n := cfg.Concurrency
	if n <= 0 {
		n = defaultConcurrency
	}
	tr := awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
		tr.MaxIdleConns = n
		tr.MaxIdleConnsPerHost = n
		transport.PooledCopies(tr)
	}).GetTransport()
	stall := cfg.StallTimeout
	if stall == 0 {
		stall = DefaultStallTimeout
	}
	slow := cfg.CopyStallTimeout
	if slow <= 0 {
		slow = defaultCopyStallTimeout
	}
	return &http.Client{Transport: &transport.ReachTransport{
		Base:  transport.NewStall(tr, stall, slow),
		Reach: reach,
	}}
}

// newRetryer is the SDK's standard retryer with internal/retry deciding what
// is retried and how long to wait, and without the client-side retry quota
// (see the package documentation).
func newRetryer(maxAttempts int, b Backoff, reach *transport.Reachability) aws.Retryer {
	backoff := b.retry()
	return awsretry.NewStandard(func(o *awsretry.StandardOptions) {
		o.MaxAttempts = maxAttempts
		o.RateLimiter = ratelimit.None
		o.Backoff = awsretry.BackoffDelayerFunc(func(attempt int, err error) (time.Duration, error) {
			return backoff.Delay(attempt, retry.Classify(err)), nil
		})
		o.Retryables = []awsretry.IsErrorRetryable{
			awsretry.NoRetryCanceledError{},
			awsretry.IsErrorRetryableFunc(func(err error) aws.Ternary {
				if reach.Unreachable(err) {
					return aws.FalseTernary
				}
				return aws.BoolTernary(retry.Classify(err).Retry())
			}),
		}
		o.Throttles = []awsretry.IsErrorThrottle{
			awsretry.IsErrorThrottleFunc(func(err error) aws.Ternary {
				return aws.BoolTernary(retry.Classify(err) == retry.Throttled)
			}),
		}
	})
}

// SDK returns the underlying SDK client for code that needs raw access
// (benchmarks). It shares this client's transport, retries and hooks.
func (c *Client) SDK() *s3.Client { return c.s3 }

// Region is the region requests are signed for.
func (c *Client) Region() string { return c.region }

// Endpoint is the custom endpoint URL, or "" for AWS's own endpoints.
func (c *Client) Endpoint() string { return c.endpoint }

// MaxAttempts is the number of HTTP attempts per request.
func (c *Client) MaxAttempts() int { return c.maxAttempts }

// Bucket returns a Store for one bucket. It makes no request.
func (c *Client) Bucket(name string) *Store {
	return &Store{c: c, bucket: name}
}

// BucketInfo is one bucket of ListBuckets.
type BucketInfo struct {
	Name    string
	Created time.Time
	// Region is the bucket's region when the server reports it.
	Region string
}

// ListBuckets lists the buckets the credentials own.
func (c *Client) ListBuckets(ctx context.Context) ([]BucketInfo, error) {
	var out []BucketInfo
	p := s3.NewListBucketsPaginator(c.s3, &s3.ListBucketsInput{})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, wrap(err, "list buckets", "s3://")
		}
		for _, b := range page.Buckets {
			out = append(out, BucketInfo{
				Name:    aws.ToString(b.Name),
				Created: aws.ToTime(b.CreationDate),
				Region:  aws.ToString(b.BucketRegion),
			})
		}
	}
	return out, nil
}

// MakeBucket creates a bucket in the client's region. An existing bucket is
// an error wrapping store.ErrExists.
func (c *Client) MakeBucket(ctx context.Context, name string) error {
	in := &s3.CreateBucketInput{Bucket: aws.String(name)}
	// us-east-1 is the one region that rejects its own name as a constraint.
	if c.region != defaultRegion {
		in.CreateBucketConfiguration = &s3types.CreateBucketConfiguration{
			LocationConstraint: s3types.BucketLocationConstraint(c.region),
		}
	}
	_, err := c.s3.CreateBucket(ctx, in)
	return wrap(err, "make bucket", "s3://"+name)
}

// RemoveBucket removes an empty bucket. A missing bucket is an error
// wrapping store.ErrBucketNotFound.
func (c *Client) RemoveBucket(ctx context.Context, name string) error {
	_, err := c.s3.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(name)})
	return wrap(err, "remove bucket", "s3://"+name)
}
