package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/s3bulk/s3bulk/store"
)

// Prices is one region's request and Batch Operations prices, in US dollars.
// Data transfer is left out: every method here copies inside one region,
// where transfer is free.
type Prices struct {
	Region string `json:"region"`
	// Tier1Per1000 prices PUT, COPY, POST and LIST requests (S3 Standard).
	Tier1Per1000 float64 `json:"put_copy_post_list_per_1000"`
	// Tier2Per1000 prices GET, HEAD and every other request that is not free.
	Tier2Per1000 float64 `json:"get_per_1000"`
	// BatchJob and BatchPerMillion are S3 Batch Operations' management fees.
	BatchJob        float64 `json:"batch_operations_per_job"`
	BatchPerMillion float64 `json:"batch_operations_per_million_objects"`
}

// DefaultPrices holds the regions the field report and most users start
// from. ap-northeast-1 is the report's own table.
func DefaultPrices() map[string]Prices {
	return map[string]Prices{
		"ap-northeast-1": {Region: "ap-northeast-1", Tier1Per1000: 0.0047, Tier2Per1000: 0.00037, BatchJob: 0.25, BatchPerMillion: 1.00},
		"us-east-1":      {Region: "us-east-1", Tier1Per1000: 0.005, Tier2Per1000: 0.0004, BatchJob: 0.25, BatchPerMillion: 1.00},
	}
}

// DefaultPriceRegion is the report's region, used when the run's region has
// no entry in the table.
const DefaultPriceRegion = "ap-northeast-1"

// LoadPrices reads a JSON price file and lays it over base: either one
// object for one region or a map of region to prices. Fields left out keep
// base's values, so a file may change a single price.
//
//	{"us-west-2": {"put_copy_post_list_per_1000": 0.005, "get_per_1000": 0.0004}}
func LoadPrices(r io.Reader, base map[string]Prices) (map[string]Prices, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("load prices: %w", err)
	}
	out := maps.Clone(base)
	if out == nil {
		out = map[string]Prices{}
	}
	var one struct {
		Region *string `json:"region"`
	}
	if err := json.Unmarshal(data, &one); err == nil && one.Region != nil {
		p := out[*one.Region]
		if err := json.Unmarshal(data, &p); err != nil {
			return nil, fmt.Errorf("load prices: %w", err)
		}
		out[p.Region] = p
		return out, nil
	}
	var many map[string]json.RawMessage
	if err := json.Unmarshal(data, &many); err != nil {
		return nil, fmt.Errorf("load prices: want {\"region\": ...} or {\"REGION\": {...}}: %w", err)
	}
	for _, region := range slices.Sorted(maps.Keys(many)) {
		p := out[region]
		p.Region = region
		if err := json.Unmarshal(many[region], &p); err != nil {
			return nil, fmt.Errorf("load prices for %s: %w", region, err)
		}
		p.Region = region
		out[region] = p
	}
	return out, nil
}

// PricesFor returns the table's entry for region, or the report's region
// when there is none; ok tells which.
func PricesFor(table map[string]Prices, region string) (p Prices, ok bool) {
	if p, ok := table[region]; ok {
		return p, true
	}
	return table[DefaultPriceRegion], false
}

// requestTier tells how S3 bills an operation (by its SDK name): 1 for
// PUT/COPY/POST/LIST, 2 for GET and the rest, 0 when free (DELETE, abort).
func requestTier(op string) int {
	switch op {
	case "PutObject", "CopyObject", "PostObject", "UploadPart", "UploadPartCopy",
		"CreateMultipartUpload", "CompleteMultipartUpload",
		"ListObjects", "ListObjectsV2", "ListObjectVersions", "ListBuckets",
		"ListMultipartUploads", "ListParts", "CreateBucket", "PutBucketTagging":
		return 1
	case "DeleteObject", "DeleteObjects", "AbortMultipartUpload", "DeleteBucket":
		return 0
	default:
		return 2
	}
}

// RequestCost prices a count of requests by operation.
func (p Prices) RequestCost(requests map[string]int64) float64 {
	var tier1, tier2 int64
	for op, n := range requests {
		switch requestTier(op) {
		case 1:
			tier1 += n
		case 2:
			tier2 += n
		}
	}
	return float64(tier1)/1000*p.Tier1Per1000 + float64(tier2)/1000*p.Tier2Per1000
}

// CopyCost is the report's estimate for request-based methods: one COPY per
// object, listings left out (a LIST page covers 1,000 keys, so they add
// 0.1%). 5,000 objects in ap-northeast-1: 5 x 0.0047 = $0.0235.
func (p Prices) CopyCost(objects int64) float64 {
	return float64(objects) / 1000 * p.Tier1Per1000
}

// BatchOpsCost is S3 Batch Operations' price for a Copy job of objects,
// built as the report built it: the job fee, the per-object fee, and the
// CopyObject request Batch Operations makes for each object, billed at the
// COPY price. Left out: the manifest's PUT and the listing that made it, the
// completion report's PUTs and the source GETs a copy implies, each a few
// requests or free. In ap-northeast-1:
//
//	  5,000 objects: 0.25 + 0.005 + 0.0235 = $0.2785  (report: ~$0.28)
//	100,000 objects: 0.25 + 0.10  + 0.47   = $0.82    (report: ~$0.82)
func (p Prices) BatchOpsCost(objects int64) float64 {
	return p.BatchJob + float64(objects)/1e6*p.BatchPerMillion + p.CopyCost(objects)
}

// SelectPrices picks the prices of a run: from the built-in table with the
// JSON file (LoadPrices) laid over it when file is not "", for the region
// priceRegion names, else for region (PricesFor: ok is false when the
// table has none for it and the report's region stands in). Its errors
// name bench's --prices and --price-region flags.
func SelectPrices(file, priceRegion, region string) (p Prices, ok bool, err error) {
	table := DefaultPrices()
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			// The path once, from the flag: the cause without the
			// PathError's copy of it.
			return Prices{}, false, fmt.Errorf("--prices %s: %v (give a readable JSON file of prices, or leave --prices out for the built-in ones)",
				file, store.PathCause(err, file))
		}
		defer f.Close()
		if table, err = LoadPrices(f, table); err != nil {
			return Prices{}, false, fmt.Errorf("--prices %s: %w", file, err)
		}
	}
	if priceRegion != "" {
		p, ok := table[priceRegion]
		if !ok {
			return Prices{}, false, fmt.Errorf("--price-region %s: no prices for it (give them with --prices)", priceRegion)
		}
		return p, true, nil
	}
	p, ok = PricesFor(table, region)
	return p, ok, nil
}
