package cli

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
	"github.com/s3bulk/s3bulk/store"
)

// propsObject is an object of the properties tests: its size picks the
// path (one request, or parts above propsThreshold), its tag set whether
// the tags fit in a write's header.
type propsObject struct {
	key  string
	size int
	tags store.Tags
}

// propsThreshold is the --multipart-threshold of the properties tests:
// objects above it move in parts.
const propsThreshold = "5MiB"

// longTags is a tag set within S3's limits whose encoding is over
// store.MaxTagHeader, if not by much: versitygw keeps tags in an extended
// attribute, which ext4 limits to about 4 KiB with the object's others.
func longTags() store.Tags {
	t := store.Tags{}
	for i := range store.MaxTags {
		t["long-"+string(rune('a'+i))] = strings.Repeat("v", 200)
	}
	if t.FitsHeader() {
		panic("longTags fit in a header")
	}
	return t
}

var propsObjects = []propsObject{
	{"small", 1 << 10, store.Tags{"team": "blue", "cost": "42"}},
	{"small-long", 1 << 10, longTags()},
	{"big", 6 << 20, store.Tags{"team": "blue", "cost": "42"}},
	{"big-long", 6 << 20, longTags()},
}

// propsMeta is the metadata every source object of the properties tests
// is written with.
var propsMeta = struct {
	contentType, cacheControl, disposition, language string
	user                                             map[string]string
}{"text/x-props", "max-age=60", "attachment", "fr", map[string]string{"owner": "ann"}}

// seedProps writes propsObjects under prefix with their tags and
// propsMeta.
func seedProps(t *testing.T, c *s3.Client, bucket, prefix string) {
	t.Helper()
	for _, o := range propsObjects {
		_, err := c.PutObject(context.Background(), &s3.PutObjectInput{
			Bucket: aws.String(bucket), Key: aws.String(prefix + o.key),
			Body:               bytes.NewReader(bytes.Repeat([]byte{'p'}, o.size)),
			ContentType:        aws.String(propsMeta.contentType),
			CacheControl:       aws.String(propsMeta.cacheControl),
			ContentDisposition: aws.String(propsMeta.disposition),
			ContentLanguage:    aws.String(propsMeta.language),
			Metadata:           propsMeta.user,
		})
		if err != nil {
			t.Fatalf("put %s: %v", o.key, err)
		}
		if err := putTags(c, bucket, prefix+o.key, o.tags); err != nil {
			t.Fatalf("tag %s: %v", o.key, err)
		}
	}
}

