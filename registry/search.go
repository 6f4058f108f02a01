package registry

import (
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Domain search (RDAP's domains?name=, RFC 9082 §3.2.1 with the partial
// match of §4.1): the domains of one zone whose second-level label starts
// with a prefix, "PREFIX*.ZONE", a page at a time in the byte order of
// the form matched. An ASCII prefix is matched against the names'
// A-label form (RDAP's ldhName: plain LDH labels, and xn--… for IDNs),
// any other against their U-label form. docs/rdap.md, "Domain search".

// CodeUnsupportedSearch refuses a search pattern of a kind the registry
// does not answer (RFC 9082 §4.1: HTTP 422): a "*" other than at the end
// of the second-level label, no zone, or a prefix too short.
const CodeUnsupportedSearch = "UNSUPPORTED_SEARCH"

// The limits of a search.
const (
	// SearchMinPrefix is the fewest characters of a search prefix, not
	// counting an A-label's "xn--" (a shorter one would page through a
	// whole zone).
	SearchMinPrefix = 2
	// DefaultSearchPage and MaxSearchPage are the page sizes of
	// SearchDomains.
	DefaultSearchPage = 50
	MaxSearchPage     = 100
)

// DomainPattern is a parsed search pattern "PREFIX*.ZONE".
type DomainPattern struct {
	// Prefix is the start of the second-level label, canonical as a
	// lookup's label is: NFC, and lower case if ASCII; without the "*".
	Prefix string
	// ALabel says Prefix is ASCII and is matched against the A-label form
	// of the names (their ldhName); else against their U-labels.
	ALabel bool
	// Zone is the zone as given (without a final dot), not yet looked up.
	Zone string
}

// ParseDomainPattern parses a domain search pattern: the start of a
// second-level label followed by "*", a dot and the zone (U-label or
// A-label, a final dot allowed), such as किता*.भारत, xn--11b4*.xn--h2brj9c
// or abc*.in. The prefix is NFC-normalized, and lower-cased if ASCII. Errors are
// BAD_NAME (not a name: empty, not UTF-8, control characters, spaces) or
// UNSUPPORTED_SEARCH (a pattern of another kind). It never panics.
func ParseDomainPattern(pattern string) (DomainPattern, error) {
	if err := checkInput(pattern); err != nil {
		return DomainPattern{}, err
	}
	if i := strings.IndexFunc(pattern, unicode.IsSpace); i >= 0 {
		return DomainPattern{}, Errorf(CodeBadName, "the search pattern has a space at byte %d", i)
	}
	p := pattern
	if t := strings.TrimSuffix(p, "."); t != "" {
		p = t
	}
	label, zone, ok := strings.Cut(p, ".")
	switch {
	case !ok || zone == "":
		return DomainPattern{}, Errorf(CodeUnsupportedSearch, "%q names no zone: a search is PREFIX*.ZONE, such as abc*.in, within one zone", pattern)
	case strings.Contains(zone, "*"):
		return DomainPattern{}, Errorf(CodeUnsupportedSearch, "%q: the zone of a search is given whole, without *: PREFIX*.ZONE", pattern)
	case strings.Contains(zone, "."):
		return DomainPattern{}, Errorf(CodeUnsupportedSearch, "%q: a search is of second-level names only, PREFIX*.ZONE (this registry registers label.zone)", pattern)
	case !strings.HasSuffix(label, "*") || strings.Count(label, "*") != 1:
		return DomainPattern{}, Errorf(CodeUnsupportedSearch, "%q: this server searches by the start of the label only, one * at its end, PREFIX*.ZONE (look a whole name up at /rdap/domain/{name})", pattern)
	}
	prefix := strings.TrimSuffix(label, "*")
	// as a lookup reads a label (Service.locate): NFC, and lower case if
	// plain ASCII
	out := DomainPattern{Zone: zone, Prefix: norm.NFC.String(prefix)}
	if isASCII(out.Prefix) {
		out.Prefix, out.ALabel = strings.ToLower(out.Prefix), true
	}
	if n := significant(out.Prefix, out.ALabel); n < SearchMinPrefix {
		return DomainPattern{}, Errorf(CodeUnsupportedSearch, "%q: a search prefix has at least %d characters (after xn-- for an A-label)", pattern, SearchMinPrefix)
	}
	return out, nil
}

// significant is the count of characters of a prefix that narrow a
// search: those after "xn--" of an A-label prefix (none for a start of
// "xn--" itself, which every IDN has).
func significant(prefix string, alabel bool) int {
	if !alabel {
		return utf8.RuneCountInString(prefix)
	}
	switch {
	case strings.HasPrefix("xn--", prefix):
		return 0
	case strings.HasPrefix(prefix, "xn--"):
		return len(prefix) - 4
	}
	return len(prefix)
}

// DomainQuery is what a store searches: the domains of Zone whose label
// (ALabel: whose A-label name, alabel) starts with Prefix and sorts after
// After ("" for the first page), up to Limit, in byte order.
type DomainQuery struct {
	Zone   string
	Prefix string
	ALabel bool
	After  string
	Limit  int
}

// DomainSearcher is implemented by a store that searches domains by the
// start of their label (the SQL stores do, each by an index: domains
// (zone, label) and (zone, alabel) in byte order). The domains returned
// carry no conflict set, delegation or contacts.
type DomainSearcher interface {
	SearchDomains(ctx context.Context, q DomainQuery) ([]FoundDomain, error)
}

// FoundDomain is a domain a search found, and whether a transfer of it is
// pending (read with it: its statuses now need it, and a page of them
// is not a query per domain).
type FoundDomain struct {
	*Domain
	TransferPending bool
}

// DomainSearchPage is a page of a search: its domains, their Statuses
// those of now (as StatusesNow gives them). Next is the cursor of the
// page after it (the After of the next SearchDomains), "" on the last
// page.
type DomainSearchPage struct {
	Domains []*Domain
	Next    string
}

// SearchDomains returns a page of the domains pattern matches
// (ParseDomainPattern), in the byte order of the form matched (U-labels,
// or A-labels for an ASCII prefix): up to limit (0: DefaultSearchPage; at
// most MaxSearchPage) after the cursor after ("" for the first page, else
// the Next of the page before). A replica may answer it.
func (s *Service) SearchDomains(ctx context.Context, pattern, after string, limit int) (*DomainSearchPage, error) {
	p, err := ParseDomainPattern(pattern)
	if err != nil {
		return nil, err
	}
	z := s.exact[p.Zone]
	if z == nil {
		z = s.zones[zoneKey(p.Zone)]
	}
	if z == nil {
		return nil, s.unservedZone(p.Zone)
	}
	if limit == 0 {
		limit = DefaultSearchPage
	}
	if limit < 0 || limit > MaxSearchPage {
		return nil, Errorf(CodeBadName, "a page of a search holds 1 to %d domains (not %d)", MaxSearchPage, limit)
	}
	if after != "" && (checkInput(after) != nil || !strings.HasPrefix(after, p.Prefix)) {
		return nil, Errorf(CodeBadName, "the cursor is not one of this search's pages")
	}
	ds, ok := s.store.(DomainSearcher)
	if !ok {
		return nil, Errorf(CodeInternal, "the store does not search domains")
	}
	// one more than asked: whether a next page exists
	found, err := ds.SearchDomains(ReadOnly(ctx), DomainQuery{Zone: z.Name, Prefix: p.Prefix, ALabel: p.ALabel, After: after, Limit: limit + 1})
	if err != nil {
		return nil, err
	}
	page := &DomainSearchPage{Domains: make([]*Domain, 0, min(len(found), limit))}
	for _, f := range found[:min(len(found), limit)] {
		// the statuses now, as StatusesNow makes them
		st := s.Statuses(f.Domain)
		if f.TransferPending {
			st = slices.DeleteFunc(st, func(x string) bool { return x == StatusOK })
			st = append(st, StatusPendingTransfer)
			slices.Sort(st)
		}
		f.Statuses = st
		page.Domains = append(page.Domains, f.Domain)
	}
	if len(found) > limit {
		last := found[limit-1]
		page.Next = last.Label
		if p.ALabel {
			page.Next = last.ALabel
		}
	}
	return page, nil
}
