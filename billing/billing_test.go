package billing_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/billing"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

func TestComputeTax(t *testing.T) {
	for _, tt := range []struct {
		total                    registry.Money
		bp                       int
		intra                    bool
		taxable, cgst, sgst, igs registry.Money
	}{
		{118000, 1800, true, 100000, 9000, 9000, 0},
		{118000, 1800, false, 100000, 0, 0, 18000},
		{45000, 1800, true, 38136, 3432, 3432, 0},  // 450 / 1.18 = 381.355… -> 381.36
		{45001, 1800, true, 38136, 3432, 3433, 0},  // 450.01: tax 68.65, the odd paisa to SGST
		{45004, 1800, true, 38139, 3432, 3433, 0},  // 450.04: 381.389… -> 381.39
		{100, 0, false, 100, 0, 0, 0},              // no GST
		{0, 1800, true, 0, 0, 0, 0},                // nothing charged
		{-500, 1800, true, 0, 0, 0, 0},             // refunds above charges: no invoice value
		{112000, 1200, false, 100000, 0, 0, 12000}, // another rate
	} {
		got := billing.ComputeTax(tt.total, tt.bp, tt.intra)
		if got.Taxable != tt.taxable || got.CGST != tt.cgst || got.SGST != tt.sgst || got.IGST != tt.igs {
			t.Errorf("ComputeTax(%s, %d, %v) = %+v, want taxable %s cgst %s sgst %s igst %s", tt.total, tt.bp, tt.intra, got, tt.taxable, tt.cgst, tt.sgst, tt.igs)
		}
		if tt.total > 0 && got.Taxable+got.CGST+got.SGST+got.IGST != tt.total {
			t.Errorf("ComputeTax(%s): the parts do not add up to the total: %+v", tt.total, got)
		}
	}
}

func TestParseMonth(t *testing.T) {
	m, err := billing.ParseMonth("2026-04")
	if err != nil || m.String() != "2026-04" || !m.Start().Equal(time.Date(2026, 3, 31, 18, 30, 0, 0, time.UTC)) || m.Prev().String() != "2026-03" {
		t.Errorf("ParseMonth(2026-04) = %v (%v), starts %s", m, err, m.Start().UTC())
	}
	for _, bad := range []string{"2026-13", "2026", "26-04", "April", ""} {
		if _, err := billing.ParseMonth(bad); err == nil {
			t.Errorf("ParseMonth(%q) accepted", bad)
		}
	}
}

func FuzzParseMonth(f *testing.F) {
	for _, s := range []string{"2026-04", "0000-00", "9999-12", "2026-4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := billing.ParseMonth(s)
		if err != nil {
			return
		}
		if back, err := billing.ParseMonth(m.String()); err != nil || back != m {
			t.Fatalf("ParseMonth(%q) = %v, written %s, read back %v, %v", s, m, m, back, err)
		}
		if !m.End().After(m.Start()) {
			t.Fatalf("month %v ends before it starts", m)
		}
	})
}

// gstin completes a GSTIN with its check character.
func gstin(s string) string {
	const cs = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	sum := 0
	for i := 0; i < 14; i++ {
		p := strings.IndexByte(cs, s[i]) * (1 + i%2)
		sum += p/36 + p%36
	}
	return s + string(cs[(36-sum%36)%36])
}

// month is January 2030 (IST), in which registrytest.T0 falls.
var jan = billing.MonthOf(registrytest.T0)

