package compattest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/s3test"
)

// The peers' results in testdata/peers.json were recorded on the embedded
// gateway. Another S3-compatible server may answer a request otherwise,
// and a peer that relies on the answer then does something else there,
// whatever s3bulk does. Each such answer is a question put to the server
// once per run (on the embedded gateway too, whose answers are those the
// results were recorded with); a case says, for each question whose
// answer changes a peer's outcome, what the peer does where the server
// answers otherwise, and which verdict holds there (elsewhere). So the
// peers are still run and compared on every server, and a peer that did
// not change where a case says it would fails the case.

// question is something a server is asked about how it answers.
type question struct {
	// gateway says what the embedded gateway does, the answer the peers
	// were recorded with.
	gateway string
	// ask puts the question in bucket: nil when the server answers as
	// the gateway does, else what it answered.
	ask func(ctx context.Context, c *s3.Client, bucket string) error
}

var (
	// plusInCopySource: s5cmd escapes a copy source with url.QueryEscape,
	// which makes a space '+'. S3 and the gateway read it back as a space;
	// SeaweedFS and s3rver as a '+', a key that is not there.
	plusInCopySource = &question{
		gateway: "reads '+' in x-amz-copy-source as a space",
		ask: func(ctx context.Context, c *s3.Client, bucket string) error {
			if err := put(ctx, c, bucket, "a b", "x"); err != nil {
				return err
			}
			_, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("c"), CopySource: aws.String(bucket + "/a+b")})
			if err != nil {
				return fmt.Errorf("a copy from %q spelled a+b: %s", "a b", short(err))
			}
			return nil
		},
	}
	// prefixDelete: `aws s3 rm s3://b/dir/` sends DeleteObject of "dir/",
	// a key that is not there. S3 answers that with success, as it does
	// any missing key (and so do SeaweedFS, gofakes3 and s3rver); the
	// gateway, whose objects are files, refuses it when keys lie under
	// dir/, and aws fails there.
	prefixDelete = &question{
		gateway: "refuses a DeleteObject of dir/ when keys lie under it",
		ask: func(ctx context.Context, c *s3.Client, bucket string) error {
			if err := put(ctx, c, bucket, "dir/k", "x"); err != nil {
				return err
			}
			_, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("dir/")})
			var apiErr smithy.APIError
			switch {
			case err == nil:
				return errors.New("a DeleteObject of dir/ succeeded")
			case !errors.As(err, &apiErr):
				return err
			}
			return nil
		},
	}
	// emptyRange: s5cmd downloads with ranged GETs, an empty object too,
	// and takes 416 InvalidRange (the gateway's answer, and S3's) for an
	// empty object. s3rver answers with a length it does not send.
	emptyRange = &question{
		gateway: "answers a ranged GET of an empty object with 416 InvalidRange",
		ask: func(ctx context.Context, c *s3.Client, bucket string) error {
			if err := put(ctx, c, bucket, "zero", ""); err != nil {
				return err
			}
			out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("zero"), Range: aws.String("bytes=0-5242879")})
			var apiErr smithy.APIError
			switch {
			case errors.As(err, &apiErr) && apiErr.ErrorCode() == "InvalidRange":
				return nil
			case err != nil:
				return fmt.Errorf("a ranged GET of an empty object: %s", short(err))
			}
			defer out.Body.Close()
			b, err := io.ReadAll(out.Body)
			if err != nil {
				return fmt.Errorf("a ranged GET of an empty object answers %d bytes of %d: %v", len(b), aws.ToInt64(out.ContentLength), err)
			}
			return fmt.Errorf("a ranged GET of an empty object answers %d bytes", len(b))
		},
	}
	// markersAsPrefixes: a key that ends in the delimiter one level down
	// ("dir/none/" in a listing of dir/) is a prefix of itself, and S3
	// lists it as one; gofakes3 lists it as an object, which each tool
	// prints its own way.
	markersAsPrefixes = &question{
		gateway: "lists a key ending in '/' below a delimited listing's prefix as a prefix",
		ask: func(ctx context.Context, c *s3.Client, bucket string) error {
			for _, k := range []string{"m/", "m/x/"} {
				if err := put(ctx, c, bucket, k, ""); err != nil {
					return err
				}
			}
			out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String("m/"), Delimiter: aws.String("/")})
			if err != nil {
				return err
			}
			var keys, prefixes []string
			for _, o := range out.Contents {
				keys = append(keys, aws.ToString(o.Key))
			}
			for _, p := range out.CommonPrefixes {
				prefixes = append(prefixes, aws.ToString(p.Prefix))
			}
			if !slices.Equal(keys, []string{"m/"}) || !slices.Equal(prefixes, []string{"m/x/"}) {
				return fmt.Errorf("a listing of m/ with m/ and m/x/ gives keys %q, prefixes %q", keys, prefixes)
			}
			return nil
		},
	}
)

// questions are every question a case may name, in the order logged.
var questions = []*question{plusInCopySource, prefixDelete, emptyRange, markersAsPrefixes}

// answers holds what this run's server answered otherwise than the
// gateway, by question.
type answers map[*question]error

// askAll puts every question to srv, each in a bucket of its own.
func askAll(t *testing.T, srv *s3test.Server) answers {
	c := srv.Client(t)
	got := answers{}
	for _, q := range questions {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := q.ask(ctx, c, srv.NewBucket(t))
		cancel()
		if err != nil {
			t.Logf("the server does not do as the gateway the peers were recorded on, which %s: %v", q.gateway, err)
			got[q] = err
		}
	}
	return got
}

// elsewhere is what a case expects on a server that answers a question
// otherwise than the gateway.
type elsewhere struct {
	unless *question
	// peers is how each peer's outcome there differs from the recorded
	// one.
	peers map[string]func(*outcome)
	// verdict holds there instead of the case's; want with it, when it is
	// deliberate.
	verdict verdict
	want    *outcome
	why     string
}

