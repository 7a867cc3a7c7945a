package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

var multipliers = []struct {
	suffix string
	mult   float64
}{
	// Longest suffixes first so "KiB" is not read as "B".
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40}, {"pib", 1 << 50},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12}, {"pb", 1e15},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40}, {"p", 1 << 50},
	{"b", 1},
}

// ParseSize reads a byte size. Binary suffixes (KiB, MiB, GiB, TiB, and the
// single letters K, M, G, T) are powers of 1024; decimal ones (KB, MB, GB,
// TB) powers of 1000; a bare number is bytes. Case does not matter.
func ParseSize(s string) (int64, error) {
	in := strings.TrimSpace(s)
	lower := strings.ToLower(in)
	mult := 1.0
	for _, m := range multipliers {
		if strings.HasSuffix(lower, m.suffix) {
			lower = strings.TrimSpace(strings.TrimSuffix(lower, m.suffix))
			mult = m.mult
			break
		}
	}
	if lower == "" {
		return 0, fmt.Errorf("size %q: no number", s)
	}
	v, err := strconv.ParseFloat(lower, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("size %q: not a number followed by a unit like KiB, MiB, GiB", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("size %q: negative", s)
	}
	b := v * mult
	if b >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q: too large", s)
	}
	return int64(math.Round(b)), nil
}

// FormatSize writes n with the largest binary unit that keeps it whole, so
// that ParseSize(FormatSize(n)) == n: 100KiB, 5GiB, 1000.
func FormatSize(n int64) string {
	for _, u := range []struct {
		s string
		m int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.m == 0 {
			return strconv.FormatInt(n/u.m, 10) + u.s
		}
	}
	return strconv.FormatInt(n, 10)
}

// FormatAWS formats a size as the AWS CLI's --human-readable does (its
// human_readable_size): "1 Byte", "10 Bytes", then one decimal and a
// base-2 unit, "1.0 KiB", "5.5 MiB", moving to the next unit once the
// value would round to 1024.
func FormatAWS(n int64) string {
	const base = 1024.0
	b := float64(n)
	switch {
	case n == 1:
		return "1 Byte"
	case b < base:
		return strconv.FormatInt(n, 10) + " Bytes"
	}
	suffixes := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	unit := base
	for i, suffix := range suffixes {
		unit *= base // base ** (i+2)
		if math.RoundToEven(b/unit*base) < base || i == len(suffixes)-1 {
			return fmt.Sprintf("%.1f %s", base*b/unit, suffix)
		}
	}
	panic("unreachable")
}

// Human formats n for people with one binary unit and one decimal: "1023
// B", "1.0 KiB", "1.5 GiB". Progress bars, summaries and du -H use it.
func Human(n int64) string { return human(n, 1, false) }

// HumanExact is Human for reports, where a whole number of units shows as
// one and the rest with two decimals: "100 KiB", "5.10 GiB".
func HumanExact(n int64) string { return human(n, 2, true) }

// human is the one byte formatter for people: the largest binary unit
// that leaves at least 1 of it (up to EiB), with decimals decimals, or
// none when exact is set and n is a whole number of that unit.
func human(n int64, decimals int, exact bool) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for n/div >= unit && exp < 5 {
		div *= unit
		exp++
	}
	// Checked on integers: a float test would call 2^63-1 bytes "8 EiB".
	if exact && n%div == 0 {
		return fmt.Sprintf("%d %ciB", n/div, "KMGTPE"[exp])
	}
	return fmt.Sprintf("%.*f %ciB", decimals, float64(n)/float64(div), "KMGTPE"[exp])
}
