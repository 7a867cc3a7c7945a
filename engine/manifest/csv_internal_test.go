package manifest

import "testing"

func TestCSVFormatFindsItsColumnsInTheFileSchema(t *testing.T) {
	for _, tc := range []struct {
		schema string
		want   csvFormat // columns; -1 for one the schema lacks
		err    bool
	}{
		{"Bucket, Key, VersionId, IsLatest, IsDeleteMarker, Size, LastModifiedDate, ETag, StorageClass",
			csvFormat{bucket: 0, key: 1, version: 2, latest: 3, deleteMarker: 4, size: 5, modified: 6, etag: 7, class: 8, width: 9}, false},
		{"Bucket,Key,Size",
			csvFormat{bucket: 0, key: 1, version: -1, latest: -1, deleteMarker: -1, size: 2, modified: -1, etag: -1, class: -1, width: 3}, false},
		{"Key, EncryptionStatus, ETag",
			csvFormat{bucket: -1, key: 0, version: -1, latest: -1, deleteMarker: -1, size: -1, modified: -1, etag: 2, class: -1, width: 3}, false},
		{"Bucket, Size", csvFormat{}, true},
	} {
		got, err := newCSVFormat(tc.schema)
		if (err != nil) != tc.err {
			t.Errorf("%q: error %v, want one: %v", tc.schema, err, tc.err)
			continue
		}
		if err == nil && *got != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.schema, *got, tc.want)
		}
	}
}
