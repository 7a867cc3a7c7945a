package store

import "time"

// Object Lock retention modes and legal hold states, as S3 spells them.
const (
	LockGovernance = "GOVERNANCE"
	LockCompliance = "COMPLIANCE"
	LegalHoldOn    = "ON"
	LegalHoldOff   = "OFF"
)

// ObjectLock is an object's Object Lock settings: a retention (Mode and
// RetainUntil, set together) and a legal hold. The zero value is none.
type ObjectLock struct {
	Mode        string // LockGovernance, LockCompliance or ""
	RetainUntil time.Time
	LegalHold   string // LegalHoldOn, LegalHoldOff or ""
}

// IsZero reports whether l sets nothing.
func (l ObjectLock) IsZero() bool { return l == ObjectLock{} }

// Or is l with the settings it lacks taken from o: the retention as a
// whole, the legal hold on its own.
func (l ObjectLock) Or(o ObjectLock) ObjectLock {
	if l.Mode == "" && l.RetainUntil.IsZero() {
		l.Mode, l.RetainUntil = o.Mode, o.RetainUntil
	}
	if l.LegalHold == "" {
		l.LegalHold = o.LegalHold
	}
	return l
}
