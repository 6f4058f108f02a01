// Package billing makes the registry's monthly papers from its accounts,
// ledgers and audit log (issue 36; docs/billing.md): a registrar's
// statement with its Indian GST tax invoice (CSV and PDF), and the
// monthly transaction report of a zone (CSV), ICANN's columns with the
// IDN policy's beside them. It reads through registry.Service and
// decides nothing about money the registry did not decide: it adds up.
package billing

import (
	"fmt"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// IST is India Standard Time (UTC+05:30): a month of the registry's
// papers runs from its first day's midnight in India to the next
// month's.
var IST = time.FixedZone("IST", 5*3600+1800)

// Month is a calendar month in IST.
type Month struct {
	Year  int
	Month time.Month
}

// ParseMonth reads YYYY-MM.
func ParseMonth(s string) (Month, error) {
	t, err := time.ParseInLocation("2006-01", strings.TrimSpace(s), IST)
	if err != nil {
		return Month{}, fmt.Errorf("%q is not a month such as 2026-04 (YYYY-MM)", s)
	}
	return Month{t.Year(), t.Month()}, nil
}

// MonthOf is the month (in IST) of t.
func MonthOf(t time.Time) Month {
	t = t.In(IST)
	return Month{t.Year(), t.Month()}
}

// Start is the month's first instant; End the next month's.
func (m Month) Start() time.Time { return time.Date(m.Year, m.Month, 1, 0, 0, 0, 0, IST) }

// End is the first instant of the next month.
func (m Month) End() time.Time { return m.Start().AddDate(0, 1, 0) }

// Prev is the month before.
func (m Month) Prev() Month { return MonthOf(m.Start().Add(-time.Hour)) }

func (m Month) String() string { return fmt.Sprintf("%04d-%02d", m.Year, int(m.Month)) }

// DefaultGSTRate is the GST rate on a registry's services (18%, SAC
// 998319), in basis points.
const DefaultGSTRate = 1800

// Tax is the GST of an invoice. The registry's prices include GST (a
// prepaid balance pays the whole of each command): the taxable value is
// the total less the tax in it, rounded to the paisa, and the tax is the
// rest, split into CGST and SGST (half each, the paisa left over to
// SGST) when the registry and the registrar are in one state, IGST when
// they are not (or the registrar's state is not known).
type Tax struct {
	RateBP     int            `json:"rate_bp"` // the GST rate, basis points (1800: 18%)
	Total      registry.Money `json:"total"`   // the charges, tax included
	Taxable    registry.Money `json:"taxable"`
	CGST       registry.Money `json:"cgst"`
	SGST       registry.Money `json:"sgst"`
	IGST       registry.Money `json:"igst"`
	IntraState bool           `json:"intra_state"`
}

// ComputeTax splits total (tax included) at rateBP, within one state or
// across states.
func ComputeTax(total registry.Money, rateBP int, intra bool) Tax {
	t := Tax{RateBP: rateBP, Total: total, IntraState: intra}
	if total <= 0 {
		t.Total = 0
		return t
	}
	// taxable = total × 10000 / (10000 + rate), rounded half up, in integers
	den := int64(10000 + rateBP)
	t.Taxable = registry.Money((int64(total)*10000*2 + den) / (2 * den))
	tax := total - t.Taxable
	if intra {
		t.CGST = tax / 2
		t.SGST = tax - t.CGST
	} else {
		t.IGST = tax
	}
	return t
}

// rate reads the registry's GST rate setting (basis points).
func rate(settings map[string]string) (int, error) {
	v := settings[registry.SettingGSTRate]
	if v == "" {
		return DefaultGSTRate, nil
	}
	m, err := registry.ParseMoney(v)
	if err != nil {
		return 0, err
	}
	return int(m), nil
}

// rateString writes a rate in basis points as a percentage: "18%", "12.5%".
func rateString(bp int) string {
	s := registry.Money(bp).String()
	s = strings.TrimSuffix(strings.TrimSuffix(s, "0"), ".0")
	s = strings.TrimSuffix(s, ".")
	return s + "%"
}
