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

// TestFormatAWS compares with the AWS CLI's human_readable_size, whose
// answers these are (awscli.customizations.s3.utils).
func TestFormatAWS(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{
		{0, "0 Bytes"},
		{1, "1 Byte"},
		{2, "2 Bytes"},
		{1023, "1023 Bytes"},
		{1024, "1.0 KiB"},
		{1025, "1.0 KiB"},
		{1536, "1.5 KiB"},
		{1587, "1.5 KiB"},
		{10188, "9.9 KiB"},
		{1048524, "1.0 MiB"},
		{1048575, "1.0 MiB"},
		{1048576, "1.0 MiB"},
		{1572864, "1.5 MiB"},
		{5492165909, "5.1 GiB"},
		{1099511627775, "1.0 TiB"},
		{1099511627776, "1.0 TiB"},
		{1126999418470, "1.0 TiB"},
		{3377699720527872, "3.0 PiB"},
		{8070450532247928832, "7.0 EiB"},
		{52428, "51.2 KiB"},
		{52480, "51.2 KiB"},
		{1075, "1.0 KiB"},
		{1076, "1.1 KiB"},
	} {
		if got := FormatAWS(tt.n); got != tt.want {
			t.Errorf("FormatAWS(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// TestHumanExact holds the report sizes bench prints.
func TestHumanExact(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0 B"},
		{1023, "1023 B"},
		{100 << 10, "100 KiB"},
		{5471004718, "5.10 GiB"},
		{512 << 20, "512 MiB"},
	}
	for _, tt := range tests {
		if got := HumanExact(tt.in); got != tt.want {
			t.Errorf("HumanExact(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestHuman(t *testing.T) {
	for in, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 5 << 30: "5.0 GiB", 1536 << 20: "1.5 GiB", 1<<63 - 1: "8.0 EiB"} {
		if got := Human(in); got != want {
			t.Errorf("Human(%d) = %q, want %q", in, got, want)
		}
	}
}
