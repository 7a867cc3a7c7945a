package transfer

import (
	"context"
	"fmt"
	"reflect"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/engine/journal"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// Endpoints opens the ends of copies from their locations: an S3 location
// is a bucket of Client's (SourceClient's, for a source on another
// endpoint or account) with the store options given; a local one is a
// directory store rooted at the location's fixed part
// (engine.LocalSource, engine.LocalDestination), so keys are relative to
// it.
type Endpoints struct {
	// Client returns the S3 client of the run's endpoint; it is called
	// only for an S3 location, so a local copy needs no AWS configuration.
	Client func(ctx context.Context) (*s3store.Client, error)
	// SourceClient, when set, returns the client that reads S3 sources.
	SourceClient func(ctx context.Context) (*s3store.Client, error)
	// Local are the local stores' options; Recursive is set by each call.
	Local engine.LocalOptions
}

// OptionsError is store options an S3 store refuses (an unknown
// encryption or ACL, a bad Object Lock).
type OptionsError struct{ Err error }

func (e *OptionsError) Error() string { return e.Err.Error() }
func (e *OptionsError) Unwrap() error { return e.Err }

// Source opens the location a copy reads from; recursive lists below it.
// A local file asked for without recursive, and a directory with it,
// are an *engine.LocationError.
func (e Endpoints) Source(ctx context.Context, loc s3url.Location, recursive bool, o s3store.Options) (engine.Endpoint, error) {
	if !loc.IsS3() {
		lo := e.Local
		lo.Recursive = recursive
		return engine.LocalSource(loc, lo)
	}
	client := e.SourceClient
	if client == nil {
		client = e.Client
	}
	return e.bucket(ctx, client, loc, o)
}

// Dest opens the location a copy writes to; many says the source may
// yield more than one object, which makes an S3 location a prefix. A local
// file where a directory is needed is an *engine.LocationError.
func (e Endpoints) Dest(ctx context.Context, loc s3url.Location, many bool, o s3store.Options) (engine.Endpoint, error) {
	if !loc.IsS3() {
		lo := e.Local
		lo.Recursive = many
		return engine.LocalDestination(loc, lo)
	}
	if many {
		loc = loc.AsDir()
	}
	return e.bucket(ctx, e.Client, loc, o)
}

func (e Endpoints) bucket(ctx context.Context, client func(context.Context) (*s3store.Client, error), loc s3url.Location, o s3store.Options) (engine.Endpoint, error) {
	c, err := client(ctx)
	if err != nil {
		return engine.Endpoint{}, err
	}
	st := c.Bucket(loc.Bucket)
	if !reflect.ValueOf(o).IsZero() { // without options, the client's bucket as it is
		withOpts, err := st.WithOptions(o)
		if err != nil {
			return engine.Endpoint{Store: st, Loc: loc}, &OptionsError{err}
		}
		st = withOpts
	}
	return engine.Endpoint{Store: st, Loc: loc}, nil
}

// JournalID is what names a copy for its journal: a journal written for
// another ID is another job's (journal.ErrOtherJob), so a rerun resumes
// only the same copy.
type JournalID struct {
	// Verb is "cp" or "mv".
	Verb     string
	Src, Dst s3url.Location
	// Recursive and Raw are the copy's; Selection and From fingerprint
	// its filters and shard, and its list of objects.
	Recursive, Raw  bool
	Selection, From string
	// Versions: a copy of one version (VersionID) or of all.
	Versions    bool
	VersionID   string
	AllVersions bool
	// SourceEndpoint and SourceProfile name a source elsewhere.
	SourceEndpoint, SourceProfile string
	// Endpoint, Region and Profile are the run's.
	Endpoint, Region, Profile string
}

// Fingerprint is the ID as journal.Open takes it.
func (id JournalID) Fingerprint() string {
	fields := []string{id.Verb, id.Src.String(), id.Dst.String(), fmt.Sprint(id.Recursive, id.Raw) + id.Selection + id.From}
	if id.Versions {
		// A copy of versions is another job than a copy of the objects.
		fields = append(fields, "versions", id.VersionID, fmt.Sprint(id.AllVersions))
	}
	if id.SourceEndpoint != "" || id.SourceProfile != "" {
		// Another source is another job.
		fields = append(fields, "source", id.SourceEndpoint, id.SourceProfile)
	}
	return journal.Fingerprint(append(fields, id.Endpoint, id.Region, id.Profile)...)
}
