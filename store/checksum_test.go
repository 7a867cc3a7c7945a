package store

import (
	"encoding/hex"
	"testing"
)

// The catalogued check values of each algorithm over "123456789".
func TestChecksumHashesMatchTheirCheckValues(t *testing.T) {
	tests := []struct{ alg, want string }{
		{"CRC32", "cbf43926"},
		{"CRC32C", "e3069283"},
		{"CRC64NVME", "ae8b14860a799888"},
		{"SHA1", "f7c3bc1d808e04732adf679965ccc34ca7ae3441"},
		{"SHA256", "15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225"},
	}
	for _, tt := range tests {
		h := NewChecksumHash(tt.alg)
		if h == nil {
			t.Errorf("NewChecksumHash(%q) = nil", tt.alg)
			continue
		}
		h.Write([]byte("123456789"))
		if got := hex.EncodeToString(h.Sum(nil)); got != tt.want {
			t.Errorf("%s(123456789) = %s, want %s", tt.alg, got, tt.want)
		}
	}
	if len(tests) != len(ChecksumAlgorithms) {
		t.Errorf("%d algorithms tested, %d listed", len(tests), len(ChecksumAlgorithms))
	}
	if NewChecksumHash("MD4") != nil {
		t.Error("NewChecksumHash of an unknown algorithm is not nil")
	}
}
