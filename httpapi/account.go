package httpapi

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/akshara-idn/akshara/registry"
)

// The registrar's account (docs/billing.md): GET /v1/account answers its
// balance, credit limit and threshold, and a page of its ledger, oldest
// first (?limit=N, 1 to 1000, default 100; ?cursor=ID from the
// Next-Cursor of the page before).

// accountBody is GET /v1/account's answer.
type accountBody struct {
	Account *registry.Account      `json:"account"`
	Entries []registry.LedgerEntry `json:"entries"`
	// NextCursor continues the ledger after this page (0: none more).
	NextCursor int64 `json:"next_cursor,omitempty"`
}

func (s *Server) account(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit := 100
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return registry.Errorf(CodeBadParam, "limit must be a number from 1 to 1000 (default 100)")
		}
		limit = n
	}
	var after int64
	if v := q.Get("cursor"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return registry.Errorf(CodeBadParam, "cursor %q is not one of this ledger: use the Next-Cursor of the page before", v)
		}
		after = n
	}
	reg := registrarOf(r)
	a, err := s.svc.Account(r.Context(), reg)
	if err != nil {
		return err
	}
	es, err := s.svc.Entries(r.Context(), reg, after, limit+1)
	if err != nil {
		return err
	}
	body := accountBody{Account: a, Entries: es}
	if len(es) > limit {
		body.Entries = es[:limit]
		body.NextCursor = es[limit-1].ID
		next := strconv.FormatInt(body.NextCursor, 10)
		w.Header().Set("Next-Cursor", next)
		w.Header().Set("Link", "</v1/account?"+url.Values{"cursor": {next}, "limit": {strconv.Itoa(limit)}}.Encode()+">; rel=\"next\"")
	}
	if body.Entries == nil {
		body.Entries = []registry.LedgerEntry{}
	}
	return writeJSON(w, http.StatusOK, body)
}

// shortfall fills in a BILLING_FAILURE's balance and price (HTTP 402):
// the registrar's own, never another's (a transfer approval the gaining
// registrar cannot pay says only the price).
func shortfall(body *ErrorBody, err error) {
	var sf *registry.Shortfall
	if !errors.As(err, &sf) {
		return
	}
	price := sf.Price
	body.Price, body.Currency = &price, registry.Currency
	if sf.Own {
		bal := sf.Balance
		body.Balance = &bal
	}
}
