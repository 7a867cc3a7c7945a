package memstat

import (
	"os"
	"strconv"
	"strings"
)

// ResetPeakRSS makes the kernel's high-water mark of this process's
// resident memory start again from now (Linux; elsewhere it reports false).
func ResetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// PeakRSS reads the high-water mark of this process's resident memory,
// in bytes.
func PeakRSS() (uint64, bool) { return peakRSS("/proc/self/status") }

// PeakRSSOf reads the high-water mark of process pid's resident memory,
// in bytes (Linux; elsewhere it reports false).
func PeakRSSOf(pid int) (uint64, bool) {
	return peakRSS("/proc/" + strconv.Itoa(pid) + "/status")
}

func peakRSS(status string) (uint64, bool) {
	b, err := os.ReadFile(status)
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}