// scenario runs a month of billing on a service: two registrars, one in
// the registry's state and one not; creates, a renew, a delete in add
// grace, a transfer, credits. It returns the service and its clock.
func scenario(t *testing.T) (*registry.Service, *registry.ManualClock) {
	t.Helper()
	ctx := context.Background()
	clk := registry.NewManualClock(registrytest.T0.Add(time.Hour))
	lc := akshara.DefaultLifecycle()
	lc.Redemption, lc.PendingDelete = 10*24*time.Hour, 2*24*time.Hour // a purge within a month
	svc := registrytest.SQLiteServiceWith(t, registry.ServiceOptions{Clock: clk, Contacts: registrytest.NoContacts(), Lifecycle: map[string]akshara.ZoneLifecycle{"भारत": lc}})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range map[string]string{registry.SettingName: "Example Registry Ltd", registry.SettingGSTIN: gstin("29AAACE1234F1Z"),
		registry.SettingAddress: "1 MG Road, Bengaluru", registry.SettingPrefix: "INV-"} {
		must(svc.SetBillingSetting(ctx, k, v))
	}
	acme, _, err := svc.AddRegistrar(ctx, "acme")
	must(err)
	other, _, err := svc.AddRegistrar(ctx, "other")
	must(err)
	ka, dl, legal := gstin("29AAACA1111A1Z"), gstin("07AAACO2222B1Z"), "Acme Domains Pvt Ltd"
	_, err = svc.SetAccount(ctx, "acme", registry.AccountSettings{GSTIN: &ka, LegalName: &legal})
	must(err)
	_, err = svc.SetAccount(ctx, "other", registry.AccountSettings{GSTIN: &dl})
	must(err)
	for _, p := range []registry.Price{
		{Zone: "भारत", Command: registry.BillCreate, Years: 1, Amount: 45000},
		{Zone: "भारत", Command: registry.BillRenew, Years: 1, Amount: 40000},
		{Zone: "भारत", Command: registry.BillTransfer, Years: 1, Amount: 35000},
	} {
		p.From = registrytest.T0
		_, err := svc.SetPrice(ctx, p)
		must(err)
	}
	must(svc.SetTransferPolicy(ctx, "भारत", 5*24*time.Hour, 0))
	_, err = svc.Credit(ctx, "acme", 500000, registry.EntryCredit, "NEFT UTR0001")
	must(err)
	_, err = svc.Credit(ctx, "other", 200000, registry.EntryCredit, "cheque 42")
	must(err)
	for _, n := range []string{"कमल.भारत", "कलश.भारत", "कदम.भारत"} {
		_, err := svc.CreateDomain(ctx, acme, registry.DomainCreate{Name: n, AuthInfo: "Auth-Info-0001-strong"})
		must(err)
	}
	d, err := svc.CreateDomain(ctx, other, registry.DomainCreate{Name: "कनक.भारत"})
	must(err)
	clk.Advance(24 * time.Hour)
	_, err = svc.RenewDomain(ctx, other, registry.DomainRenew{Name: "कनक.भारत", CurExpiry: d.Expires})
	must(err)
	_, err = svc.DeleteDomain(ctx, acme, registry.DomainDelete{Name: "कदम.भारत"}) // in add grace: refunded, purged
	must(err)
	// a refused create: a blocked variant (कित्ताब of किताब)
	_, err = svc.CreateDomain(ctx, acme, registry.DomainCreate{Name: "किताब.भारत", Lang: "hi"})
	must(err)
	if _, err := svc.CreateDomain(ctx, other, registry.DomainCreate{Name: "कित्ताब.भारत", Lang: "hi"}); registry.CodeOf(err) != registry.CodeConflict {
		t.Fatalf("the variant's create: %v", err)
	}
	clk.Advance(6 * 24 * time.Hour)
	_, err = svc.TransferDomain(ctx, other, registry.DomainTransfer{Name: "कलश.भारत", Op: registry.TransferRequestOp, AuthInfo: "Auth-Info-0001-strong"})
	must(err)
	_, err = svc.TransferDomain(ctx, acme, registry.DomainTransfer{Name: "कलश.भारत", Op: registry.TransferApproveOp})
	must(err)
	return svc, clk
}

