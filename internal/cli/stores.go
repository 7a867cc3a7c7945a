package cli

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store/localstore"
	"github.com/s3bulk/s3bulk/store/s3store"
	"github.com/s3bulk/s3bulk/transfer"
)

// session holds what one command run shares: one S3 client (so one pool of
// connections) and one engine (its budgets of requests, part uploads and
// buffered bytes).
type session struct {
	a      *app
	client *s3store.Client
	// sources are the clients of sources on their own endpoint or profile
	// (--source-endpoint-url, --source-profile), made on first use.
	sourcesMu sync.Mutex
	sources   map[sourceSide]*s3store.Client
	eng       *engine.Engine
	// requests counts HTTP attempts by operation for the summary.
	requests *s3store.RequestCounter
	// followSymlinks makes local listings follow symbolic links (loops
	// are detected and skipped); by default links are skipped.
	followSymlinks bool
}

func (a *app) newSession() *session {
	if a.shared != nil {
		return a.shared // one pool and limiter for every line of a `run` file
	}
	eng := engine.New(engine.Config{Concurrency: a.g.concurrency, MaxConcurrency: a.g.maxConcurrency, Logger: a.logger})
	return &session{a: a, eng: eng, requests: s3store.NewRequestCounter()}
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
	cfg := s.a.flagConfig()
	cfg.Concurrency = s.eng.MaxConcurrency()
	cfg.OnThrottle = s.eng.Throttled
	cfg.OnRequest = s.requests.Count
	if m := s.a.metrics; m != nil {
		cfg.OnResponse = m.Request
	}
	cfg.Logger = s.a.logger
	if side.profile != "" {
		cfg.Profile, cfg.Region = side.profile, ""
	}
	if side.endpointURL != "" {
		cfg.EndpointURL = side.endpointURL
	}
	return s3store.NewClient(ctx, s.a.env.s3Config(cfg))
}

// storeConfig is the store configuration of the global flags and the
// environment.
func (a *app) storeConfig() s3store.Config { return a.env.s3Config(a.flagConfig()) }

// flagConfig is the store configuration the global flags set; the
// environment fills in the rest (environ.s3Config) after a side's own
// profile or endpoint, if any, replaced them.
func (a *app) flagConfig() s3store.Config {
	cfg := s3store.Config{
		Region:               a.g.region,
		Profile:              a.g.profile,
		EndpointURL:          a.g.endpointURL,
		ChecksumWhenRequired: a.g.checksumWhenRequired,
		StallTimeout:         a.g.stallTimeout,
	}
	if cfg.StallTimeout == 0 {
		cfg.StallTimeout = -1 // the flag's "never"; the store's 0 is its default
	}
	switch a.g.pathStyle {
	case "true":
		cfg.PathStyle = ptr(true)
	case "false":
		cfg.PathStyle = ptr(false)
	}
	return cfg
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

// parsePair parses the SRC and DST arguments of a verb; errors are usage
// errors.
func parsePair(srcArg, dstArg string, raw bool) (src, dst s3url.Location, err error) {
	if src, err = parseLocation(srcArg, raw); err != nil {
		return src, dst, err
	}
	dst, err = parseLocation(dstArg, raw)
	return src, dst, err
}

// endpoints opens the session's endpoints (transfer.Endpoints): S3 ones
// on its client, a source on side's; local ones with its local options.
func (s *session) endpoints(side sourceSide) transfer.Endpoints {
	return transfer.Endpoints{
		Client:       s.s3,
		SourceClient: func(ctx context.Context) (*s3store.Client, error) { return s.sourceS3(ctx, side) },
		Local:        s.localOptions(false),
	}
}

// sourceEndpoint opens the store a location reads from. A local location is
// re-rooted at its fixed directory part, so keys are relative to it.
func (s *session) sourceEndpoint(ctx context.Context, loc s3url.Location, recursive bool) (engine.Endpoint, error) {
	return s.openSource(ctx, loc, recursive, sourceSide{}, s3store.Options{})
}

// openSource opens a source on side with the source store's options.
func (s *session) openSource(ctx context.Context, loc s3url.Location, recursive bool, side sourceSide, o s3store.Options) (engine.Endpoint, error) {
	ep, err := s.endpoints(side).Source(ctx, loc, recursive, o)
	return ep, endpointError(err, "%s is a directory: use --recursive or a wildcard")
}

// openDest opens the store a location writes to, with the destination
// store's options. many says whether the source may yield more than one
// object.
func (s *session) openDest(ctx context.Context, loc s3url.Location, many bool, o s3store.Options) (engine.Endpoint, error) {
	ep, err := s.endpoints(sourceSide{}).Dest(ctx, loc, many, o)
	return ep, endpointError(err, "destination %s is a file: a directory is needed")
}

// endpointError makes the errors of opening an endpoint that the user
// fixes usage errors: a location of the wrong kind (said with format,
// which takes its URL) and store options refused.
func endpointError(err error, format string) error {
	var le *engine.LocationError
	var oe *transfer.OptionsError
	switch {
	case errors.As(err, &le):
		return usagef(format, le.URL)
	case errors.As(err, &oe):
		return usageError{oe.Err}
	}
	return err
}

// linkSession is a new session whose local listings follow symbolic links
// when followSymlinks, which a run file's shared session cannot.
func (a *app) linkSession(followSymlinks bool) (*session, error) {
	s := a.newSession()
	if followSymlinks {
		if a.shared != nil {
			return nil, usagef("--follow-symlinks: not available inside run")
		}
		s.followSymlinks = true
	}
	return s, nil
}

// localOptions are those of the session's local stores: links followed or
// not, skips logged.
func (s *session) localOptions(recursive bool) engine.LocalOptions {
	return engine.LocalOptions{Recursive: recursive, DryRun: s.a.g.dryRun, Store: localstore.Options{
		FollowSymlinks: s.followSymlinks,
		OnSkip: func(p, reason string) {
			s.a.logger.Warn("skipped", "path", p, "reason", reason)
		},
	}}
}

// localDir opens the local directory root as a store, with the session's
// local options.
func (s *session) localDir(root string) (*localstore.Store, error) {
	return localstore.New(root, s.localOptions(false).Store)
}
