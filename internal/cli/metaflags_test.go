package cli

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
)

type headed struct {
	ContentType, CacheControl, StorageClass string
	User                                    map[string]string
}

func headOf(t *testing.T, c *s3.Client, bucket, key string) headed {
	t.Helper()
	out, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("head s3://%s/%s: %v", bucket, key, err)
	}
	h := headed{ContentType: aws.ToString(out.ContentType), CacheControl: aws.ToString(out.CacheControl), StorageClass: string(out.StorageClass), User: out.Metadata}
	if len(h.User) == 0 {
		h.User = nil
	}
	if h.StorageClass == "STANDARD" {
		h.StorageClass = "" // the server's way to say the default
	}
	return h
}

func TestMetadataFlags(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t, s3test.Metadata)
	c := srv.Client(t)
	local := t.TempDir()
	testfs.Write(t, local, map[string]string{"page.html": "<p>", "data.bin": "x"})
	big := bytes.Repeat([]byte("z"), 6<<20)
	testfs.Write(t, local, map[string]string{"big.json": string(big)})
	parts := []string{"--part-size", "5MiB", "--multipart-threshold", "5MiB"}

	mustRun(t, srv, append([]string{"cp", "--recursive", "--cache-control", "max-age=60", "--metadata", "Team=data"}, append(parts, local+"/", "s3://"+bucket+"/up/")...)...)
	for key, want := range map[string]headed{
		"up/page.html": {ContentType: "text/html; charset=utf-8", CacheControl: "max-age=60", User: map[string]string{"team": "data"}},
		"up/big.json":  {ContentType: "application/json", CacheControl: "max-age=60", User: map[string]string{"team": "data"}},
	} {
		t.Run("an upload carries the flags: "+key, func(t *testing.T) {
			if diff := cmp.Diff(want, headOf(t, c, bucket, key)); diff != "" {
				t.Errorf("metadata (-want +got):\n%s", diff)
			}
		})
	}

	tests := []struct {
		name  string
		flags []string
		want  headed
	}{
		{"a copy keeps the source's metadata and adds to it", []string{"--content-type", "text/plain", "--metadata", "stage=2"},
			headed{ContentType: "text/plain", CacheControl: "max-age=60", User: map[string]string{"team": "data", "stage": "2"}}},
		{"REPLACE keeps only the flags", []string{"--metadata-directive", "REPLACE", "--metadata", "stage=3"},
			headed{ContentType: "application/json", User: map[string]string{"stage": "3"}}},
	}
	for _, tt := range tests {
		for _, key := range []string{"page.html", "big.json"} {
			t.Run(tt.name+": "+key, func(t *testing.T) {
				dst := "copy/" + tt.name + "/" + key
				mustRun(t, srv, append(append(append([]string{"cp"}, tt.flags...), parts...), "s3://"+bucket+"/up/"+key, "s3://"+bucket+"/"+dst)...)
				want := tt.want
				if key == "page.html" && want.ContentType == "application/json" {
					want.ContentType = "text/html; charset=utf-8"
				}
				if diff := cmp.Diff(want, headOf(t, c, bucket, dst)); diff != "" {
					t.Errorf("metadata (-want +got):\n%s", diff)
				}
			})
		}
	}
	t.Run("a storage class goes with every write", func(t *testing.T) {
		srv.Require(t, s3test.PartCopy) // counts the writes of a multipart copy
		// The server keeps every object in STANDARD: the requests tell.
		var mu sync.Mutex
		sent := map[string]int{}
		proxy, err := faultproxy.New(srv.Endpoint, faultproxy.Config{Match: func(r *http.Request) bool {
			if r.Header.Get("X-Amz-Storage-Class") == "STANDARD_IA" {
				kind := "put"
				switch {
				case strings.Contains(r.URL.RawQuery, "uploads"):
					kind = "create multipart"
				case r.Header.Get("X-Amz-Copy-Source") != "":
					kind = "copy"
				}
				mu.Lock()
				sent[kind]++
				mu.Unlock()
			}
			return false
		}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { proxy.Close() })
		ep := []string{"--endpoint-url", proxy.URL()}
		// CRC64NVME, which the copy below leaves to the server: parts
		// copied into an upload of the source's own algorithm get a
		// wrong checksum from versitygw, and the copy is done again
		// without (TestChecksumsOnEveryPath).
		mustRun(t, srv, append(append(append(ep, "cp", "--recursive", "--storage-class", "standard_ia", "--checksum-algorithm", "CRC64NVME", "--include", "*.html", "--include", "big.json"), parts...), local+"/", "s3://"+bucket+"/ia/")...)
		mustRun(t, srv, append(append(append(ep, "cp", "--recursive", "--storage-class", "STANDARD_IA"), parts...), "s3://"+bucket+"/ia/", "s3://"+bucket+"/ia-copy/")...)
		want := map[string]int{"put": 1, "create multipart": 2, "copy": 1}
		if diff := cmp.Diff(want, sent); diff != "" {
			t.Errorf("requests with the storage class (-want +got):\n%s", diff)
		}
	})
	t.Run("bad values are usage errors", func(t *testing.T) {
		for _, flags := range [][]string{{"--storage-class", "COLD"}, {"--metadata-directive", "MERGE"}, {"--metadata", "novalue"}} {
			_, errOut, code := runCLI(t, srv, append(append([]string{"cp"}, flags...), local+"/data.bin", "s3://"+bucket+"/x")...)
			if code != ExitUsage || !strings.Contains(errOut, strings.TrimPrefix(flags[0], "--")) {
				t.Errorf("%v: exit %d, stderr %q", flags, code, errOut)
			}
		}
	})
}