// TestStatement: a registrar's month, as CSV and as PDF (read back with
// pdftotext): opening plus the entries is closing, the invoice's lines
// are the month's charges less refunds, its GST split within a state
// (CGST and SGST) or across (IGST).
func TestStatement(t *testing.T) {
	svc, clk := scenario(t)
	ctx := context.Background()
	st, err := billing.NewStatement(ctx, svc, "acme", jan, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	// acme: credit 5000; 4 creates (1800); a refund (450): charges 1350
	if st.Opening != 0 || st.Credits != 500000 || st.Debits != 180000 || st.Refunds != 45000 || st.Closing != 500000-180000+45000 {
		t.Errorf("acme's statement: opening %s credits %s debits %s refunds %s closing %s", st.Opening, st.Credits, st.Debits, st.Refunds, st.Closing)
	}
	if a, _ := svc.AccountOf(ctx, "acme"); a.Balance != st.Closing {
		t.Errorf("closing %s, the account's balance %s", st.Closing, a.Balance)
	}
	if len(st.Lines) != 1 || st.Lines[0].Command != "create" || st.Lines[0].Count != 4 || st.Lines[0].Refunded != 1 || st.Lines[0].Amount != 135000 {
		t.Errorf("acme's lines: %+v", st.Lines)
	}
	// 1350.00 including 18%: taxable 1144.07, CGST 102.96, SGST 102.97
	if tx := st.Tax; !tx.IntraState || tx.Total != 135000 || tx.Taxable != 114407 || tx.CGST != 10296 || tx.SGST != 10297 || tx.IGST != 0 {
		t.Errorf("acme's tax: %+v", tx)
	}
	var buf bytes.Buffer
	if err := st.CSV(&buf); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]int{}
	var sum registry.Money
	for _, r := range recs[1:] {
		sections[r[0]]++
		if r[0] == "entry" {
			m, err := registry.ParseMoney(r[9])
			if err != nil {
				t.Fatal(err)
			}
			sum += m
		}
		if r[0] == "invoice-total" && r[9] != "1350.00" {
			t.Errorf("CSV invoice total %s", r[9])
		}
		if r[0] == "closing" && r[10] != st.Closing.String() {
			t.Errorf("CSV closing %s", r[10])
		}
	}
	if sections["entry"] != len(st.Entries) || sections["opening"] != 1 || sections["closing"] != 1 || sections["invoice-cgst"] != 1 || sections["invoice-sgst"] != 1 || sections["invoice-igst"] != 0 {
		t.Errorf("CSV sections %v", sections)
	}
	if sum != st.Closing-st.Opening {
		t.Errorf("CSV entries sum to %s, want %s", sum, st.Closing-st.Opening)
	}
	if !strings.Contains(buf.String(), "कमल.भारत") && !bytes.Contains(mustCSV(t, st), []byte("कमल.भारत")) {
		t.Errorf("the CSV does not carry the U-labels")
	}
	text := pdfText(t, st)
	for _, want := range []string{"TAX INVOICE", "INV-2030-01-0001", "Example Registry Ltd", gstin("29AAACE1234F1Z"), gstin("29AAACA1111A1Z"),
		"Acme Domains Pvt Ltd", "Intra-state supply", "Taxable value", "1144.07", "CGST 9%", "102.96", "SGST 9%", "102.97", "Invoice total", "1350.00",
		"STATEMENT OF ACCOUNT 2030-01", "Opening balance", "Rs. 0.00", "Closing balance", "Rs. " + st.Closing.String(), "xn--11b2dm.xn--h2brj9c"} {
		if !strings.Contains(text, want) {
			t.Errorf("pdftotext: no %q in\n%s", want, text)
		}
	}
	// other: in another state: IGST; a renew and a transfer
	st, err = billing.NewStatement(ctx, svc, "other", jan, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	if tx := st.Tax; tx.IntraState || tx.Total != 45000+40000+35000 || tx.IGST != tx.Total-tx.Taxable || tx.CGST != 0 {
		t.Errorf("other's tax: %+v", tx)
	}
	text = pdfText(t, st)
	for _, want := range []string{"Inter-state supply", "IGST 18%", "1200.00", gstin("07AAACO2222B1Z")} {
		if !strings.Contains(text, want) {
			t.Errorf("pdftotext (other): no %q in\n%s", want, text)
		}
	}
	// February: nothing happened; opening is January's closing
	st, err = billing.NewStatement(ctx, svc, "other", jan.Prev(), clk.Now())
	if err != nil || st.Closing != 0 || len(st.Entries) != 0 {
		t.Errorf("December: %+v, %v", st, err)
	}
}

func mustCSV(t *testing.T, st *billing.Statement) []byte {
	var b bytes.Buffer
	if err := st.CSV(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pdfText writes the statement's PDF and reads it back with pdftotext
// (poppler-utils), which we did not write.
func pdfText(t *testing.T, st *billing.Statement) string {
	t.Helper()
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("pdftotext is required in CI (Debian poppler-utils): %v", err)
		}
		t.Skipf("pdftotext is not installed (Debian poppler-utils): %v", err)
	}
	var b bytes.Buffer
	if err := st.PDF(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b.Bytes(), []byte("%PDF-")) {
		t.Fatalf("not a PDF: %.20q", b.Bytes())
	}
	cmd := exec.Command(pdftotext, "-layout", "-", "-")
	cmd.Stdin = &b
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext: %v\n%s", err, out)
	}
	return string(out)
}

