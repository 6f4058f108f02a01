package billing

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/go-pdf/fpdf"
	"golang.org/x/net/idna"

	"github.com/akshara-idn/akshara/registry"
)

// PDF writes the statement and its tax invoice as a PDF (A4, the PDF
// core fonts, made with github.com/go-pdf/fpdf): page 1 the tax invoice
// (supplier and recipient with their GSTINs and states, the lines, the
// taxable value, CGST and SGST or IGST, the total), then the statement
// (opening balance, every entry, closing balance). The core fonts carry
// Latin-1 only: names are shown in their A-label form (the CSV has the
// U-labels), amounts as "Rs." with two decimals.
func (st *Statement) PDF(w io.Writer) error {
	p := fpdf.New("P", "mm", "A4", "")
	p.SetCompression(true)
	p.SetCreationDate(st.Issued)
	p.SetModificationDate(st.Issued)
	p.SetTitle("Statement and tax invoice "+st.InvoiceNumber, false)
	p.SetAuthor(ascii(st.Registry), false)
	p.SetAutoPageBreak(true, 15)
	p.AliasNbPages("{nb}")
	p.SetFooterFunc(func() {
		p.SetY(-12)
		p.SetFont("Helvetica", "", 7)
		p.CellFormat(0, 5, fmt.Sprintf("%s  %s  page %d of {nb}", ascii(st.Registrar), st.InvoiceNumber, p.PageNo()), "", 0, "C", false, 0, "")
	})
	p.AddPage()
	p.SetFont("Helvetica", "B", 14)
	p.CellFormat(0, 8, "TAX INVOICE", "", 1, "C", false, 0, "")
	p.SetFont("Helvetica", "", 9)
	p.CellFormat(0, 5, "Invoice "+st.InvoiceNumber+"   Date "+st.Issued.In(IST).Format("2006-01-02")+"   Period "+st.Month.String(), "", 1, "C", false, 0, "")
	p.Ln(3)
	half := 95.0
	y := p.GetY()
	party := func(x float64, title, name, addr, gstin, state string) {
		p.SetXY(x, y)
		p.SetFont("Helvetica", "B", 9)
		p.CellFormat(half, 5, title, "", 2, "L", false, 0, "")
		p.SetFont("Helvetica", "", 9)
		for _, l := range []string{name, addr, "GSTIN: " + orDash(gstin), "State code: " + orDash(state)} {
			if l != "" {
				p.CellFormat(half, 5, ascii(l), "", 2, "L", false, 0, "")
			}
		}
	}
	party(10, "Supplier (the registry)", orDash(st.Registry), st.RegistryAddress, st.RegistryGSTIN, st.RegistryState)
	legal := st.Account.LegalName
	if legal == "" {
		legal = st.Registrar
	}
	party(10+half, "Recipient (the registrar)", legal+" ("+st.Registrar+")", "", st.Account.GSTIN, st.Account.State)
	p.SetXY(10, y+28)
	supply := "Inter-state supply: IGST"
	if st.Tax.IntraState {
		supply = "Intra-state supply: CGST and SGST"
	}
	p.CellFormat(0, 5, supply+". Service: domain name registration (SAC 998319). Prices include GST at "+rateString(st.Tax.RateBP)+".", "", 1, "L", false, 0, "")
	p.Ln(2)
	head := func(cols []string, widths []float64) {
		p.SetFont("Helvetica", "B", 8)
		for i, c := range cols {
			p.CellFormat(widths[i], 6, c, "1", 0, "C", false, 0, "")
		}
		p.Ln(-1)
		p.SetFont("Helvetica", "", 8)
	}
	lw := []float64{60, 30, 30, 70}
	head([]string{"Command", "Charged", "Refunded", "Amount (Rs., GST included)"}, lw)
	for _, l := range st.Lines {
		p.CellFormat(lw[0], 6, l.Command, "1", 0, "L", false, 0, "")
		p.CellFormat(lw[1], 6, strconv.Itoa(l.Count), "1", 0, "R", false, 0, "")
		p.CellFormat(lw[2], 6, strconv.Itoa(l.Refunded), "1", 0, "R", false, 0, "")
		p.CellFormat(lw[3], 6, l.Amount.String(), "1", 1, "R", false, 0, "")
	}
	sum := func(label string, m registry.Money, bold bool) {
		if bold {
			p.SetFont("Helvetica", "B", 9)
		}
		p.CellFormat(lw[0]+lw[1]+lw[2], 6, label, "1", 0, "R", false, 0, "")
		p.CellFormat(lw[3], 6, m.String(), "1", 1, "R", false, 0, "")
		p.SetFont("Helvetica", "", 8)
	}
	t := st.Tax
	sum("Taxable value", t.Taxable, false)
	if t.IntraState {
		sum("CGST "+rateString(t.RateBP/2), t.CGST, false)
		sum("SGST "+rateString(t.RateBP-t.RateBP/2), t.SGST, false)
	} else {
		sum("IGST "+rateString(t.RateBP), t.IGST, false)
	}
	sum("Invoice total", t.Total, true)
	p.Ln(4)
	p.SetFont("Helvetica", "B", 12)
	p.CellFormat(0, 7, "STATEMENT OF ACCOUNT "+st.Month.String(), "", 1, "L", false, 0, "")
	p.SetFont("Helvetica", "", 9)
	p.CellFormat(0, 5, "Opening balance at "+st.Month.Start().Format("2006-01-02 15:04 MST")+": Rs. "+st.Opening.String(), "", 1, "L", false, 0, "")
	p.CellFormat(0, 5, fmt.Sprintf("Credits %s   Charges %s   Refunds %s   Adjustments %s", st.Credits, st.Debits, st.Refunds, st.Adjustments), "", 1, "L", false, 0, "")
	p.Ln(2)
	ew := []float64{14, 30, 18, 18, 62, 24, 24}
	cols := []string{"Entry", "Time (IST)", "Kind", "Command", "Domain", "Amount", "Balance"}
	head(cols, ew)
	for _, e := range st.Entries {
		if p.GetY() > 275 {
			p.AddPage()
			head(cols, ew)
		}
		name := e.Name
		if name != "" {
			if a, err := idna.Lookup.ToASCII(name); err == nil {
				name = a
			} else {
				name = ascii(name)
			}
		}
		if name == "" {
			name = ascii(e.Note)
		}
		cells := []string{strconv.FormatInt(e.ID, 10), e.At.In(IST).Format("2006-01-02 15:04"), e.Kind, e.Command, clipTo(name, 40), e.Amount.String(), e.Balance.String()}
		for i, c := range cells {
			align := "L"
			if i == 0 || i >= 5 {
				align = "R"
			}
			p.CellFormat(ew[i], 5, c, "1", 0, align, false, 0, "")
		}
		p.Ln(-1)
	}
	p.SetFont("Helvetica", "B", 9)
	p.CellFormat(0, 7, "Closing balance at "+st.Month.End().Format("2006-01-02 15:04 MST")+": Rs. "+st.Closing.String(), "", 1, "L", false, 0, "")
	if err := p.Error(); err != nil {
		return err
	}
	return p.Output(w)
}

// ascii keeps what the core fonts can show.
func ascii(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '?'
		}
		return r
	}, s)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}