// expectation is what a case expects on this run's server: the verdict
// and, by peer, the outcome of each peer as recorded or as it differs here.
type expectation struct {
	verdict verdict
	want    *outcome
	peers   map[string]outcome
	// why says which of the case's elsewhere apply, for the log.
	why []string
}

// expect is what c expects on a server that answered as a did, given the
// peers' recorded results.
func expect(c tcase, rec record, a answers) expectation {
	e := expectation{verdict: c.verdict, want: c.want, peers: map[string]outcome{}}
	for name, o := range rec[c.name] {
		e.peers[name] = o
	}
	for _, w := range c.elsewhere {
		err, ok := a[w.unless]
		if !ok {
			continue
		}
		for name, change := range w.peers {
			o, ok := e.peers[name]
			if !ok {
				continue // no recorded result: the case says so elsewhere
			}
			o = cloneOutcome(o)
			change(&o)
			e.peers[name] = o
		}
		e.verdict, e.want = w.verdict, w.want
		e.why = append(e.why, fmt.Sprintf("the server does not do as the gateway, which %s (%v): %s", w.unless.gateway, err, w.why))
	}
	return e
}

func cloneOutcome(o outcome) outcome {
	clone := func(m map[string]string) map[string]string {
		if m == nil {
			return nil
		}
		c := make(map[string]string, len(m))
		for k, v := range m {
			c[k] = v
		}
		return c
	}
	return outcome{Exit: o.Exit, Src: clone(o.Src), Dst: clone(o.Dst), Local: clone(o.Local), Ls: slices.Clone(o.Ls)}
}

// Changes of a peer's outcome that the cases name.

// without fails the run, and leaves out of the destination bucket and the
// local directory the keys and paths named.
func without(names ...string) func(*outcome) {
	return func(o *outcome) {
		o.Exit = 1
		for _, n := range names {
			delete(o.Dst, n)
			delete(o.Local, n)
		}
		if len(o.Dst) == 0 {
			o.Dst = nil
		}
		if len(o.Local) == 0 {
			o.Local = nil
		}
	}
}

// succeeds makes the peer's run succeed, having changed nothing else.
func succeeds(o *outcome) { o.Exit = 0 }

// lists sets the lines the peer's ls printed.
func lists(lines ...string) func(*outcome) {
	return func(o *outcome) { o.Ls = lines }
}

func put(ctx context.Context, c *s3.Client, bucket, key, body string) error {
	_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key),
		Body: bytes.NewReader([]byte(body)), ContentLength: aws.Int64(int64(len(body)))})
	return err
}

// short says what a server answered in a few words.
func short(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// TestExpectOnAnotherServer holds expect to what servers_test.go promises:
// a case's elsewhere applies only where the server answered its question
// otherwise, changes only the peers it names, from their recorded results,
// and brings its verdict.
func TestExpectOnAnotherServer(t *testing.T) {
	recorded := outcome{Exit: 0, Src: map[string]string{"k": "src:k"}, Dst: map[string]string{"p/a b": "src:a b", "p/c": "src:c"}}
	rec := record{"c": {"aws": recorded, "s5cmd": recorded}}
	c := tcase{name: "c", verdict: asBoth, elsewhere: []elsewhere{plusForSpace("p/a b")}}
	s5cmdThere := outcome{Exit: 1, Src: map[string]string{"k": "src:k"}, Dst: map[string]string{"p/c": "src:c"}}
	markers := tcase{name: "c", verdict: asAWS, elsewhere: []elsewhere{{unless: markersAsPrefixes, verdict: deliberate,
		want: &outcome{Ls: []string{"mine"}}, peers: map[string]func(*outcome){"aws": lists("theirs")}}}}
	awsListing := cloneOutcome(recorded)
	awsListing.Ls = []string{"theirs"}
	for _, tt := range []struct {
		name    string
		c       tcase
		a       answers
		verdict verdict
		want    *outcome
		peers   map[string]outcome
	}{
		{"a server that answers as the gateway keeps the recorded results and the verdict", c, answers{},
			asBoth, nil, map[string]outcome{"aws": recorded, "s5cmd": recorded}},
		{"another question answered otherwise changes nothing", c, answers{prefixDelete: errors.New("204")},
			asBoth, nil, map[string]outcome{"aws": recorded, "s5cmd": recorded}},
		{"the case's question answered otherwise changes the peer it names and the verdict", c, answers{plusInCopySource: errors.New("NoSuchKey")},
			asAWS, nil, map[string]outcome{"aws": recorded, "s5cmd": s5cmdThere}},
		{"a deliberate difference there says what s3bulk does", markers, answers{markersAsPrefixes: errors.New("as objects")},
			deliberate, &outcome{Ls: []string{"mine"}}, map[string]outcome{"aws": awsListing, "s5cmd": recorded}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := expect(tt.c, rec, tt.a)
			if e.verdict != tt.verdict {
				t.Errorf("verdict %q, want %q", e.verdict, tt.verdict)
			}
			if diff := cmp.Diff(tt.want, e.want); diff != "" {
				t.Errorf("want (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.peers, e.peers); diff != "" {
				t.Errorf("peers (-want +got):\n%s", diff)
			}
			if (len(e.why) > 0) != (tt.verdict != tt.c.verdict) {
				t.Errorf("why %q for a verdict %q of the case's %q", e.why, e.verdict, tt.c.verdict)
			}
		})
	}
	if got := rec["c"]["s5cmd"]; !cmp.Equal(got, recorded) {
		t.Errorf("expect changed the recorded result itself: %+v", got)
	}
}
