package store

import "context"

// ListQuery asks for one page of a listing.
type ListQuery struct {
	Prefix string
	// Delimiter, when not empty, rolls keys up into common prefixes as in
	// Lister.List.
	Delimiter string
	// StartAfter, on the first page, starts the listing after this key
	// (which need not exist).
	StartAfter string
	// Token continues a listing where the page before ended (Page.Next).
	Token string
}

// Page is one page of a listing.
type Page struct {
	// Objects are the page's objects and common prefixes, in ascending
	// byte order of keys.
	Objects []Object
	// Next continues the listing; "" when this was its last page.
	Next string
}

// Pager is implemented by stores that list one page a request, such as S3:
// the engine then runs several listings of one prefix side by side, each
// page one request of the run's budget.
type Pager interface {
	ListPage(ctx context.Context, q ListQuery) (Page, error)
}
