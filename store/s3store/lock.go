package s3store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/s3bulk/s3bulk/store"
)

// ObjectLockEnabled reports whether the bucket was made with Object Lock
// (GetObjectLockConfiguration): only then can objects written to it carry
// a retention or a legal hold.
func (s *Store) ObjectLockEnabled(ctx context.Context) (bool, error) {
	out, err := s.c.s3.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: aws.String(s.bucket)}, s.optFns...)
	if err != nil {
		if isCode(err, "ObjectLockConfigurationNotFoundError") || isCode(err, "ObjectLockConfigurationNotFound") {
			return false, nil
		}
		return false, wrap(err, "get object lock configuration of", "s3://"+s.bucket)
	}
	c := out.ObjectLockConfiguration
	return c != nil && c.ObjectLockEnabled == s3types.ObjectLockEnabledEnabled, nil
}

// lockOf is the Object Lock settings an object written with meta gets:
// meta's, and the store's options (Options.ObjectLock) for what meta
// leaves unset.
func (s *Store) lockOf(meta store.Metadata) store.ObjectLock {
	return meta.Lock.Or(s.opts.ObjectLock)
}

// lockFields returns l as the SDK's input fields of a write.
func lockFields(l store.ObjectLock) (s3types.ObjectLockMode, *time.Time, s3types.ObjectLockLegalHoldStatus) {
	var until *time.Time
	if !l.RetainUntil.IsZero() {
		t := l.RetainUntil
		until = &t
	}
	return s3types.ObjectLockMode(l.Mode), until, s3types.ObjectLockLegalHoldStatus(l.LegalHold)
}

// answeredLock is the Object Lock settings a HeadObject or GetObject
// answered with.
func answeredLock(mode s3types.ObjectLockMode, until *time.Time, hold s3types.ObjectLockLegalHoldStatus) store.ObjectLock {
	return store.ObjectLock{Mode: string(mode), RetainUntil: aws.ToTime(until), LegalHold: string(hold)}
}

// checkLock checks Object Lock settings as S3 takes them: a mode and a
// retain-until date together, or neither.
func checkLock(l store.ObjectLock) error {
	switch l.Mode {
	case "", store.LockGovernance, store.LockCompliance:
	default:
		return fmt.Errorf("object lock mode %q: want %s or %s", l.Mode, store.LockGovernance, store.LockCompliance)
	}
	if (l.Mode == "") != l.RetainUntil.IsZero() {
		return fmt.Errorf("object lock: a retention needs both a mode and a retain-until date")
	}
	switch l.LegalHold {
	case "", store.LegalHoldOn, store.LegalHoldOff:
	default:
		return fmt.Errorf("object lock legal hold %q: want %s or %s", l.LegalHold, store.LegalHoldOn, store.LegalHoldOff)
	}
	return nil
}
