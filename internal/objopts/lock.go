package objopts

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// copyValue is the value of an Object Lock flag that keeps the source's.
const copyValue = "copy"

// Lock is what --object-lock-mode, --object-lock-retain-until-date and
// --object-lock-legal-hold ask for, as typed. Each takes "copy" too: the
// setting of each source object, as rclone's.
type Lock struct {
	Mode        string // GOVERNANCE, COMPLIANCE or copy
	RetainUntil string // RFC 3339 time, a date (2006-01-02, midnight UTC), or copy
	LegalHold   string // ON, OFF or copy
}

// Active reports whether any of the flags was given.
func (l Lock) Active() bool { return l != Lock{} }

// LockPlan is what a transfer does with Object Lock: settings of fixed
// values for the destination store (s3store.Options.ObjectLock), and which
// settings each object takes from its source (engine.Options.CopyLock).
type LockPlan struct {
	Fixed store.ObjectLock
	Copy  engine.LockCopy
}

// Plan checks the flags against a transfer from src to dst at time now
// and returns what they ask for. A retention is a mode and a date
// together, both given or both copied; a date given must be in the
// future.
func (l Lock) Plan(src, dst s3url.Location, now time.Time) (LockPlan, error) {
	var p LockPlan
	if !l.Active() {
		return p, nil
	}
	if !dst.IsS3() {
		return p, fmt.Errorf("--object-lock-*: only for objects written to S3, and the destination %s is local", dst)
	}
	modeCopy, dateCopy := strings.EqualFold(l.Mode, copyValue), strings.EqualFold(l.RetainUntil, copyValue)
	switch {
	case (l.Mode == "") != (l.RetainUntil == ""):
		return p, errors.New("--object-lock-mode and --object-lock-retain-until-date: a retention needs both")
	case modeCopy != dateCopy:
		return p, errors.New("--object-lock-mode and --object-lock-retain-until-date: a retention is copied whole: give both as copy, or both a value")
	case modeCopy:
		p.Copy.Retention = true
	case l.Mode != "":
		mode := strings.ToUpper(l.Mode)
		if mode != store.LockGovernance && mode != store.LockCompliance {
			return p, fmt.Errorf("--object-lock-mode %q: want GOVERNANCE, COMPLIANCE or copy", l.Mode)
		}
		until, err := parseRetainUntil(l.RetainUntil)
		if err != nil {
			return p, err
		}
		if !until.After(now) {
			return p, fmt.Errorf("--object-lock-retain-until-date %s: must be in the future", l.RetainUntil)
		}
		p.Fixed.Mode, p.Fixed.RetainUntil = mode, until
	}
	switch hold := strings.ToUpper(l.LegalHold); {
	case hold == "":
	case strings.EqualFold(hold, copyValue):
		p.Copy.LegalHold = true
	case hold == store.LegalHoldOn || hold == store.LegalHoldOff:
		p.Fixed.LegalHold = hold
	default:
		return p, fmt.Errorf("--object-lock-legal-hold %q: want ON, OFF or copy", l.LegalHold)
	}
	if (p.Copy.Retention || p.Copy.LegalHold) && !src.IsS3() {
		return p, fmt.Errorf("--object-lock-*: copy keeps an S3 source's settings, and the source %s is local", src)
	}
	return p, nil
}

// parseRetainUntil reads a retain-until date: an RFC 3339 time, or a
// date, which is midnight UTC at its start.
func parseRetainUntil(v string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--object-lock-retain-until-date %q: want an RFC 3339 time (2027-01-02T15:04:05Z), a date (2027-01-02) or copy", v)
}
