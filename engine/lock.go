package engine

import "github.com/s3bulk/s3bulk/store"

// LockCopy says which Object Lock settings each object written takes from
// its source (Options.CopyLock): its retention (mode and retain-until
// date), its legal hold. Settings of fixed values are the destination
// store's (s3store.Options.ObjectLock).
type LockCopy struct {
	Retention bool
	LegalHold bool
}

// any reports whether some setting is copied.
func (c LockCopy) any() bool { return c.Retention || c.LegalHold }

// lockToWrite is the part of a source's Object Lock settings, as its Head
// found them, that the run copies: none unless asked, so a copy never
// carries a lock by surprise (a bucket without Object Lock refuses it).
func (e *executor) lockToWrite(src store.ObjectLock) store.ObjectLock {
	var l store.ObjectLock
	if e.opts.CopyLock.Retention {
		l.Mode, l.RetainUntil = src.Mode, src.RetainUntil
	}
	if e.opts.CopyLock.LegalHold {
		l.LegalHold = src.LegalHold
	}
	return l
}
