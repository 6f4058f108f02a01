package billing

import (
	"context"
	"encoding/csv"
	"io"
	"sort"
	"strconv"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/registry"
)

// The monthly report of a zone: a row per registrar and a TOTAL row, with
// the columns of ICANN's per-registrar transaction report (Registry
// Agreement, Specification 3) and the IDN policy's beside them. A count
// the audit log cannot give per registrar (the lifecycle's purges, the
// variants they freed) is in the TOTAL row alone; the zone's total of
// domains is exact there (those purged after the month counted back),
// while a registrar's row counts the domains it sponsors now that were
// registered at the month's end.

// Report is a zone's month.
type Report struct {
	Zone    string
	Month   Month
	Columns []string
	Rows    []ReportRow // the registrars, by name, then TOTAL
}

// ReportRow is one registrar's (or the TOTAL) counts.
type ReportRow struct {
	Registrar string
	Counts    map[string]int
}

// TotalRow is the registrar name of the zone's row.
const TotalRow = "TOTAL"

// The columns with one value a period: net-adds-1-yr … 10-yr and
// net-renews-1-yr … 10-yr.
func yearColumns(prefix string) []string {
	out := make([]string, 10)
	for i := range out {
		out[i] = prefix + "-" + strconv.Itoa(i+1) + "-yr"
	}
	return out
}

// registryActors are the audit log's actors that are not registrars.
var registryActors = map[string]bool{"lifecycle": true, "server": true, "operator": true, "": true}

// NewReport counts a zone's month.
func NewReport(ctx context.Context, svc *registry.Service, zone string, m Month) (*Report, error) {
	z, err := svc.Zone(zone)
	if err != nil {
		return nil, err
	}
	a, err := svc.ZoneActivity(ctx, z.Name, m.Start(), m.End())
	if err != nil {
		return nil, err
	}
	langs := append([]string(nil), z.Languages...)
	if z.LDH {
		langs = append(langs, registry.LDH)
	}
	cols := []string{"total-domains", "total-nameservers"}
	cols = append(cols, yearColumns("net-adds")...)
	cols = append(cols, yearColumns("net-renews")...)
	cols = append(cols, "transfer-gaining-successful", "transfer-gaining-nacked", "transfer-losing-successful", "transfer-losing-nacked",
		"deleted-domains-grace", "deleted-domains-nograce", "restored-domains", "restored-noreport", "attempted-adds",
		"creates", "exempt-creates", "auto-renews", "deleted-unpaid-autorenew", "purged")
	for _, l := range langs {
		cols = append(cols, "creates-"+l)
	}
	cols = append(cols, "refused-blocked-variant", "refused-invalid", "refused-billing", "variants-freed")
	rows := map[string]map[string]int{}
	row := func(r string) map[string]int {
		if registryActors[r] {
			r = TotalRow
		}
		if rows[r] == nil {
			rows[r] = map[string]int{}
		}
		return rows[r]
	}
	row(TotalRow)
	for r, n := range a.Domains {
		row(r)["total-domains"] += n
	}
	for r, n := range a.Hosts {
		row(r)["total-nameservers"] += n
	}
	requests := map[string]int{}
	for _, c := range a.Audit {
		rc := row(c.Registrar)
		ok := c.Result == "ok" || c.Result == "ok-grace" || c.Result == "ok-unpaid"
		switch c.Action {
		case "create":
			rc["attempted-adds"] += c.Count
			switch {
			case ok:
				rc["creates"] += c.Count
			case c.Result == registry.CodeConflict:
				rc["refused-blocked-variant"] += c.Count
			case c.Result == registry.CodeInvalid:
				rc["refused-invalid"] += c.Count
			case c.Result == registry.CodeBillingFailure:
				rc["refused-billing"] += c.Count
			}
		case "create-exempt":
			if ok {
				rc["exempt-creates"] += c.Count
			}
		case "delete":
			switch c.Result {
			case "ok-grace":
				rc["deleted-domains-grace"] += c.Count
				rc["purged"] += c.Count
			case "ok":
				rc["deleted-domains-nograce"] += c.Count
			}
		case "restore-report":
			if ok {
				rc["restored-domains"] += c.Count
			}
		case "restore-request":
			if ok {
				requests[c.Registrar] += c.Count
			}
		case "autorenew":
			if ok {
				rc["auto-renews"] += c.Count
			}
		case "expire":
			if c.Result == "ok-unpaid" {
				rc["deleted-unpaid-autorenew"] += c.Count
			}
		case "purge":
			if ok {
				rc["purged"] += c.Count
			}
		}
	}
	for r, n := range requests {
		rc := row(r)
		if k := n - rc["restored-domains"]; k > 0 {
			rc["restored-noreport"] += k
		}
	}
	for _, l := range a.Ledger {
		years := (l.Months + 11) / 12
		if years < 1 || years > 10 {
			continue
		}
		col := ""
		switch l.Command {
		case registry.BillCreate:
			col = "net-adds-" + strconv.Itoa(years) + "-yr"
		case registry.BillRenew, registry.BillAutoRenew:
			col = "net-renews-" + strconv.Itoa(years) + "-yr"
		default:
			continue
		}
		switch l.Kind {
		case registry.EntryDebit:
			row(l.Registrar)[col] += l.Count
		case registry.EntryRefund:
			row(l.Registrar)[col] -= l.Count
		}
	}
	for _, t := range a.Transfers {
		switch t.Status {
		case registry.TransferClientApproved, registry.TransferServerApproved:
			row(t.Gaining)["transfer-gaining-successful"] += t.Count
			row(t.Losing)["transfer-losing-successful"] += t.Count
		case registry.TransferClientRejected:
			row(t.Gaining)["transfer-gaining-nacked"] += t.Count
			row(t.Losing)["transfer-losing-nacked"] += t.Count
		}
	}
	for _, c := range a.CreatedByLang {
		row(c.Registrar)["creates-"+c.Lang] += c.Count
	}
	if len(a.Purged) > 0 {
		rel, err := akshara.NewZoneRelation(z.Languages)
		if err != nil {
			return nil, err
		}
		for _, label := range a.Purged {
			if set, ok := rel.ConflictSet(label); ok && len(set) > 1 {
				rows[TotalRow]["variants-freed"] += len(set) - 1
			}
		}
	}
	// TOTAL: the registrars' sums, and the zone's own counts
	total := rows[TotalRow]
	var names []string
	for r := range rows {
		if r != TotalRow {
			names = append(names, r)
		}
	}
	sort.Strings(names)
	for _, r := range names {
		for c, n := range rows[r] {
			total[c] += n
		}
	}
	total["total-domains"] += a.PurgedAfter
	rep := &Report{Zone: z.Name, Month: m, Columns: cols}
	for _, r := range names {
		rep.Rows = append(rep.Rows, ReportRow{Registrar: r, Counts: rows[r]})
	}
	rep.Rows = append(rep.Rows, ReportRow{Registrar: TotalRow, Counts: total})
	return rep, nil
}

// Total is a column of the TOTAL row.
func (r *Report) Total(col string) int { return r.Rows[len(r.Rows)-1].Counts[col] }

// CSV writes the report: a header, a row per registrar, the TOTAL row.
// The first columns are the zone, the month and the registrar.
func (r *Report) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(append([]string{"zone", "month", "registrar-name"}, r.Columns...))
	for _, row := range r.Rows {
		rec := []string{r.Zone, r.Month.String(), row.Registrar}
		for _, c := range r.Columns {
			rec = append(rec, strconv.Itoa(row.Counts[c]))
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}
