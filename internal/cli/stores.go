package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/limiter"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store/localstore"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// session holds what one command run shares: one S3 client (so one pool of
// connections) and one limiter of requests in flight.
type session struct {
	a      *app
	client *s3store.Client
	// sources are the clients of sources on their own endpoint or profile
	// (--source-endpoint-url, --source-profile), made on first use.
	sourcesMu sync.Mutex
	sources   map[sourceSide]*s3store.Client
	lim       *limiter.Limiter
	// streams bounds part uploads in flight (engine.NewPartStreams).
	streams *limiter.Streams
	// requests counts HTTP attempts by operation for the summary.
	requests *requestCounter
	// skips records what local listings left out (see sync.go).
	skips skipLog
	// followSymlinks makes local listings follow symbolic links (loops
	// are detected and skipped); by default links are skipped.
	followSymlinks bool
}

func (a *app) newSession() *session {
	if a.shared != nil {
		return a.shared // one pool and limiter for every line of a `run` file
	}
	return &session{a: a, lim: engine.NewLimiter(a.g.concurrency, a.g.maxConcurrency),
		streams: engine.NewPartStreams(0, a.ceiling()), requests: newRequestCounter()}
}

// s3 returns the session's S3 client, making it on first use so that purely
// local commands never need AWS configuration.
func (s *session) s3(ctx context.Context) (*s3store.Client, error) {
	if s.client != nil {
		return s.client, nil
	}
	c, err := s.newClient(ctx, sourceSide{})
	if err != nil {
		return nil, err
	}
	s.client = c
	return c, nil
}

// sourceSide is where a source bucket lives when it is not where the
// destination does: another endpoint (provider), or another profile
// (account). The zero value is the run's own endpoint and credentials.
type sourceSide struct {
	endpointURL string
	profile     string
}

// sourceS3 returns the client that reads a source on side: the session's
// client for the zero side, else one client per side, made on first use.
func (s *session) sourceS3(ctx context.Context, side sourceSide) (*s3store.Client, error) {
	if side == (sourceSide{}) {
		return s.s3(ctx)
	}
	s.sourcesMu.Lock()
	defer s.sourcesMu.Unlock()
	if c, ok := s.sources[side]; ok {
		return c, nil
	}
	c, err := s.newClient(ctx, side)
	if err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	if s.sources == nil {
		s.sources = map[sourceSide]*s3store.Client{}
	}
	s.sources[side] = c
	return c, nil
}

// newClient makes an S3 client with the run's settings, except where side
// names its own endpoint or profile. A named profile replaces the run's
// credentials, environment ones included (as --profile does in the AWS
// CLI), and its region replaces --region; --source-region still wins.
func (s *session) newClient(ctx context.Context, side sourceSide) (*s3store.Client, error) {
	cfg := s3store.Config{
		Region:               s.a.g.region,
		Profile:              s.a.g.profile,
		EndpointURL:          s.a.g.endpointURL,
		ChecksumWhenRequired: s.a.g.checksumWhenRequired,
		Concurrency:          s.a.ceiling(),
		OnThrottle:           s.lim.Throttled,
		OnRequest:            s.requests.add,
		Logger:               s.a.logger,
	}
	switch s.a.g.pathStyle {
	case "true":
		cfg.PathStyle = ptr(true)
	case "false":
		cfg.PathStyle = ptr(false)
	}
	if side.profile != "" {
		cfg.Profile, cfg.Region = side.profile, ""
	}
	if side.endpointURL != "" {
		cfg.EndpointURL = side.endpointURL
	}
	return s3store.NewClient(ctx, s.a.env.s3Config(cfg))
}

func ptr[T any](v T) *T { return &v }

// parseLocation parses a command-line argument; errors are usage errors.
func parseLocation(arg string, raw bool) (s3url.Location, error) {
	loc, err := s3url.Options{Raw: raw}.Parse(arg)
	if err != nil {
		return loc, usageError{err}
	}
	return loc, nil
}

// sourceEndpoint opens the store a location reads from. A local location is
// re-rooted at its fixed directory part, so keys are relative to it.
func (s *session) sourceEndpoint(ctx context.Context, loc s3url.Location, recursive bool) (engine.Endpoint, error) {
	return s.sourceEndpointOn(ctx, loc, recursive, sourceSide{})
}

// sourceEndpointOn is sourceEndpoint for a source on its own side.
func (s *session) sourceEndpointOn(ctx context.Context, loc s3url.Location, recursive bool, side sourceSide) (engine.Endpoint, error) {
	if loc.IsS3() {
		c, err := s.sourceS3(ctx, side)
		if err != nil {
			return engine.Endpoint{}, err
		}
		return engine.Endpoint{Store: c.Bucket(loc.Bucket), Loc: loc}, nil
	}
	if loc.HasWildcard() {
		root := loc.Base()
		rel := loc
		rel.Key = loc.Key[len(root):]
		return s.local(root, rel)
	}
	fi, err := os.Stat(filepath.FromSlash(loc.Key))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return engine.Endpoint{}, &engine.NoMatchError{URL: loc.String(), Hint: "no such file or directory"}
		}
		return engine.Endpoint{}, fmt.Errorf("read %s: %w", loc, unwrapPathError(err))
	}
	if fi.IsDir() {
		if !recursive {
			return engine.Endpoint{}, usagef("%s is a directory: use --recursive or a wildcard", loc)
		}
		rel := loc
		rel.Key = ""
		return s.local(loc.Key, rel.AsDir())
	}
	dir, file := path.Split(loc.Key)
	rel := loc
	rel.Key = file
	return s.local(dir, rel)
}

// destEndpoint opens the store a location writes to. many says whether the
// source may yield more than one object.
func (s *session) destEndpoint(ctx context.Context, loc s3url.Location, many bool) (engine.Endpoint, error) {
	if loc.IsS3() {
		c, err := s.s3(ctx)
		if err != nil {
			return engine.Endpoint{}, err
		}
		if many {
			loc = loc.AsDir()
		}
		return engine.Endpoint{Store: c.Bucket(loc.Bucket), Loc: loc}, nil
	}
	p := filepath.FromSlash(loc.Key)
	fi, err := os.Stat(p)
	isDir := err == nil && fi.IsDir()
	if err == nil && !fi.IsDir() && (many || loc.IsDirLike()) {
		return engine.Endpoint{}, usagef("destination %s is a file: a directory is needed", loc)
	}
	if isDir || many || loc.IsDirLike() {
		rel := loc
		rel.Key = ""
		if !s.a.g.dryRun {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return engine.Endpoint{}, fmt.Errorf("create directory %s: %w", loc, unwrapPathError(err))
			}
		}
		return s.local(loc.Key, rel.AsDir())
	}
	dir, file := path.Split(loc.Key)
	rel := loc
	rel.Key = file
	return s.local(dir, rel)
}

func (s *session) local(root string, rel s3url.Location) (engine.Endpoint, error) {
	if root == "" {
		root = "."
	}
	root = strings.TrimSuffix(filepath.FromSlash(root), string(filepath.Separator))
	if root == "" {
		root = string(filepath.Separator)
	}
	st, err := localstore.New(root, localstore.Options{
		FollowSymlinks: s.followSymlinks,
		OnSkip: func(p, reason string) {
			s.a.logger.Warn("skipped", "path", p, "reason", reason)
			s.skips.add(p)
		},
	})
	if err != nil {
		return engine.Endpoint{}, err
	}
	if rel.Key == "/" {
		rel.Key = ""
	}
	return engine.Endpoint{Store: st, Loc: rel}, nil
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
