package epp_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

const feeNS = `xmlns:fee="urn:ietf:params:xml:ns:epp:fee-1.0"`

func feeLoginFrame(clID, pw string) string {
	return cmd(`<login><clID>` + clID + `</clID><pw>` + pw + `</pw><options><version>1.0</version><lang>en</lang></options>` +
		`<svcs><objURI>urn:ietf:params:xml:ns:domain-1.0</objURI><svcExtension><extURI>urn:ietf:params:xml:ns:idn-1.0</extURI>` +
		`<extURI>urn:ietf:params:xml:ns:rgp-1.0</extURI><extURI>urn:ietf:params:xml:ns:epp:fee-1.0</extURI></svcExtension></svcs></login>`)
}

// feeCheckFrame is a domain <check> of names with a <fee:check> of the
// commands (name or name:years).
func feeCheckFrame(currency string, names []string, commands ...string) string {
	var b strings.Builder
	for _, n := range names {
		b.WriteString(`<domain:name>` + n + `</domain:name>`)
	}
	var f strings.Builder
	if currency != "" {
		f.WriteString(`<fee:currency>` + currency + `</fee:currency>`)
	}
	for _, c := range commands {
		name, years, ok := strings.Cut(c, ":")
		f.WriteString(`<fee:command name="` + name + `">`)
		if ok {
			f.WriteString(`<fee:period unit="y">` + years + `</fee:period>`)
		}
		f.WriteString(`</fee:command>`)
	}
	return cmd(`<check><domain:check ` + dNS + `>` + b.String() + `</domain:check></check>` +
		`<extension><fee:check ` + feeNS + `>` + f.String() + `</fee:check></extension>`)
}

// withFee puts a <fee:EL> with a fee (and a currency) in a command frame.
func withFee(frame, el, currency, fee string) string {
	ext := `<fee:` + el + ` ` + feeNS + `>`
	if currency != "" {
		ext += `<fee:currency>` + currency + `</fee:currency>`
	}
	ext += `<fee:fee>` + fee + `</fee:fee></fee:` + el + `>`
	if strings.Contains(frame, "<extension>") {
		return strings.Replace(frame, "</extension>", ext+"</extension>", 1)
	}
	return strings.Replace(frame, "<clTRID>", "<extension>"+ext+"</extension><clTRID>", 1)
}

// validateClient checks client frames against the schemas with xmllint
// (the server's own frames are checked by every env at its end).
func validateClient(t *testing.T, frames []string) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		needTool(t, "xmllint", func() error { return err })
	}
	dir := t.TempDir()
	args := []string{"--noout", "--schema", filepath.Join("testdata", "xsd", "wrapper.xsd")}
	for i, f := range frames {
		p := filepath.Join(dir, fmt.Sprintf("client%03d.xml", i))
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	if out, err := exec.Command(xmllint, args...).CombinedOutput(); err != nil {
		t.Errorf("xmllint of the client's frames: %v\n%s", err, out)
	}
}