func putTags(c *s3.Client, bucket, key string, tags store.Tags) error {
	set := make([]s3types.Tag, 0, len(tags))
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		set = append(set, s3types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	_, err := c.PutObjectTagging(context.Background(), &s3.PutObjectTaggingInput{
		Bucket: aws.String(bucket), Key: aws.String(key), Tagging: &s3types.Tagging{TagSet: set},
	})
	return err
}

// tagsOf reads an object's tags with a GetObjectTagging of its own.
func tagsOf(t *testing.T, c *s3.Client, bucket, key string) store.Tags {
	t.Helper()
	out, err := c.GetObjectTagging(context.Background(), &s3.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("get tags of s3://%s/%s: %v", bucket, key, err)
	}
	tags := store.Tags{}
	for _, tag := range out.TagSet {
		tags[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
	}
	return tags
}

// propsOption is a way of running the copies of
// TestPropertiesOnEveryPath: its flags and what each object should have.
type propsOption struct {
	name  string
	flags []string
	// tags is the destination's tag set; nil: the source's.
	tags store.Tags
	// keepMeta: the destination has the source's content headers and
	// user metadata; otherwise none of them.
	keepMeta bool
}

var propsOptions = []propsOption{
	{"default", nil, nil, true},
	{"copy-props metadata-directive", []string{"--copy-props", "metadata-directive"}, store.Tags{}, true},
	{"copy-props none", []string{"--copy-props", "none"}, store.Tags{}, false},
	{"tags", []string{"--tags", "k=v", "--tags", "e=a=b"}, store.Tags{"k": "v", "e": "a=b"}, true},
}

// TestPropertiesOnEveryPath copies tagged objects with metadata by every
// path that writes S3 objects from S3 objects (and uploads with --tags),
// with every --copy-props, and checks each property of each destination
// object with a request of its own.
func TestPropertiesOnEveryPath(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	c := srv.Client(t)
	seedProps(t, c, src, "")
	// The same server under another name is another endpoint: the copy
	// streams through the client, as between two providers.
	other := strings.Replace(srv.Endpoint, "127.0.0.1", "localhost", 1)
	if other == srv.Endpoint {
		t.Skipf("no second name for the endpoint %s", srv.Endpoint)
	}
	local := t.TempDir()
	files := map[string]string{}
	for _, o := range propsObjects {
		files[o.key] = strings.Repeat("p", o.size)
	}
	testfs.Write(t, local, files)
	paths := []struct {
		name string
		// run copies every object of propsObjects to dst under prefix.
		run func(t *testing.T, prefix string, flags []string)
		// upload: the source is local, which has no metadata nor tags.
		upload bool
	}{
		{"copy", func(t *testing.T, prefix string, flags []string) {
			mustRun(t, srv, append([]string{"cp", "--recursive", "--multipart-threshold", propsThreshold}, append(flags, "s3://"+src+"/", "s3://"+dst+"/"+prefix)...)...)
		}, false},
		{"stream", func(t *testing.T, prefix string, flags []string) {
			mustRun(t, srv, append([]string{"cp", "--recursive", "--multipart-threshold", propsThreshold, "--source-endpoint-url", other},
				append(flags, "s3://"+src+"/", "s3://"+dst+"/"+prefix)...)...)
		}, false},
		{"mv", func(t *testing.T, prefix string, flags []string) {
			mustRun(t, srv, "cp", "--recursive", "s3://"+src+"/", "s3://"+dst+"/moving/"+prefix)
			mustRun(t, srv, append([]string{"mv", "--recursive", "--multipart-threshold", propsThreshold}, append(flags, "s3://"+dst+"/moving/"+prefix, "s3://"+dst+"/"+prefix)...)...)
		}, false},
		{"upload", func(t *testing.T, prefix string, flags []string) {
			mustRun(t, srv, append([]string{"cp", "--recursive", "--multipart-threshold", propsThreshold}, append(flags, local+"/", "s3://"+dst+"/"+prefix)...)...)
		}, true},
	}
	for _, p := range paths {
		for i, opt := range propsOptions {
			t.Run(p.name+" with "+opt.name, func(t *testing.T) {
				prefix := fmt.Sprintf("%s/%d/", p.name, i)
				p.run(t, prefix, opt.flags)
				for _, o := range propsObjects {
					key := prefix + o.key
					head, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(dst), Key: aws.String(key)})
					if err != nil {
						t.Fatalf("head %s: %v", key, err)
					}
					wantTags := opt.tags
					switch {
					case wantTags == nil && p.upload:
						wantTags = store.Tags{}
					case wantTags == nil:
						wantTags = o.tags
					}
					type cell struct {
						prop      string
						got, want any
					}
					cells := []cell{{"tags", tagsOf(t, c, dst, key), wantTags}}
					if !p.upload {
						var m = propsMeta
						if !opt.keepMeta {
							m.cacheControl, m.disposition, m.language, m.user = "", "", "", nil
						}
						cells = append(cells,
							cell{"cache-control", aws.ToString(head.CacheControl), m.cacheControl},
							cell{"content-disposition", aws.ToString(head.ContentDisposition), m.disposition},
							cell{"content-language", aws.ToString(head.ContentLanguage), m.language},
							cell{"user metadata", map[string]string(head.Metadata), m.user})
						if opt.keepMeta {
							cells = append(cells, cell{"content-type", aws.ToString(head.ContentType), m.contentType})
						}
					}
					for _, c := range cells {
						if d := cmp.Diff(c.want, c.got, cmpopts.EquateEmpty()); d != "" {
							t.Errorf("%s of %s (%d bytes) by %s with %s (-want +got):\n%s", c.prop, o.key, o.size, p.name, opt.name, d)
						}
					}
				}
			})
		}
	}
}

