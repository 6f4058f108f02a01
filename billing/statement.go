package billing

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// Statement is a registrar's month: the opening balance, every ledger
// entry, the closing balance, and the GST tax invoice of the month's
// charges.
type Statement struct {
	Month     Month
	Registrar string
	Account   *registry.Account
	// The registry, from its billing settings.
	Registry        string
	RegistryAddress string
	RegistryGSTIN   string
	RegistryState   string
	InvoiceNumber   string
	Issued          time.Time

	Opening registry.Money
	Entries []registry.LedgerEntry
	Closing registry.Money

	// The month's totals by kind.
	Credits, Debits, Refunds, Adjustments registry.Money
	// Lines are the charges by command (debits less refunds).
	Lines []Line
	Tax   Tax
}

// Line is a line of the invoice: the charges of one command in the month.
type Line struct {
	Command  string
	Count    int            // debits
	Refunded int            // refunds
	Amount   registry.Money // debits less refunds, tax included
}

// NewStatement reads a registrar's month from the registry. The opening
// and closing balances are the sums of the entries before the month and
// before its end, so that opening plus the month's entries is closing,
// exactly.
func NewStatement(ctx context.Context, svc *registry.Service, registrar string, m Month, issued time.Time) (*Statement, error) {
	a, err := svc.AccountOf(ctx, registrar)
	if err != nil {
		return nil, err
	}
	set, err := svc.BillingSettings(ctx)
	if err != nil {
		return nil, err
	}
	bp, err := rate(set)
	if err != nil {
		return nil, err
	}
	open, err := svc.Balance(ctx, registrar, m.Start())
	if err != nil {
		return nil, err
	}
	es, err := svc.Ledger(ctx, registry.LedgerFilter{RegistrarID: a.RegistrarID, Since: m.Start(), Until: m.End()})
	if err != nil {
		return nil, err
	}
	st := &Statement{Month: m, Registrar: a.Registrar, Account: a, Registry: set[registry.SettingName], RegistryAddress: set[registry.SettingAddress],
		RegistryGSTIN: set[registry.SettingGSTIN], RegistryState: set[registry.SettingState], Issued: issued,
		Opening: open, Entries: es, Closing: open}
	if st.RegistryState == "" && len(st.RegistryGSTIN) >= 2 {
		st.RegistryState = st.RegistryGSTIN[:2]
	}
	st.InvoiceNumber = fmt.Sprintf("%s%s-%04d", set[registry.SettingPrefix], m.String(), a.RegistrarID)
	lines := map[string]*Line{}
	for _, e := range es {
		st.Closing += e.Amount
		switch e.Kind {
		case registry.EntryCredit:
			st.Credits += e.Amount
		case registry.EntryAdjustment:
			st.Adjustments += e.Amount
		case registry.EntryDebit, registry.EntryRefund:
			l := lines[e.Command]
			if l == nil {
				l = &Line{Command: e.Command}
				lines[e.Command] = l
			}
			l.Amount -= e.Amount
			if e.Kind == registry.EntryDebit {
				st.Debits -= e.Amount
				l.Count++
			} else {
				st.Refunds += e.Amount
				l.Refunded++
			}
		}
	}
	for _, c := range registry.BillableCommands {
		if l := lines[c]; l != nil {
			st.Lines = append(st.Lines, *l)
			delete(lines, c)
		}
	}
	var rest []string
	for c := range lines {
		rest = append(rest, c)
	}
	sort.Strings(rest)
	for _, c := range rest {
		st.Lines = append(st.Lines, *lines[c])
	}
	intra := st.RegistryState != "" && st.RegistryState == a.State
	st.Tax = ComputeTax(st.Debits-st.Refunds, bp, intra)
	return st, nil
}

// CSV writes the statement as one table: a row per entry between the
// opening and closing rows, then the invoice's lines and its tax. The
// columns: section, id, at, kind, command, zone, name, months, price,
// amount, balance, audit_id, note (amounts in rupees, two decimals).
func (st *Statement) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	row := func(v ...string) { cw.Write(v) }
	row("section", "id", "at", "kind", "command", "zone", "name", "months", "price", "amount", "balance", "audit_id", "note")
	row("statement", "", st.Month.String(), "", "", "", st.Registrar, "", "", "", "", "", "invoice "+st.InvoiceNumber)
	row("opening", "", st.Month.Start().Format(time.RFC3339), "", "", "", "", "", "", "", st.Opening.String(), "", "")
	for _, e := range st.Entries {
		row("entry", strconv.FormatInt(e.ID, 10), e.At.In(IST).Format(time.RFC3339), e.Kind, e.Command, e.Zone, e.Name, months(e.Months),
			e.Price.String(), e.Amount.String(), e.Balance.String(), id(e.AuditID), e.Note)
	}
	row("closing", "", st.Month.End().Format(time.RFC3339), "", "", "", "", "", "", "", st.Closing.String(), "", "")
	for _, l := range st.Lines {
		row("invoice-line", "", "", "", l.Command, "", "", "", "", l.Amount.String(), "", "", fmt.Sprintf("%d charged, %d refunded", l.Count, l.Refunded))
	}
	t := st.Tax
	row("invoice-taxable", "", "", "", "", "", "", "", "", t.Taxable.String(), "", "", "GST "+rateString(t.RateBP)+" included in the prices")
	if t.IntraState {
		row("invoice-cgst", "", "", "", "", "", "", "", "", t.CGST.String(), "", "", rateString(t.RateBP/2))
		row("invoice-sgst", "", "", "", "", "", "", "", "", t.SGST.String(), "", "", rateString(t.RateBP-t.RateBP/2))
	} else {
		row("invoice-igst", "", "", "", "", "", "", "", "", t.IGST.String(), "", "", rateString(t.RateBP))
	}
	row("invoice-total", "", "", "", "", "", "", "", "", t.Total.String(), "", "", "")
	cw.Flush()
	return cw.Error()
}

func months(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func id(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}