// TestFeeExtension drives RFC 8748 over EPP on both stores: the greeting
// and login list fee-1.0; <fee:check> prices 64 names (premium ones by
// class, invalid ones unavailable); a create whose agreed fee is below
// the price is refused 2004 (and one in another currency), one the
// balance cannot pay 2104, one that can is answered with the fee, the
// balance and the credit limit; a renew, a transfer request (charged at
// its approval) and a restore echo theirs; a delete in add grace echoes
// its credit. Every frame, the client's and the server's, validates
// against the RFC schemas (fee-1.0.xsd among them).
func TestFeeExtension(t *testing.T) {
	t.Parallel()
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			t.Parallel()
			lc := akshara.DefaultLifecycle() // add grace 5 days
			clk := registry.NewManualClock(registrytest.T0)
			svc := st.Service(t, registry.ServiceOptions{Clock: clk, Contacts: registrytest.NoContacts(), Lifecycle: map[string]akshara.ZoneLifecycle{"भारत": lc}})
			e := newEnvOn(t, svc, epp.Options{})
			ctx := t.Context()
			for _, p := range []registry.Price{
				{Zone: "भारत", Command: registry.BillCreate, Years: 1, Amount: 45000},
				{Zone: "भारत", Command: registry.BillRenew, Years: 1, Amount: 40000},
				{Zone: "भारत", Command: registry.BillTransfer, Years: 1, Amount: 35000},
				{Zone: "भारत", Command: registry.BillRestore, Years: 1, Amount: 200000},
				{Zone: "भारत", Command: registry.BillCreate, Years: 1, Label: "सोना", Amount: 2500000},
			} {
				p.From = registrytest.T0.Add(-time.Hour)
				if _, err := svc.SetPrice(ctx, p); err != nil {
					t.Fatal(err)
				}
			}
			if err := svc.SetTransferPolicy(ctx, "भारत", 5*24*time.Hour, 0); err != nil {
				t.Fatal(err)
			}
			var sent []string
			do := func(c *client, frame string) string {
				t.Helper()
				sent = append(sent, frame)
				return c.do(frame)
			}
			a := e.dial()
			if r := do(a, feeLoginFrame("acme", "secret12")); code(r) != 1000 {
				t.Fatalf("login with fee-1.0: %s", r)
			}
			g := e.dial()
			if r := do(g, feeLoginFrame("other", "secret34")); code(r) != 1000 {
				t.Fatalf("login: %s", r)
			}
			// <fee:check> of 64 names
			names := []string{"xn--11b4aya5ed.xn--h2brj9c", "सोना.भारत", "कमल.com"}
			for i := len(names); i < 64; i++ {
				names = append(names, registrytest.Label(i)+".भारत")
			}
			r := do(a, feeCheckFrame("INR", names, "create", "renew:2", "transfer", "restore", "delete"))
			if code(r) != 1000 || strings.Count(r, "<fee:cd ") != 64 {
				t.Fatalf("fee check: %.2000s", r)
			}
			for _, want := range []string{
				`<fee:currency>INR</fee:currency>`,
				`<fee:cd avail="1"><fee:objID>xn--11b4aya5ed.xn--h2brj9c</fee:objID><fee:class>standard</fee:class><fee:command name="create"><fee:period unit="y">1</fee:period><fee:fee description="create" refundable="1" grace-period="P5D">450.00</fee:fee></fee:command>` +
					`<fee:command name="renew"><fee:period unit="y">2</fee:period><fee:fee description="renew" refundable="1" grace-period="P5D">800.00</fee:fee></fee:command>` +
					`<fee:command name="transfer"><fee:period unit="y">1</fee:period><fee:fee description="transfer">350.00</fee:fee></fee:command>` +
					`<fee:command name="restore"><fee:fee description="restore">2000.00</fee:fee></fee:command>` +
					`<fee:command name="delete"><fee:fee description="delete">0.00</fee:fee></fee:command></fee:cd>`,
				`<fee:objID>सोना.भारत</fee:objID><fee:class>premium</fee:class><fee:command name="create"><fee:period unit="y">1</fee:period><fee:fee description="create" refundable="1" grace-period="P5D">25000.00</fee:fee>`,
			} {
				if !strings.Contains(r, want) {
					t.Errorf("fee check: no %s in %.3000s", want, r)
				}
			}
			if !regexp.MustCompile(`<fee:cd avail="0"><fee:objID>कमल.com</fee:objID><fee:reason>[^<]+</fee:reason></fee:cd>`).MatchString(r) {
				t.Errorf("fee check of an invalid name: %.3000s", r)
			}
			if r := do(a, feeCheckFrame("USD", names[:1], "create")); code(r) != 2004 {
				t.Errorf("fee check in USD: %s", r)
			}
			kitabCreate := createFrame(kitabA, "hi", kitab)
			if r := do(a, withFee(kitabCreate, "create", "INR", "449.99")); code(r) != 2004 || !strings.Contains(r, "costs ₹450.00") {
				t.Errorf("create with a fee below the price: %s", r)
			}
			if r := do(a, withFee(kitabCreate, "create", "USD", "450.00")); code(r) != 2004 {
				t.Errorf("create with a fee in USD: %s", r)
			}
			if r := do(a, withFee(kitabCreate, "create", "", "450.00")); code(r) != 2104 || !strings.Contains(r, "costs ₹450.00") || !strings.Contains(r, "has ₹0.00") {
				t.Errorf("create without a balance: %s", r)
			}
			if r := do(a, withFee(domainCmd("info", kitabA), "create", "", "450.00")); code(r) != 2001 {
				t.Errorf("<fee:create> on an info: %s", r)
			}
			for _, who := range []string{"acme", "other"} {
				if _, err := svc.Credit(ctx, who, 300000, registry.EntryCredit, "test"); err != nil {
					t.Fatal(err)
				}
			}
			r = do(a, withFee(kitabCreate, "create", "INR", "450.000"))
			if code(r) != 1000 || !strings.Contains(r, `<fee:creData `+feeNS+`><fee:currency>INR</fee:currency><fee:period unit="y">1</fee:period><fee:fee description="create" applied="immediate">450.00</fee:fee><fee:balance>2550.00</fee:balance></fee:creData>`) {
				t.Errorf("create with its fee: %s", r)
			}
			// a session without the fee extension in its command still
			// hears the fee (it logged in with fee-1.0)
			r = do(a, createFrame("xn--11b2dm.xn--h2brj9c", "hi", ""))
			if code(r) != 1000 || !strings.Contains(r, `<fee:fee description="create" applied="immediate">450.00</fee:fee><fee:balance>2100.00</fee:balance>`) {
				t.Errorf("create without <fee:create>: %s", r)
			}
			exp := registrytest.T0.AddDate(1, 0, 0).Format(time.DateOnly)
			r = do(a, withFee(renewFrame(kitabA, exp, "1y"), "renew", "", "400"))
			if code(r) != 1000 || !strings.Contains(r, `<fee:renData `+feeNS+`><fee:currency>INR</fee:currency><fee:period unit="y">1</fee:period><fee:fee description="renew" applied="immediate">400.00</fee:fee><fee:balance>1700.00</fee:balance></fee:renData>`) {
				t.Errorf("renew with its fee: %s", r)
			}
			// a delete in add grace: the create and the renew credited
			r = do(a, domainCmd("delete", "xn--11b2dm.xn--h2brj9c"))
			if code(r) != 1000 || !strings.Contains(r, `<fee:delData `+feeNS+`><fee:currency>INR</fee:currency><fee:credit description="refund of a grace period">-450.00</fee:credit><fee:balance>2150.00</fee:balance></fee:delData>`) {
				t.Errorf("delete in add grace: %s", r)
			}
			// a transfer request: its fee is charged at the approval
			clk.Advance(6 * 24 * time.Hour)
			if r := do(a, authInfoFrame(kitabA, `<domain:pw>Auth-Info-0001-strong</domain:pw>`)); code(r) != 1000 {
				t.Fatalf("authInfo: %s", r)
			}
			r = do(g, withFee(transferFrame("request", kitabA, "Auth-Info-0001-strong", ""), "transfer", "INR", "350.00"))
			if code(r) != 1001 || !strings.Contains(r, `<fee:trnData `+feeNS+`><fee:currency>INR</fee:currency><fee:period unit="y">1</fee:period><fee:fee description="transfer, charged at the approval" applied="delayed">350.00</fee:fee><fee:balance>3000.00</fee:balance></fee:trnData>`) {
				t.Errorf("transfer request with its fee: %s", r)
			}
			if r := do(a, transferFrame("approve", kitabA, "", "")); code(r) != 1000 {
				t.Fatalf("approve: %s", r)
			}
			if acc, err := svc.AccountOf(ctx, "other"); err != nil || acc.Balance != 265000 {
				t.Errorf("other after the approval: %+v, %v", acc, err)
			}
			// a restore with its fee
			if r := do(g, domainCmd("delete", kitabA)); code(r) != 1001 {
				t.Fatalf("delete: %s", r)
			}
			if r := do(g, withFee(restoreFrame(kitabA, "request"), "update", "", "1999.99")); code(r) != 2004 {
				t.Errorf("restore with a fee below the price: %s", r)
			}
			r = do(g, withFee(restoreFrame(kitabA, "request"), "update", "", "2000"))
			if code(r) != 1000 || !strings.Contains(r, `<fee:updData `+feeNS+`><fee:currency>INR</fee:currency><fee:fee description="restore" applied="immediate">2000.00</fee:fee><fee:balance>650.00</fee:balance></fee:updData>`) {
				t.Errorf("restore with its fee: %s", r)
			}
			validateClient(t, sent)
		})
	}
}

