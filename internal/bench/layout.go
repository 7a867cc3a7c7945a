package bench

import (
	"errors"
	"fmt"
	"strings"
)

// Layout is the field report's seed data set: objects spread over companies
// and users, keyed company-%04d/user-%04d/file-%02d.json. Users are numbered
// across the whole set, so each key names its owner uniquely; the last
// company holds whatever users remain.
type Layout struct {
	Objects         int   `json:"objects"`
	Size            int64 `json:"object_size"`
	FilesPerUser    int   `json:"files_per_user"`
	UsersPerCompany int   `json:"users_per_company"`
	// Seed makes bodies differ between data sets while staying reproducible.
	Seed int64 `json:"seed"`
}

// DefaultLayout is report 1's data set: 5,000 objects of 100 KiB, 4 files
// per user, 100 users per company, hence 1,250 users in 13 companies.
func DefaultLayout() Layout {
	return Layout{Objects: 5000, Size: 100 << 10, FilesPerUser: 4, UsersPerCompany: 100, Seed: 1}
}

// Validate reports a layout that cannot be generated.
func (l Layout) Validate() error {
	var errs []error
	if l.Objects < 0 {
		errs = append(errs, fmt.Errorf("objects %d: must not be negative", l.Objects))
	}
	if l.Size < minBodySize {
		errs = append(errs, fmt.Errorf("size %d: must be at least %d bytes to hold JSON", l.Size, minBodySize))
	}
	if l.FilesPerUser < 1 {
		errs = append(errs, fmt.Errorf("files per user %d: must be at least 1", l.FilesPerUser))
	}
	if l.UsersPerCompany < 1 {
		errs = append(errs, fmt.Errorf("users per company %d: must be at least 1", l.UsersPerCompany))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("seed layout: %w", err)
	}
	return nil
}

// Key returns the key of object i (0-based), relative to the seed prefix.
func (l Layout) Key(i int) string {
	user := i / l.FilesPerUser
	company := user / l.UsersPerCompany
	return fmt.Sprintf("company-%04d/user-%04d/file-%02d.json", company+1, user+1, i%l.FilesPerUser+1)
}

// Users is the number of users the objects spread over.
func (l Layout) Users() int { return ceilDiv(l.Objects, l.FilesPerUser) }

// Companies is the number of companies the users spread over.
func (l Layout) Companies() int { return ceilDiv(l.Users(), l.UsersPerCompany) }

// Bytes is the size of the whole data set.
func (l Layout) Bytes() int64 { return int64(l.Objects) * l.Size }

func ceilDiv(a, b int) int {
	if a <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

// Group is the part of a listing under one company prefix: the report's unit
// of parallelism. Company is the key's first path segment with its slash
// ("company-0001/"), or "" for keys directly under the prefix.
type Group struct {
	Company string
	Objects []Entry
}

// Entry is a listed object, its key relative to the benchmark prefix.
type Entry struct {
	Key  string
	Size int64
}

// groupByCompany splits entries by their first path segment, keeping the
// order in which companies first appear.
func groupByCompany(entries []Entry) []Group {
	var groups []Group
	index := map[string]int{}
	for _, e := range entries {
		company := ""
		if i := strings.IndexByte(e.Key, '/'); i >= 0 {
			company = e.Key[:i+1]
		}
		g, ok := index[company]
		if !ok {
			g = len(groups)
			index[company] = g
			groups = append(groups, Group{Company: company})
		}
		groups[g].Objects = append(groups[g].Objects, e)
	}
	return groups
}
