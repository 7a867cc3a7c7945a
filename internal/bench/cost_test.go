package bench

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestCostModelReproducesTheReport(t *testing.T) {
	p := DefaultPrices()["ap-northeast-1"]
	tests := []struct {
		name      string
		got, want float64
		reported  float64 // the report's rounded figure
	}{
		{"5,000 copies by request cost about $0.024", p.CopyCost(5000), 0.0235, 0.024},
		{"100,000 copies by request cost about $0.47", p.CopyCost(100_000), 0.47, 0.47},
		{"Batch Operations for 5,000 objects cost about $0.28", p.BatchOpsCost(5000), 0.2785, 0.28},
		{"Batch Operations for 100,000 objects cost about $0.82", p.BatchOpsCost(100_000), 0.82, 0.82},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !approx(tt.got, tt.want) {
				t.Errorf("got $%.6f, want $%.6f", tt.got, tt.want)
			}
			if math.Abs(tt.got-tt.reported) > 0.0051 {
				t.Errorf("got $%.4f, the report says ~$%.2f", tt.got, tt.reported)
			}
		})
	}
}

func TestRequestCostBillsEachTier(t *testing.T) {
	p := DefaultPrices()["us-east-1"]
	tests := []struct {
		name     string
		requests map[string]int64
		want     float64
	}{
		{"copies and listings are tier 1", map[string]int64{"CopyObject": 1000, "ListObjectsV2": 1000}, 0.010},
		{"gets and heads are tier 2", map[string]int64{"GetObject": 1000, "HeadObject": 1000}, 0.0008},
		{"deletes are free", map[string]int64{"DeleteObjects": 50, "AbortMultipartUpload": 3}, 0},
		{"multipart copy parts are tier 1", map[string]int64{"CreateMultipartUpload": 1, "UploadPartCopy": 998, "CompleteMultipartUpload": 1}, 0.005},
		{"nothing costs nothing", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.RequestCost(tt.requests); !approx(got, tt.want) {
				t.Errorf("RequestCost = %.6f, want %.6f", got, tt.want)
			}
		})
	}
}

func TestLoadPrices(t *testing.T) {
	tests := []struct {
		name string
		file string
		want map[string]Prices
	}{
		{
			name: "one region object changes only the fields it names",
			file: `{"region": "us-east-1", "get_per_1000": 0.001}`,
			want: map[string]Prices{
				"ap-northeast-1": DefaultPrices()["ap-northeast-1"],
				"us-east-1":      {Region: "us-east-1", Tier1Per1000: 0.005, Tier2Per1000: 0.001, BatchJob: 0.25, BatchPerMillion: 1},
			},
		},
		{
			name: "a map of regions adds new regions",
			file: `{"eu-west-1": {"put_copy_post_list_per_1000": 0.0054, "batch_operations_per_job": 0.25}}`,
			want: map[string]Prices{
				"ap-northeast-1": DefaultPrices()["ap-northeast-1"],
				"us-east-1":      DefaultPrices()["us-east-1"],
				"eu-west-1":      {Region: "eu-west-1", Tier1Per1000: 0.0054, BatchJob: 0.25},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LoadPrices(strings.NewReader(tt.file), DefaultPrices())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("prices (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadPricesRejectsGarbage(t *testing.T) {
	_, err := LoadPrices(strings.NewReader(`[1,2]`), DefaultPrices())
	if err == nil || !strings.HasPrefix(err.Error(), "load prices") {
		t.Errorf("LoadPrices([1,2]) = %v, want a load prices error", err)
	}
}

func TestPricesForFallsBackToTheReportsRegion(t *testing.T) {
	p, ok := PricesFor(DefaultPrices(), "sa-east-1")
	if ok || p.Region != "ap-northeast-1" {
		t.Errorf("PricesFor(sa-east-1) = %q, %v; want the report's region, false", p.Region, ok)
	}
}

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
		{name: "a missing file is named once, with what to do", file: filepath.Join(dir, "none.json"),
			wantErr: "--prices " + filepath.Join(dir, "none.json") + ": no such file or directory (give a readable JSON file of prices, or leave --prices out for the built-in ones)"},
		{name: "a file that is not prices is named", file: bad, wantErr: "--prices " + bad + ": load prices: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok, err := SelectPrices(tt.file, tt.named, tt.region)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("SelectPrices: %v, want an error saying %q", err, tt.wantErr)
				}
				if tt.file != "" && strings.Count(err.Error(), tt.file) != 1 {
					t.Errorf("SelectPrices: %v; want the file named once", err)
				}
				return
			}
			if err != nil || p.Region != tt.want || ok != tt.wantOK {
				t.Errorf("SelectPrices: %s %t %v; want %s %t", p.Region, ok, err, tt.want, tt.wantOK)
			}
		})
	}
}
