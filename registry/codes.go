package registry

import (
	"sort"
	"sync"
)

// CodeInfo is how every front end reports an error code: the HTTP status
// of the JSON API and RDAP, the EPP result code (RFC 5730 §3) and a short
// reason a registrar can show (at most 32 characters: it goes into EPP's
// <domain:reason>, an eppcom:reasonType).
type CodeInfo struct {
	HTTP   int    // HTTP status
	EPP    int    // EPP result code
	Reason string // short, lower case, ≤ 32 characters
}

// CodeRateLimited refuses a client over its rate: HTTP 429, EPP 2502
// (closing), WHOIS a refusal line; every front end limits its clients.
const CodeRateLimited = "RATE_LIMITED"

// codeTable is the one table from error codes to what the front ends
// answer. Front ends with codes of their own (httpapi's BAD_JSON, …) add
// them with DefineCode; nothing else maps codes to statuses.
var (
	codeMu    sync.RWMutex
	codeTable = map[string]CodeInfo{
		CodeInvalid:         {422, 2306, "invalid"},
		CodeConflict:        {409, 2302, "blocked variant"},
		CodeExists:          {409, 2302, "exists"},
		CodeNotFound:        {404, 2303, "not found"},
		CodeForbidden:       {403, 2201, "not yours"},
		CodeUnauthorized:    {401, 2200, "authentication failed"},
		CodeUnknownZone:     {400, 2306, "unknown zone"},
		CodeUnknownLanguage: {400, 2306, "unknown language"},
		CodeBadName:         {400, 2005, "bad name"},
		CodeInternal:        {500, 2400, "internal error"},
		CodeReserved:        {409, 2308, "reserved"},
		CodeUnavailable:     {503, 2400, "unavailable"},
		CodeWrongExpiry:     {409, 2306, "wrong current expiry date"},
		CodeNotRenewable:    {409, 2105, "not eligible for renewal"},
		CodeBadStatus:       {400, 2306, "status not allowed"},
		CodeRevoked:         {403, 2200, "registrar revoked"},
		CodeRateLimited:     {429, 2502, "rate limited"},
		// RDAP's domain search (search.go; RFC 9082 §4.1: 422)
		CodeUnsupportedSearch: {422, 2306, "unsupported search"},
		// contacts (contacts.go, docs/contacts.md)
		CodeBadContact:          {400, 2005, "bad contact field"},
		CodeContactPolicy:       {422, 2306, "contact policy"},
		CodeContactRequired:     {422, 2003, "contact required"},
		CodeContactNotSponsored: {403, 2201, "contact not yours"},
	}
)

// DefineCode adds (or replaces) the entry of a code. Front ends call it
// from init for their transport codes.
func DefineCode(code string, info CodeInfo) {
	codeMu.Lock()
	defer codeMu.Unlock()
	codeTable[code] = info
}

// InfoOf returns the entry of a code; an unknown code is answered as
// CodeInternal.
func InfoOf(code string) CodeInfo {
	codeMu.RLock()
	defer codeMu.RUnlock()
	if i, ok := codeTable[code]; ok {
		return i
	}
	return codeTable[CodeInternal]
}

// KnownCode reports whether code has an entry.
func KnownCode(code string) bool {
	codeMu.RLock()
	defer codeMu.RUnlock()
	_, ok := codeTable[code]
	return ok
}

// Codes lists the codes of the table, sorted.
func Codes() []string {
	codeMu.RLock()
	defer codeMu.RUnlock()
	out := make([]string, 0, len(codeTable))
	for c := range codeTable {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}
