package rdap

import (
	"encoding/base64"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/akshara-idn/akshara/internal/addrlimit"
	"github.com/akshara-idn/akshara/registry"
)

// The domain search (RFC 9082 §3.2.1): GET /rdap/domains?name=PREFIX*.ZONE
// answers the domains of one zone whose second-level label starts with
// PREFIX (registry.ParseDomainPattern: U-labels, or A-labels for an ASCII
// prefix; the zone in either form), as RFC 9083 §8's domainSearchResults,
// a page at a time in the byte order of the form matched. Paging is RFC
// 8977's: "paging" in rdapConformance, and paging_metadata with pageSize,
// pageNumber and, when more follow, a link "next" whose URL carries the
// next page's cursor (the parameter cursor, opaque). Each result is a
// summary of the domain (statuses, events, the registrar entity) whose
// self link answers the whole object. Searches are limited per client
// address (Options.SearchRate). docs/rdap.md, "Domain search".

// DomainSearchResults is the answer to a domain search.
type DomainSearchResults struct {
	Conformance []string        `json:"rdapConformance"`
	Results     []SearchResult  `json:"domainSearchResults"`
	Paging      *PagingMetadata `json:"paging_metadata,omitempty"`
	Notices     []Notice        `json:"notices"`
}

// SearchResult is a domain of a search: a Domain without the members
// only a response's top has (rdapConformance, notices), which the empty
// fields here hide.
type SearchResult struct {
	*Domain
	Conformance []string `json:"rdapConformance,omitempty"`
	Notices     []Notice `json:"notices,omitempty"`
}

// PagingMetadata is RFC 8977 §2.3's paging_metadata.
type PagingMetadata struct {
	PageSize   int    `json:"pageSize"`
	PageNumber int    `json:"pageNumber"`
	Links      []Link `json:"links,omitempty"`
}

// searchConformance is the rdapConformance of a search's answer (RFC
// 8977 §7: "paging").
var searchConformance = []string{"rdap_level_0", "paging"}

var searchNotice = Notice{
	Title: "Search results",
	Description: []string{
		"Each result is a summary of a domain (its statuses, events and registrar); its self link answers the whole domain object, with its variants, name servers, DS records and contacts.",
		"The results are in the byte order of the U-label searched (of the A-label name, ldhName, for an ASCII prefix). When more follow, paging_metadata has a link \"next\" to the next page (RFC 8977, the parameter cursor).",
	},
}

func (h *handler) searchSetup() {
	o := &h.opts
	if o.SearchRate == 0 {
		o.SearchRate = 5
	}
	if o.SearchBurst <= 0 {
		o.SearchBurst = max(1, int(4*o.SearchRate))
	}
	if o.SearchPage <= 0 {
		o.SearchPage = registry.DefaultSearchPage
	}
	o.SearchPage = min(o.SearchPage, registry.MaxSearchPage)
	if o.ClientAddr == nil {
		o.ClientAddr = func(r *http.Request) string {
			if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
				return host
			}
			return r.RemoteAddr
		}
	}
	h.search = addrlimit.New(o.SearchRate, o.SearchBurst)
}

// encodeCursor and decodeCursor make the cursor of a page (RFC 8977 §2.2:
// opaque to the client): its number and the registry's cursor of the
// search (the key of the last domain of the page before).
func encodeCursor(page int, after string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(page) + ":" + after))
}

func decodeCursor(c string) (page int, after string, ok bool) {
	if len(c) > 2048 {
		return 0, "", false
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, "", false
	}
	n, after, found := strings.Cut(string(b), ":")
	page, err = strconv.Atoi(n)
	if !found || err != nil || page < 2 || page > 1<<30 || strconv.Itoa(page) != n || after == "" {
		return 0, "", false
	}
	return page, after, true
}

func (h *handler) domains(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	for _, k := range []string{"nsLdhName", "nsIp"} {
		if q.Has(k) {
			h.fail(w, http.StatusNotImplemented, "this server searches domains by name only: /rdap/domains?name=PREFIX*.ZONE")
			return
		}
	}
	if client := h.opts.ClientAddr(r); !h.search.Allow(client) {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(1/h.opts.SearchRate))))
		h.failErr(w, registry.Errorf(registry.CodeRateLimited, "too many searches from %s (at most %g a second, bursts of %d); retry later", client, h.opts.SearchRate, h.opts.SearchBurst))
		return
	}
	if len(q["name"]) != 1 || len(q["cursor"]) > 1 {
		h.fail(w, http.StatusBadRequest, "a domain search is /rdap/domains?name=PREFIX*.ZONE (one name; and cursor, the next page's, from paging_metadata)", "code: "+registry.CodeBadName)
		return
	}
	pattern := q.Get("name")
	page, after := 1, ""
	if c := q.Get("cursor"); c != "" {
		var ok bool
		if page, after, ok = decodeCursor(c); !ok {
			h.fail(w, http.StatusBadRequest, "the cursor is not one of this server's: take the next page's from paging_metadata", "code: "+registry.CodeBadName)
			return
		}
	}
	ctx := registry.Public(r.Context()) // a read replica may answer (docs/replicas.md)
	res, err := h.svc.SearchDomains(ctx, pattern, after, h.opts.SearchPage)
	if err != nil {
		h.failErr(w, err)
		return
	}
	out := DomainSearchResults{Conformance: searchConformance, Results: make([]SearchResult, 0, len(res.Domains)),
		Paging: &PagingMetadata{PageSize: h.opts.SearchPage, PageNumber: page}}
	registrars := map[string]Entity{}
	for _, d := range res.Domains { // their statuses those of now (SearchDomains)
		o := DomainOf(d)
		// a summary: what the search read (no delegation, variants or
		// contacts, so no claim about them either)
		o.Nameservers, o.SecureDNS, o.Variants = nil, nil, nil
		if err := h.sponsor(r, o.Entities, registrars); err != nil {
			h.failErr(w, err)
			return
		}
		o.Links = []Link{h.selfLink(r, "/rdap/domain/"+d.ALabel, ContentType)}
		out.Results = append(out.Results, SearchResult{Domain: o})
	}
	if res.Next != "" {
		next := h.base(r) + "/rdap/domains?" + url.Values{"name": {pattern}, "cursor": {encodeCursor(page+1, res.Next)}}.Encode()
		out.Paging.Links = []Link{{Value: h.base(r) + r.URL.RequestURI(), Rel: "next", Href: next, Title: "Result Pagination Link", Type: ContentType}}
	}
	out.Notices = append([]Notice{searchNotice}, h.opts.Notices...)
	write(w, http.StatusOK, out)
}

// searchHelp says what the search answers (help).
var searchHelp = fmt.Sprintf("Domain search: /rdap/domains?name=PREFIX*.ZONE, the domains of one zone whose second-level label starts with PREFIX (at least %d characters; U-labels, or A-labels for an ASCII prefix such as xn--11b4*), a page at a time in byte order; the next page is paging_metadata's link \"next\" (RFC 8977, the parameter cursor). Searches are limited per client address.", registry.SearchMinPrefix)
