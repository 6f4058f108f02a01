package httpapi_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/registry"
)

// TestAccount: a create the registrar's balance cannot pay is refused
// 402 with the balance and the price; one it can pay is debited; GET
// /v1/account shows the balance and the ledger, paged.
func TestAccount(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	ctx := context.Background()
	if _, err := e.svc.SetPrice(ctx, registry.Price{Zone: "भारत", Command: registry.BillCreate, Years: 1, Amount: 45050}); err != nil {
		t.Fatal(err)
	}
	var eb httpapi.ErrorBody
	r := e.do("POST", "/v1/domains", e.tokenA, `{"name":"कमल.भारत","lang":"hi"}`, &eb)
	if r.StatusCode != 402 || eb.Code != registry.CodeBillingFailure || eb.Balance == nil || *eb.Balance != 0 || eb.Price == nil || *eb.Price != 45050 || eb.Currency != "INR" {
		t.Fatalf("create without a balance: %d %+v", r.StatusCode, eb)
	}
	for i := 0; i < 3; i++ {
		if _, err := e.svc.Credit(ctx, "a", 50000, registry.EntryCredit, "cheque "+strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	var d registry.Domain
	if r := e.do("POST", "/v1/domains", e.tokenA, `{"name":"कमल.भारत","lang":"hi"}`, &d); r.StatusCode != 201 {
		t.Fatalf("create with a balance: %d", r.StatusCode)
	}
	var body struct {
		Account struct {
			Balance  string `json:"balance"`
			Currency string `json:"currency"`
		} `json:"account"`
		Entries []struct {
			ID      int64  `json:"id"`
			Kind    string `json:"kind"`
			Amount  string `json:"amount"`
			Balance string `json:"balance"`
			Name    string `json:"name"`
		} `json:"entries"`
		Next int64 `json:"next_cursor"`
	}
	r = e.do("GET", "/v1/account?limit=2", e.tokenA, "", &body)
	if r.StatusCode != 200 || body.Account.Balance != "1049.50" || body.Account.Currency != "INR" || len(body.Entries) != 2 || body.Next == 0 || r.Header.Get("Next-Cursor") == "" {
		t.Fatalf("account, page 1: %d %+v", r.StatusCode, body)
	}
	next := body.Next
	body.Entries, body.Next = nil, 0
	r = e.do("GET", "/v1/account?limit=2&cursor="+strconv.FormatInt(next, 10), e.tokenA, "", &body)
	if r.StatusCode != 200 || len(body.Entries) != 2 || body.Next != 0 || body.Entries[1].Kind != "debit" || body.Entries[1].Amount != "-450.50" ||
		body.Entries[1].Balance != "1049.50" || body.Entries[1].Name != "कमल.भारत" {
		t.Fatalf("account, page 2: %d %+v", r.StatusCode, body)
	}
	// the other registrar sees its own (empty) account
	body.Entries = nil
	if r := e.do("GET", "/v1/account", e.tokenB, "", &body); r.StatusCode != 200 || body.Account.Balance != "0.00" || len(body.Entries) != 0 {
		t.Errorf("b's account: %d %+v", r.StatusCode, body)
	}
	if r := e.do("GET", "/v1/account", "", "", nil); r.StatusCode != 401 {
		t.Errorf("account without a token: %d", r.StatusCode)
	}
	if r := e.do("GET", "/v1/account?limit=0", e.tokenA, "", nil); r.StatusCode != 400 {
		t.Errorf("limit=0: %d", r.StatusCode)
	}
}
