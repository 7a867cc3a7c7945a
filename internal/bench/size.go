package bench

import (
	"fmt"
)

// FormatSize prints n for people, with the largest binary unit that keeps
// it readable: 102400 -> "100 KiB", 5471004718 -> "5.10 GiB". Command-line
// sizes are parsed by internal/units.
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
