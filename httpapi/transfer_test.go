package httpapi_test

import (
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestTransferHTTP is the transfer conversation over the HTTP API, on
// both stores, pinned to instants: create with auth_info at t0, a request
// at t1 (202, pending), the sponsor's poll message, a rejection, a request
// approved (the domain and its set move), a request back approved by the
// server at t2+5d on read, and the poll queue read and acknowledged.
func TestTransferHTTP(t *testing.T) {
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			clk := registry.NewManualClock(registrytest.T0)
			svc := st.Service(t, registrytest.Exempt(registry.ServiceOptions{Clock: clk}, "http", ""))
			ctx := t.Context()
			_, a, _ := svc.AddRegistrar(ctx, "a")
			_, b, _ := svc.AddRegistrar(ctx, "b")
			ts := httptest.NewServer(httpapi.New(svc, httpapi.Options{}))
			t.Cleanup(ts.Close)
			e := &env{t, svc, ts.URL, a, b}
			const name = "/v1/domains/xn--11b4aya5ed.xn--h2brj9c"
			want := func(what string, status, got int) {
				t.Helper()
				if got != status {
					t.Fatalf("%s: HTTP %d, want %d", what, got, status)
				}
			}
			var errBody struct{ Code string }
			var tr registry.Transfer
			want("create", 201, e.do("POST", "/v1/domains", a, `{"name":"किताब.भारत","lang":"hi","auth_info":"Auth-Info-0001-strong"}`, nil).StatusCode)
			want("request in the lock period", 409, e.do("POST", name+"/transfer", b, `{"auth_info":"Auth-Info-0001-strong"}`, &errBody).StatusCode)
			if errBody.Code != registry.CodeNotEligible {
				t.Errorf("request in the lock period: %s", errBody.Code)
			}
			t1 := clk.Advance(61 * 24 * time.Hour)
			want("wrong authInfo", 403, e.do("POST", name+"/transfer", b, `{"auth_info":"Auth-Info-0002-strong"}`, &errBody).StatusCode)
			if errBody.Code != registry.CodeBadAuthInfo {
				t.Errorf("wrong authInfo: %s", errBody.Code)
			}
			want("11 years", 400, e.do("POST", name+"/transfer", b, `{"auth_info":"Auth-Info-0001-strong","period":11}`, nil).StatusCode)
			want("request", 202, e.do("POST", name+"/transfer", b, `{"auth_info":"Auth-Info-0001-strong","period":1}`, &tr).StatusCode)
			if tr.Status != registry.TransferPending || tr.Gaining != "b" || tr.Losing != "a" || !tr.Requested.Equal(t1) || !tr.ActDate.Equal(t1.Add(5*24*time.Hour)) {
				t.Fatalf("request: %+v", tr)
			}
			want("request again", 409, e.do("POST", name+"/transfer", b, `{"auth_info":"Auth-Info-0001-strong"}`, &errBody).StatusCode)
			if errBody.Code != registry.CodePendingTransfer {
				t.Errorf("request again: %s", errBody.Code)
			}
			want("query", 200, e.do("GET", name+"/transfer", a, "", &tr).StatusCode)
			var pending registry.Domain // the domain's statuses say so, as EPP info does
			want("info while pending", 200, e.do("GET", name, "", "", &pending).StatusCode)
			if !slices.Contains(pending.Statuses, registry.StatusPendingTransfer) || slices.Contains(pending.Statuses, registry.StatusOK) {
				t.Errorf("info while a transfer is pending: statuses %v, want pendingTransfer and not ok", pending.Statuses)
			}
			want("approve by the requester", 403, e.do("POST", name+"/transfer/approve", b, "", nil).StatusCode)
			var poll httpapi.PollResponse
			want("poll", 200, e.do("GET", "/v1/poll", a, "", &poll).StatusCode)
			if poll.Count != 1 || poll.Message == nil || poll.Message.Kind != registry.PollTransferRequested || poll.Message.Transfer.Status != registry.TransferPending {
				t.Fatalf("poll: %+v", poll)
			}
			want("ack by another", 404, e.do("DELETE", "/v1/poll/"+itoa(poll.Message.ID), b, "", nil).StatusCode)
			want("ack", 200, e.do("DELETE", "/v1/poll/"+itoa(poll.Message.ID), a, "", &poll).StatusCode)
			if poll.Count != 0 {
				t.Errorf("ack: %+v", poll)
			}
			want("reject", 200, e.do("POST", name+"/transfer/reject", a, "", &tr).StatusCode)
			if tr.Status != registry.TransferClientRejected {
				t.Errorf("reject: %+v", tr)
			}
			want("request", 202, e.do("POST", name+"/transfer", b, `{"auth_info":"Auth-Info-0001-strong"}`, nil).StatusCode)
			want("approve", 200, e.do("POST", name+"/transfer/approve", a, "", &tr).StatusCode)
			var d registry.Domain
			want("info", 200, e.do("GET", name, "", "", &d).StatusCode)
			if d.Registrar != "b" || len(d.Blocks) < 2 {
				t.Fatalf("info after the transfer: %+v", d)
			}
			want("the losing registrar creates a variant", 409, e.do("POST", "/v1/domains", a, `{"name":"कित्ताब.भारत"}`, &errBody).StatusCode)
			want("authInfo by the old sponsor", 403, e.do("PUT", name+"/auth-info", a, `{"auth_info":"Auth-Info-0003-strong"}`, nil).StatusCode)
			want("authInfo", 204, e.do("PUT", name+"/auth-info", b, `{"auth_info":"Auth-Info-0003-strong"}`, nil).StatusCode)
			t2 := clk.Advance(61 * 24 * time.Hour)
			want("request back", 202, e.do("POST", name+"/transfer", a, `{"auth_info":"Auth-Info-0003-strong"}`, nil).StatusCode)
			t3 := clk.Advance(5 * 24 * time.Hour)
			want("info at t2+5d", 200, e.do("GET", name, "", "", &d).StatusCode)
			if d.Registrar != "a" {
				t.Fatalf("info at t2+5d: sponsor %s, want a (approved on read)", d.Registrar)
			}
			want("query", 200, e.do("GET", name+"/transfer", b, "", &tr).StatusCode)
			if tr.Status != registry.TransferServerApproved || !tr.Requested.Equal(t2) || !tr.ActDate.Equal(t3) {
				t.Errorf("query after the auto-approval: %+v", tr)
			}
			log, err := svc.Audit(ctx, registry.AuditFilter{Name: "किताब.भारत", Action: "transfer-approve"})
			if err != nil || len(log) != 1 || log[0].Channel != "http" || log[0].SvTRID == "" || !log[0].At.Equal(t1) {
				t.Errorf("audit: %+v, %v", log, err)
			}
			// a refusal is recorded with the name as given
			log, err = svc.Audit(ctx, registry.AuditFilter{Name: "xn--11b4aya5ed.xn--h2brj9c", Action: "transfer-approve"})
			if err != nil || len(log) != 1 || log[0].Result != registry.CodeForbidden || log[0].Channel != "http" {
				t.Errorf("audit of the refusal: %+v, %v", log, err)
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// registrarNamed finds a registrar of svc by name.
func registrarNamed(t *testing.T, svc *registry.Service, name string) *registry.Registrar {
	t.Helper()
	rs, err := svc.Registrars(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Name == name {
			return &r.Registrar
		}
	}
	t.Fatalf("no registrar %s", name)
	return nil
}
