package s3store

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/store"
)

func TestMetadataFieldsSetWhatAWriteSends(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    store.Metadata
	}{
		{"empty: nothing sent", store.Metadata{}},
		{"all", store.Metadata{ContentType: "text/plain", ContentEncoding: "gzip", ContentLanguage: "en",
			CacheControl: "no-cache", ContentDisposition: "inline", StorageClass: "GLACIER", User: map[string]string{"k": "v"}}},
	} {
		var ct, ce, cl, cc, cd *string
		var class s3types.StorageClass
		var user map[string]string
		metadataFields{contentType: &ct, contentEncoding: &ce, contentLanguage: &cl, cacheControl: &cc,
			contentDisposition: &cd, storageClass: &class, user: &user}.set(tc.m)
		got := store.Metadata{ContentType: aws.ToString(ct), ContentEncoding: aws.ToString(ce), ContentLanguage: aws.ToString(cl),
			CacheControl: aws.ToString(cc), ContentDisposition: aws.ToString(cd), StorageClass: string(class), User: user}
		if diff := cmp.Diff(tc.m, got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tc.name, diff)
		}
		for _, p := range []*string{ct, ce, cl, cc, cd} {
			if p != nil && *p == "" {
				t.Errorf("%s: an empty header is sent", tc.name)
			}
		}
	}
}

func TestAnsweredMetadataIsWhatHeadReports(t *testing.T) {
	until := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	sum := "AAAAAA=="
	crc32c := &sum
	for _, tc := range []struct {
		name string
		a    answeredMetadata
		want store.Metadata
	}{
		{"nothing", answeredMetadata{}, store.Metadata{}},
		{"STANDARD is the default class", answeredMetadata{storageClass: s3types.StorageClassStandard}, store.Metadata{}},
		{"all", answeredMetadata{contentType: aws.String("text/plain"), contentEncoding: aws.String("gzip"),
			contentLanguage: aws.String("en"), cacheControl: aws.String("no-cache"), contentDisposition: aws.String("inline"),
			storageClass: s3types.StorageClassGlacier, user: map[string]string{"k": "v"}, tagCount: aws.Int32(2),
			lockMode: s3types.ObjectLockModeGovernance, retainUntil: &until, legalHold: s3types.ObjectLockLegalHoldStatusOn,
			checksumType: s3types.ChecksumTypeFullObject, checksums: checksumFields{crc32c: &crc32c}},
			store.Metadata{ContentType: "text/plain", ContentEncoding: "gzip", ContentLanguage: "en", CacheControl: "no-cache",
				ContentDisposition: "inline", StorageClass: "GLACIER", User: map[string]string{"k": "v"}, TagCount: 2,
				Lock:     store.ObjectLock{Mode: "GOVERNANCE", RetainUntil: until, LegalHold: "ON"},
				Checksum: store.Checksum{Algorithm: "CRC32C", Value: sum}}},
		{"composite checksum: its algorithm only", answeredMetadata{checksumType: s3types.ChecksumTypeComposite,
			checksums: checksumFields{crc32c: &crc32c}}, store.Metadata{Checksum: store.Checksum{Algorithm: "CRC32C"}}},
	} {
		if diff := cmp.Diff(tc.want, tc.a.metadata()); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tc.name, diff)
		}
	}
}