// TestBadTagsAndPropsAreUsageErrors: one line naming the flag, exit 2,
// nothing written.
func TestBadTagsAndPropsAreUsageErrors(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	c := srv.Client(t)
	s3test.PutObject(t, c, src, "k", []byte("kk"))
	lsrc, ldst := t.TempDir(), t.TempDir()
	testfs.Write(t, lsrc, map[string]string{"f.txt": "f"})
	take := func() snapshot {
		return snapshot{bucketContents(t, srv, src, ""), bucketContents(t, srv, dst, ""), testfs.Read(t, lsrc), testfs.Read(t, ldst)}
	}
	before := take()
	eleven := []string{"cp"}
	for i := range store.MaxTags + 1 {
		eleven = append(eleven, "--tags", fmt.Sprintf("t%d=v", i))
	}
	S, D := "s3://"+src, "s3://"+dst
	for _, tt := range []struct {
		name     string
		args     []string
		mentions []string
	}{
		{"a tag without '=' is a usage error", []string{"cp", "--tags", "team", S + "/k", D + "/"}, []string{"--tags", `"team"`, "key=value"}},
		{"a tag with an empty key is a usage error", []string{"cp", "--tags", "=blue", S + "/k", D + "/"}, []string{"--tags", "key=value"}},
		{"more than 10 tags is a usage error", append(eleven, S+"/k", D+"/"), []string{"--tags", "11 tags", "at most 10"}},
		{"a tag S3 refuses is a usage error", []string{"cp", "--tags", "a*=b", S + "/k", D + "/"}, []string{"--tags", `"a*"`}},
		{"a tag given twice is a usage error", []string{"cp", "--tags", "a=1", "--tags", "a=2", S + "/k", D + "/"}, []string{"--tags", `"a"`, "twice"}},
		{"tags on a download are a usage error", []string{"cp", "--tags", "a=b", S + "/k", ldst + "/"}, []string{"--tags", "local"}},
		{"sync checks tags too", []string{"sync", "--tags", "team", lsrc + "/", D + "/"}, []string{"--tags", "key=value"}},
		{"an unknown --copy-props is a usage error", []string{"cp", "--copy-props", "all", S + "/k", D + "/"}, []string{`--copy-props "all"`, "none, metadata-directive, default"}},
		{"an upload from standard input checks tags", []string{"cp", "--tags", "a*=b", "-", D + "/stdin"}, []string{"--tags", `"a*"`}},
		{"an unknown --checksum-algorithm is a usage error", []string{"cp", "--checksum-algorithm", "md5", S + "/k", D + "/"}, []string{`--checksum-algorithm "md5"`, "CRC64NVME"}},
		{"a checksum algorithm on a download is a usage error", []string{"cp", "--checksum-algorithm", "crc32", S + "/k", ldst + "/"}, []string{"--checksum-algorithm", "local"}},
		{"sync checks the checksum algorithm too", []string{"sync", "--checksum-algorithm", "xxhash", lsrc + "/", D + "/"}, []string{"--checksum-algorithm"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, srv, tt.args...)
			if code != ExitUsage {
				t.Errorf("exit %d, want %d", code, ExitUsage)
			}
			lines := errorLines(stderr)
			if len(lines) != 1 {
				t.Fatalf("want one line of error, got %d:\n%s", len(lines), stderr)
			}
			for _, m := range tt.mentions {
				if !strings.Contains(lines[0], m) {
					t.Errorf("error %q does not mention %q", lines[0], m)
				}
			}
			if stdout != "" {
				t.Errorf("stdout reports something done:\n%s", stdout)
			}
			if after := take(); !cmp.Equal(before, after) {
				t.Errorf("buckets or directories changed (-before +after):\n%s", cmp.Diff(before, after))
				before = after
			}
		})
	}
}

