package units

import "testing"

func TestParseSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{"1024", 1024, false},
		{"100KiB", 100 << 10, false},
		{"100kib", 100 << 10, false},
		{"64MiB", 64 << 20, false},
		{"64M", 64 << 20, false},
		{"5GiB", 5 << 30, false},
		{"1.5GB", 1500000000, false},
		{"1 KB", 1000, false},
		{"0", 0, false},
		{"", 0, true},
		{"MiB", 0, true},
		{"-1MiB", 0, true},
		{"ten", 0, true},
		{"1e30TiB", 0, true},
		{"NaN", 0, true},
	}
	for _, tt := range tests {
		t.Run("parses "+tt.in, func(t *testing.T) {
			got, err := ParseSize(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseSize(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("ParseSize(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"1", "100KiB", "1.5GB", "5gib", " 3 m ", "-2", "1e9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d: negative", s, n)
		}
		back, err := ParseSize(FormatSize(n))
		if err != nil || back != n {
			t.Fatalf("round trip of %d via %q = %d, %v", n, FormatSize(n), back, err)
		}
	})
}
