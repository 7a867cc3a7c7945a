package bench

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Size units. Binary units (KiB, MiB...) are what S3 part limits use; decimal
// ones (KB, MB...) are what the field reports quote, so both are accepted.
var sizeUnits = map[string]float64{
	"":    1,
	"b":   1,
	"k":   1 << 10,
	"kb":  1e3,
	"kib": 1 << 10,
	"m":   1 << 20,
	"mb":  1e6,
	"mib": 1 << 20,
	"g":   1 << 30,
	"gb":  1e9,
	"gib": 1 << 30,
	"t":   1 << 40,
	"tb":  1e12,
	"tib": 1 << 40,
	"p":   1 << 50,
	"pb":  1e15,
	"pib": 1 << 50,
	"e":   1 << 60,
	"eb":  1e18,
	"eib": 1 << 60,
}

// ParseSize reads a byte count such as "100KiB", "1MiB", "5GiB", "1.5GB" or
// "4096". Units are case-insensitive; a bare K, M, G or T is binary. The
// result is rounded down to a whole byte and must fit in an int64.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	if num == "" {
		return 0, fmt.Errorf("parse size %q: want a number with an optional unit like 100KiB", s)
	}
	mult, ok := sizeUnits[unit]
	if !ok {
		return 0, fmt.Errorf("parse size %q: unknown unit %q (want B, KiB, MiB, GiB, TiB, PiB, EiB or KB, MB, GB...)", s, t[i:])
	}
	if !strings.Contains(num, ".") {
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parse size %q: %w", s, err)
		}
		if n > math.MaxInt64/int64(mult) {
			return 0, fmt.Errorf("parse size %q: too large", s)
		}
		return n * int64(mult), nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("parse size %q: %w", s, err)
	}
	v := math.Floor(f * mult)
	// 2^63 is the first float64 past MaxInt64.
	if v >= 1<<63 {
		return 0, fmt.Errorf("parse size %q: too large", s)
	}
	return int64(v), nil
}

// FormatSize prints n with the largest binary unit that keeps it readable:
// 102400 -> "100 KiB", 5471004718 -> "5.10 GiB".
func FormatSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	div := int64(unit)
	u := 0
	for n/div >= unit && u < len(units)-1 {
		div *= unit
		u++
	}
	// Checked on integers: a float test would call 2^63-1 bytes "8 EiB".
	if n%div == 0 {
		return fmt.Sprintf("%d %s", n/div, units[u])
	}
	return fmt.Sprintf("%.2f %s", float64(n)/float64(div), units[u])
}