// TestADestinationRefusingTagsFailsTheObjectInOneLine: a server that
// refuses object tags (some S3-compatible ones) fails each tagged object
// with one line saying how to copy without them, which does.
func TestADestinationRefusingTagsFailsTheObjectInOneLine(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	seedProps(t, srv.Client(t), src, "")
	refuse := hookServer(t, srv, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		if r.Method != http.MethodGet && (r.URL.Query().Has("tagging") || r.Header.Get("X-Amz-Tagging") != "") {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusNotImplemented)
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NotImplemented</Code><Message>tagging is not implemented</Message></Error>`)
			return
		}
		next.ServeHTTP(w, r)
	})
	for _, key := range []string{"big", "big-long"} {
		t.Run(key+" fails with a hint", func(t *testing.T) {
			_, stderr, code := runCLI(t, srv, "--endpoint-url", refuse, "cp", "--multipart-threshold", propsThreshold,
				"s3://"+src+"/"+key, "s3://"+dst+"/refused/"+key)
			if code != ExitPartial {
				t.Errorf("exit %d, want %d", code, ExitPartial)
			}
			lines := errorLines(stderr)
			if len(lines) != 1 || !strings.Contains(lines[0], "--copy-props metadata-directive") || !strings.Contains(lines[0], "not implemented") {
				t.Errorf("want one line naming the cause and --copy-props metadata-directive, got:\n%s", stderr)
			}
		})
		t.Run(key+" is copied without tags by --copy-props metadata-directive", func(t *testing.T) {
			mustRun(t, withEnv(srv), "--endpoint-url", refuse, "cp", "--multipart-threshold", propsThreshold, "--copy-props", "metadata-directive",
				"s3://"+src+"/"+key, "s3://"+dst+"/kept/"+key)
			if got := tagsOf(t, srv.Client(t), dst, "kept/"+key); len(got) != 0 {
				t.Errorf("tags %v, want none", got)
			}
		})
	}
}

// TestVerifyPropsSaysWhichPropertiesDiffer: after a copy, verify --props
// finds nothing; once a copy's tags or metadata change, it names them
// (and verify without --props, which reads listings alone, cannot).
func TestVerifyPropsSaysWhichPropertiesDiffer(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	c := srv.Client(t)
	seedProps(t, c, src, "")
	S, D := "s3://"+src+"/", "s3://"+dst+"/"
	mustRun(t, srv, "cp", "--recursive", S, D) // one CopyObject each: the same ETags
	if out := mustRun(t, srv, "verify", "--props", S, D); out != "" {
		t.Fatalf("verify --props after a copy found:\n%s", out)
	}
	if err := putTags(c, dst, "small", store.Tags{"team": "red"}); err != nil {
		t.Fatal(err)
	}
	_, err := c.CopyObject(context.Background(), &s3.CopyObjectInput{
		Bucket: aws.String(dst), Key: aws.String("big"), CopySource: aws.String(dst + "/big"),
		MetadataDirective: s3types.MetadataDirectiveReplace, ContentType: aws.String(propsMeta.contentType),
		CacheControl: aws.String("no-store"), ContentDisposition: aws.String(propsMeta.disposition),
		ContentLanguage: aws.String(propsMeta.language), Metadata: map[string]string{"owner": "bob"},
	})
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, srv, "verify", S, D)
	stdout, _, code := runCLI(t, srv, "verify", "--props", S, D)
	if code != ExitPartial {
		t.Errorf("exit %d, want %d", code, ExitPartial)
	}
	want := []string{
		"DIFFERS s3://" + src + "/big s3://" + dst + "/big: cache-control, user metadata differ",
		"DIFFERS s3://" + src + "/small s3://" + dst + "/small: tags differ",
	}
	if d := cmp.Diff(want, strings.Split(strings.TrimSpace(stdout), "\n")); d != "" {
		t.Errorf("verify --props (-want +got):\n%s", d)
	}
}

// TestSyncCompareTagsCopiesATagOnlyChange: a sync copies nothing when
// only a source object's tags changed, unless --compare-tags.
func TestSyncCompareTagsCopiesATagOnlyChange(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	c := srv.Client(t)
	seedProps(t, c, src, "")
	S, D := "s3://"+src+"/", "s3://"+dst+"/"
	mustRun(t, srv, "sync", "--multipart-threshold", propsThreshold, S, D)
	for _, key := range []string{"small", "big"} {
		if err := putTags(c, src, key, store.Tags{"team": "red"}); err != nil {
			t.Fatal(err)
		}
	}
	if out := mustRun(t, srv, "sync", S, D); out != "" {
		t.Fatalf("sync without --compare-tags copied:\n%s", out)
	}
	out := mustRun(t, srv, "sync", "--compare-tags", "--multipart-threshold", propsThreshold, S, D)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || !strings.Contains(out, "/small s3://") || !strings.Contains(out, "/big s3://") {
		t.Errorf("sync --compare-tags copied, want small and big:\n%s", out)
	}
	for _, o := range propsObjects {
		want := o.tags
		if o.key == "small" || o.key == "big" {
			want = store.Tags{"team": "red"}
		}
		if got := tagsOf(t, c, dst, o.key); !got.Equal(want) {
			t.Errorf("tags of %s: %v, want %v", o.key, got, want)
		}
	}
	if out := mustRun(t, srv, "sync", "--compare-tags", S, D); out != "" {
		t.Errorf("a second sync --compare-tags copied:\n%s", out)
	}
}

// TestATagSetOverS3sLimitsIsSaidOncePerRun: a source object whose tag set
// S3 would refuse (more than 10 tags) is copied without its tags by the
// paths that read and write them (a copy in parts, a stream), and the run
// says so in one line, however many such objects it copies. versitygw
// stores such a set (its PutObject does not count the tags of the
// x-amz-tagging header, while PutObjectTagging does), so the source is a
// real server's object, not a fake.
func TestATagSetOverS3sLimitsIsSaidOncePerRun(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	c := srv.Client(t)
	var tagging []string
	for i := range store.MaxTags + 1 {
		tagging = append(tagging, fmt.Sprintf("t%02d=v", i))
	}
	for i := range 3 {
		_, err := c.PutObject(context.Background(), &s3.PutObjectInput{
			Bucket: aws.String(src), Key: aws.String(fmt.Sprintf("many/big-%d", i)),
			Body: bytes.NewReader(make([]byte, 6<<20)), Tagging: aws.String(strings.Join(tagging, "&")),
		})
		if err != nil {
			t.Fatalf("versitygw no longer stores %d tags from a PutObject header: %v", store.MaxTags+1, err)
		}
	}
	if got := tagsOf(t, c, src, "many/big-0"); len(got) <= store.MaxTags {
		t.Fatalf("the source kept %d tags, want more than %d", len(got), store.MaxTags)
	}
	out, stderr, code := runCLI(t, srv, "cp", "--recursive", "--multipart-threshold", propsThreshold, "s3://"+src+"/many/", "s3://"+dst+"/many/")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	lines := errorLines(stderr)
	if len(lines) != 1 || !strings.Contains(lines[0], "tags not carried: the tag set is over S3's limits") || !strings.Contains(lines[0], "11 tags") {
		t.Errorf("want one line saying the tag set is over S3's limits, got:\n%s", stderr)
	}
	for i := range 3 {
		if got := tagsOf(t, c, dst, fmt.Sprintf("many/big-%d", i)); len(got) != 0 {
			t.Errorf("big-%d arrived with tags %v, want none", i, got)
		}
	}
}