// TestNetEPPFee drives RFC 8748 with Debian's Net::EPP, a client we did
// not write (testdata/netfee.pl): the greeting's fee-1.0, a <fee:check>,
// a create refused below its price and one at it, a renew; every frame
// the server sends validates (serve's xmllint).
func TestNetEPPFee(t *testing.T) {
	t.Parallel()
	needNetEPP(t)
	e := newEnv(t, epp.Options{})
	ctx := t.Context()
	for _, p := range []registry.Price{
		{Zone: "भारत", Command: registry.BillCreate, Years: 1, Amount: 45000},
		{Zone: "भारत", Command: registry.BillRenew, Years: 1, Amount: 40000},
		{Zone: "भारत", Command: registry.BillRestore, Years: 1, Amount: 200000},
	} {
		p.From = time.Now().Add(-time.Hour)
		if _, err := e.svc.SetPrice(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.svc.Credit(ctx, "acme", 100000, registry.EntryCredit, "test"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`^greeting: fee-1.0 listed$`,
		`^login: 1000$`,
		`^fee check: कमल.भारत standard create=450.00 renew=800.00 restore=2000.00$`,
		`^fee check: xn--11b4aya5ed.xn--h2brj9c standard create=450.00 renew=800.00 restore=2000.00$`,
		`^create below the price: 2004$`,
		`^create: 1000 fee=450.00 balance=550.00$`,
		`^renew: 1000 fee=400.00 balance=150.00$`,
		`^logout: ok$`,
	}
	netEPP(t, e, "netfee.pl", want)
}

// BenchmarkFeeCheck: a domain <check> of 64 names with a <fee:check> of
// create, renew, transfer and restore, in a zone with a price list, one
// session: the latency of each (p50, p99) beside the same check without
// the fee extension. go test ./epp -run '^$' -bench FeeCheck
func BenchmarkFeeCheck(b *testing.B) {
	for _, st := range registrytest.StoresWith {
		b.Run(st.Name, func(b *testing.B) {
			svc := st.Service(b, registry.ServiceOptions{Contacts: registrytest.NoContacts()})
			e := newEnvOn(b, svc, epp.Options{})
			e.mu.Lock()
			e.norecord = true
			e.mu.Unlock()
			for _, c := range registry.BillableCommands {
				if _, err := svc.SetPrice(b.Context(), registry.Price{Zone: "भारत", Command: c, Years: 1, Amount: 45000, From: time.Now().Add(-time.Hour)}); err != nil {
					b.Fatal(err)
				}
			}
			names := make([]string, 64)
			for i := range names {
				names[i] = registrytest.Label(i) + ".भारत"
			}
			c := e.dialT(b)
			c.login("acme", "secret12")
			for _, fee := range []bool{false, true} {
				frame := domainCmd("check", names...)
				if fee {
					frame = feeCheckFrame("INR", names, "create", "renew", "transfer", "restore")
				}
				b.Run(fmt.Sprintf("fee=%v", fee), func(b *testing.B) {
					lat := make([]time.Duration, 0, b.N)
					b.ReportAllocs()
					b.ResetTimer()
					for range b.N {
						t0 := time.Now()
						r := c.do(frame)
						lat = append(lat, time.Since(t0))
						if code(r) != 1000 || (fee && strings.Count(r, "<fee:cd ") != 64) {
							b.Fatalf("check: %.300s", r)
						}
					}
					b.StopTimer()
					slices.Sort(lat)
					b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
					b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
				})
			}
		})
	}
}

// TestBalanceEdgeEPP: two EPP sessions of one registrar race creates of
// two names with a balance for exactly one, ten times, on both stores:
// each time one is answered 1000 and the other 2104 with the price and
// the balance left.
func TestBalanceEdgeEPP(t *testing.T) {
	t.Parallel()
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			t.Parallel()
			svc := st.Service(t, registry.ServiceOptions{Contacts: registrytest.NoContacts()})
			e := newEnvOn(t, svc, epp.Options{})
			ctx := t.Context()
			if _, err := svc.SetPrice(ctx, registry.Price{Zone: "भारत", Command: registry.BillCreate, Years: 1, Amount: 45000, From: time.Now().Add(-time.Hour)}); err != nil {
				t.Fatal(err)
			}
			s1, s2 := e.dial(), e.dial()
			s1.login("acme", "secret12")
			s2.login("acme", "secret12")
			for round := range 10 {
				if _, err := svc.Credit(ctx, "acme", 45000, registry.EntryCredit, "edge"); err != nil {
					t.Fatal(err)
				}
				rs := make([]string, 2)
				var wg sync.WaitGroup
				for i, c := range []*client{s1, s2} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						rs[i] = c.do(createFrame(registrytest.Label(2*round+i)+".भारत", "hi", ""))
					}()
				}
				wg.Wait()
				codes := []int{code(rs[0]), code(rs[1])}
				slices.Sort(codes)
				if codes[0] != 1000 || codes[1] != 2104 {
					t.Fatalf("round %d: %d and %d, want 1000 and 2104:\n%s\n%s", round, code(rs[0]), code(rs[1]), rs[0], rs[1])
				}
				refused := rs[0]
				if code(refused) != 2104 {
					refused = rs[1]
				}
				if !strings.Contains(refused, "Billing failure: the create of") || !strings.Contains(refused, "costs ₹450.00 and the account of acme has ₹0.00") {
					t.Errorf("round %d: the refusal: %s", round, refused)
				}
			}
			if a, err := svc.AccountOf(ctx, "acme"); err != nil || a.Balance != 0 {
				t.Errorf("acme's account after the races: %+v, %v", a, err)
			}
		})
	}
}