// TestMonthlyReport: a zone's month per registrar, and the invariant of
// the zone's total: a month's end is the month before's plus its creates
// less its purges, and it is the count of the zone's domains.
func TestMonthlyReport(t *testing.T) {
	svc, clk := scenario(t)
	ctx := context.Background()
	count := func() int {
		n := 0
		for _, r := range []string{"acme", "other"} {
			reg, err := svc.AccountOf(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			ds, err := svc.List(ctx, &registry.Registrar{ID: reg.RegistrarID, Name: r})
			if err != nil {
				t.Fatal(err)
			}
			n += len(ds)
		}
		return n
	}
	rep, err := billing.NewReport(ctx, svc, "भारत", jan)
	if err != nil {
		t.Fatal(err)
	}
	row := func(r string) map[string]int {
		for _, x := range rep.Rows {
			if x.Registrar == r {
				return x.Counts
			}
		}
		t.Fatalf("no row %s in %+v", r, rep.Rows)
		return nil
	}
	a, o := row("acme"), row("other")
	for _, c := range []struct {
		got, want int
		what      string
	}{
		{a["creates"], 4, "acme creates"}, {a["attempted-adds"], 4, "acme attempted"}, {a["net-adds-1-yr"], 3, "acme net adds"},
		{a["deleted-domains-grace"], 1, "acme grace deletes"}, {a["transfer-losing-successful"], 1, "acme lost"},
		{o["transfer-gaining-successful"], 1, "other gained"}, {o["net-renews-1-yr"], 1, "other renews"},
		{o["refused-blocked-variant"], 1, "other refused variant"}, {o["attempted-adds"], 2, "other attempted"},
		{a["creates-hi"], 2, "acme's creates in Hindi still registered and its own"}, {rep.Total("creates-hi"), 4, "the zone's creates in Hindi still registered"},
		{a["total-domains"], 2, "acme total"}, {o["total-domains"], 2, "other total"},
		{rep.Total("total-domains"), 4, "zone total"}, {rep.Total("creates"), 5, "zone creates"}, {rep.Total("purged"), 1, "zone purged"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.what, c.got, c.want)
		}
	}
	if got := count(); got != rep.Total("total-domains") {
		t.Errorf("the zone has %d domains, the report says %d", got, rep.Total("total-domains"))
	}
	// February: a delete, its purge; a create; the invariant
	clk.Set(jan.End().Add(time.Hour))
	feb := billing.MonthOf(clk.Now())
	acme := &registry.Registrar{Name: "acme"}
	ra, _ := svc.AccountOf(ctx, "acme")
	acme.ID = ra.RegistrarID
	if _, err := svc.DeleteDomain(ctx, acme, registry.DomainDelete{Name: "कमल.भारत"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateDomain(ctx, acme, registry.DomainCreate{Name: "करण.भारत"}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(13 * 24 * time.Hour)
	if _, err := svc.RunLifecycle(ctx, 0); err != nil {
		t.Fatal(err)
	}
	rep2, err := billing.NewReport(ctx, svc, "भारत", feb)
	if err != nil {
		t.Fatal(err)
	}
	if rep2.Total("purged") != 1 || rep2.Total("creates") != 1 {
		t.Errorf("February: purged %d, creates %d; want 1, 1", rep2.Total("purged"), rep2.Total("creates"))
	}
	if got, want := rep2.Total("total-domains"), rep.Total("total-domains")+rep2.Total("creates")+rep2.Total("exempt-creates")-rep2.Total("purged"); got != want {
		t.Errorf("invariant: February's total %d, want January's %d + creates %d - purges %d = %d", got, rep.Total("total-domains"), rep2.Total("creates"), rep2.Total("purged"), want)
	}
	if got := count(); got != rep2.Total("total-domains") {
		t.Errorf("February: the zone has %d domains, the report says %d", got, rep2.Total("total-domains"))
	}
	// January's report made again after February's purge: still January's total
	again, err := billing.NewReport(ctx, svc, "भारत", jan)
	if err != nil || again.Total("total-domains") != rep.Total("total-domains") {
		t.Errorf("January again, after a purge: %d (%v), want %d", again.Total("total-domains"), err, rep.Total("total-domains"))
	}
	var b bytes.Buffer
	if err := rep2.CSV(&b); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(recs) != len(rep2.Rows)+1 || recs[0][2] != "registrar-name" || recs[len(recs)-1][2] != billing.TotalRow {
		t.Errorf("report CSV: %v, %v", recs, err)
	}
	if rep2.Total("variants-freed") < 0 {
		t.Errorf("variants freed %d", rep2.Total("variants-freed"))
	}
}
