package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/batchops"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store/s3store"
)

func TestSelectPrices(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "prices.json")
	if err := os.WriteFile(file, []byte(`{"us-west-2": {"put_copy_post_list_per_1000": 0.006}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`[1]`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                string
		file, named, region string
		want                string // the region of the prices picked
		wantOK              bool
		wantErr             string
	}{
		{name: "the run's region", region: "us-east-1", want: "us-east-1", wantOK: true},
		{name: "a region without prices falls back to the report's", region: "eu-west-3", want: DefaultPriceRegion},
		{name: "the named region wins", named: "us-east-1", region: "ap-northeast-1", want: "us-east-1", wantOK: true},
		{name: "a file adds regions", file: file, named: "us-west-2", want: "us-west-2", wantOK: true},
		{name: "a named region without prices is refused", named: "eu-west-3", wantErr: "--price-region eu-west-3: no prices for it (give them with --prices)"},
		{name: "a missing file is named without repeating its path", file: filepath.Join(dir, "none.json"), wantErr: "--prices: no such file or directory"},
		{name: "a file that is not prices is refused", file: bad, wantErr: "prices"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok, err := SelectPrices(tt.file, tt.named, tt.region)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("SelectPrices: %v, want an error saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || p.Region != tt.want || ok != tt.wantOK {
				t.Errorf("SelectPrices: %s %t %v; want %s %t", p.Region, ok, err, tt.want, tt.wantOK)
			}
		})
	}
}

func TestBatchMethodSaysWhenItCannotRun(t *testing.T) {
	t.Parallel()
	noRunner := func(context.Context) (*batchops.Runner, error) { return nil, errors.New("runner made") }
	tests := []struct {
		name     string
		endpoint string
		control  bool
		src      string
		notRun   string // "" when the method goes on to make its runner
	}{
		{name: "an endpoint that is not AWS has no Batch Operations", endpoint: "http://127.0.0.1:9000", src: "s3://src/", notRun: "exists only on AWS, not on http://127.0.0.1:9000"},
		{name: "a control plane stands in for AWS's", endpoint: "http://127.0.0.1:9000", control: true, src: "s3://src/"},
		{name: "a job runs from a bucket's root", src: "s3://src/seed/", notRun: "from a bucket's root (--source s3://src/)"},
		{name: "AWS at a bucket's root runs", src: "s3://src/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := BatchMethod(Conn{Endpoint: tt.endpoint}, "arn", tt.control, noRunner)(context.Background(), tt.src, "s3://dst/copy/")
			if tt.notRun == "" {
				if err == nil || err.Error() != "runner made" {
					t.Errorf("BatchFunc: %v, want it to go on to make its runner", err)
				}
				return
			}
			if !errors.Is(err, ErrNotRun) || !strings.Contains(err.Error(), tt.notRun) {
				t.Errorf("BatchFunc: %v, want ErrNotRun saying %q", err, tt.notRun)
			}
		})
	}
}

func TestEngineMethodCopiesWithANewEngineAndCountsItsRequests(t *testing.T) {
	srv, _, source, dest := seeded(t)
	cfg := s3store.Config{EndpointURL: srv.Endpoint, Region: srv.Region, AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, ChecksumWhenRequired: true}
	engines := 0
	run := EngineMethod(cfg, func() *engine.Engine { engines++; return engine.New(engine.Config{Concurrency: 4}) })
	for range 2 {
		objects, bytes, requests, err := run(t.Context(), source.String(), dest.String())
		if err != nil {
			t.Fatal(err)
		}
		if objects != int64(smallLayout.Objects) || bytes != smallLayout.Bytes() {
			t.Errorf("copied %d objects, %d bytes; want %d, %d", objects, bytes, smallLayout.Objects, smallLayout.Bytes())
		}
		if requests["CopyObject"] != int64(smallLayout.Objects) || requests["ListObjectsV2"] == 0 {
			t.Errorf("requests %v, want a CopyObject per object and a listing", requests)
		}
	}
	if engines != 2 {
		t.Errorf("%d engines for 2 runs, want one each", engines)
	}
	got := s3test.ListKeys(t, srv.Client(t), dest.Bucket, dest.Prefix)
	if len(got) != smallLayout.Objects {
		t.Errorf("destination holds %d objects, want %d", len(got), smallLayout.Objects)
	}
}
