package epp

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// RFC 8748, the Registry Fee Extension (fee-1.0; docs/billing.md): the
// greeting and a login list it; <fee:check> with a domain <check> prices
// each name for the commands asked (create, renew, transfer, restore; a
// delete or an update is free), in INR, class standard or premium;
// <fee:create>, <fee:renew>, <fee:transfer> (op request) and
// <fee:update> (an RGP restore) carry the fee the client agrees to pay:
// a command whose price is above it is refused 2004 (and a currency
// other than INR), and the response echoes the fee charged, the balance
// and the credit limit. A delete that refunds a grace period echoes the
// credit in <fee:delData> to a session that logged in with fee-1.0.

// NSFee is RFC 8748's namespace.
const NSFee = "urn:ietf:params:xml:ns:epp:fee-1.0"

// feeCheck is a <fee:check>.
type feeCheck struct {
	Currency string       `xml:"urn:ietf:params:xml:ns:epp:fee-1.0 currency"`
	Commands []feeCommand `xml:"urn:ietf:params:xml:ns:epp:fee-1.0 command"`
}

type feeCommand struct {
	Name   string  `xml:"name,attr"`
	Phase  string  `xml:"phase,attr"`
	Period *period `xml:"urn:ietf:params:xml:ns:epp:fee-1.0 period"`
}

// feeTransform is a <fee:create>, <fee:renew>, <fee:transfer> or
// <fee:update>: the currency and the fees the client agrees to.
type feeTransform struct {
	Currency string   `xml:"urn:ietf:params:xml:ns:epp:fee-1.0 currency"`
	Fees     []string `xml:"urn:ietf:params:xml:ns:epp:fee-1.0 fee"`
	Credits  []string `xml:"urn:ietf:params:xml:ns:epp:fee-1.0 credit"`
}

// checkFee refuses a fee element on a command it does not go with.
func checkFee(c *command) *response {
	e := c.Ext
	if e == nil {
		return nil
	}
	wrong := func(el, with string) *response {
		return fail(CodeSyntax, messages[CodeSyntax]+": <fee:"+el+"> goes with a domain <"+with+">")
	}
	switch {
	case e.FeeCheck != nil && (c.Check == nil || c.Check.Domain == nil):
		return wrong("check", "check")
	case e.FeeCreate != nil && (c.Create == nil || c.Create.DCre == nil):
		return wrong("create", "create")
	case e.FeeRenew != nil && (c.Renew == nil || c.Renew.DRen == nil):
		return wrong("renew", "renew")
	case e.FeeTransfer != nil && (c.Transfer == nil || c.Transfer.Domain == nil || strings.TrimSpace(c.Transfer.Op) != "request"):
		return fail(CodeSyntax, messages[CodeSyntax]+": <fee:transfer> goes with a domain <transfer op=\"request\">")
	case e.FeeUpdate != nil && (c.Update == nil || c.Update.Domain == nil || e.RGP == nil):
		return fail(CodeSyntax, messages[CodeSyntax]+": <fee:update> goes with a domain <update> that restores (<rgp:restore>)")
	}
	return nil
}

// feeTransformOf returns the command's fee element, if it has one.
func feeTransformOf(c *command) *feeTransform {
	if c.Ext == nil {
		return nil
	}
	for _, f := range []*feeTransform{c.Ext.FeeCreate, c.Ext.FeeRenew, c.Ext.FeeTransfer, c.Ext.FeeUpdate} {
		if f != nil {
			return f
		}
	}
	return nil
}

// parseFee reads an amount of the fee extension (a decimal: "450",
// "450.5", "450.50", "450.500"): exactly, in paise; more than two
// decimals are refused unless they are zeros.
func parseFee(v string) (registry.Money, error) {
	v = strings.TrimSpace(v)
	if w, f, ok := strings.Cut(v, "."); ok && len(f) > 2 {
		if strings.Trim(f[2:], "0") != "" {
			return 0, fmt.Errorf("%q has more than two decimals: the registry charges whole paise", v)
		}
		v = w + "." + f[:2]
	}
	v = strings.TrimPrefix(v, "+")
	return registry.ParseMoney(v)
}

// dispatchFees runs a command with RFC 8748's fees: it reads the fee the
// client agrees to, hands it to the registry with the command's context
// (registry.WithFees), and echoes what the command charged; a login
// listing fee-1.0 makes the session one that is told its refunds; a
// <fee:check> is answered beside the check's result.
func (ss *session) dispatchFees(c *command) *response {
	if c.Login != nil {
		r := ss.dispatch(c)
		if r.code == CodeOK {
			ss.feeSession = slices.ContainsFunc(c.Login.Svcs.ExtURI, func(u string) bool { return strings.TrimSpace(u) == NSFee })
		}
		return r
	}
	if ss.registrar == nil || c.Logout != nil {
		return ss.dispatch(c)
	}
	ft := feeTransformOf(c)
	fees := &registry.Fees{}
	if ft != nil {
		fees.Currency = strings.TrimSpace(ft.Currency)
		var sum registry.Money
		for _, v := range ft.Fees {
			m, err := parseFee(v)
			if err != nil || m < 0 {
				return fail(CodeValueSyntax, messages[CodeValueSyntax]+": <fee:fee> is an amount in rupees (such as 450.00)")
			}
			sum += m
		}
		fees.Agreed = &sum
	}
	ss.fees = fees
	r := ss.dispatch(c)
	ss.fees = nil
	switch {
	case r.code >= 2000:
	case c.Check != nil && c.Ext != nil && c.Ext.FeeCheck != nil:
		if fr := ss.feeCheck(c); fr != nil {
			return fr
		}
		r.exts += ss.feeChkData
		ss.feeChkData = ""
	case ft != nil || (ss.feeSession && (fees.Priced || fees.Refunded > 0)):
		r.exts += feeResult(c, fees)
	}
	return r
}

// feeResult renders the fee a transform charged (or, for a transfer
// request, will charge at its approval) in the result element of the
// command.
func feeResult(c *command, f *registry.Fees) string {
	el, desc, applied := "", "", "immediate"
	switch {
	case c.Create != nil:
		el, desc = "creData", "create"
	case c.Renew != nil:
		el, desc = "renData", "renew"
	case c.Transfer != nil:
		el, desc, applied = "trnData", "transfer", "delayed"
	case c.Update != nil:
		el, desc = "updData", "restore"
	case c.Delete != nil:
		el = "delData"
	default:
		return ""
	}
	var b bytes.Buffer
	b.WriteString(`<fee:` + el + ` xmlns:fee="` + NSFee + `"><fee:currency>` + registry.Currency + `</fee:currency>`)
	if f.Months > 0 && el != "delData" && el != "updData" {
		b.WriteString(periodXML("fee", f.Months))
	}
	switch {
	case el == "delData":
		if f.Refunded > 0 {
			b.WriteString(`<fee:credit description="refund of a grace period">` + (-f.Refunded).String() + `</fee:credit>`)
		}
	case el == "trnData":
		b.WriteString(`<fee:fee description="` + desc + `, charged at the approval" applied="` + applied + `">` + f.Price.String() + `</fee:fee>`)
	default:
		b.WriteString(`<fee:fee description="` + desc + `" applied="` + applied + `">` + f.Charged.String() + `</fee:fee>`)
	}
	if f.Priced || f.Refunded > 0 {
		b.WriteString(`<fee:balance>` + f.Balance.String() + `</fee:balance>`)
		if f.Limit > 0 {
			b.WriteString(`<fee:creditLimit>` + f.Limit.String() + `</fee:creditLimit>`)
		}
	}
	b.WriteString(`</fee:` + el + `>`)
	return b.String()
}

// periodXML renders a domain:periodType of months (in years when whole).
func periodXML(prefix string, months int) string {
	if months%12 == 0 {
		return `<` + prefix + `:period unit="y">` + strconv.Itoa(months/12) + `</` + prefix + `:period>`
	}
	return `<` + prefix + `:period unit="m">` + strconv.Itoa(months) + `</` + prefix + `:period>`
}

// feeCommands maps fee-1.0's command names to the price lists'; the
// others (delete, update) are free.
var feeCommands = map[string]string{"create": registry.BillCreate, "renew": registry.BillRenew, "transfer": registry.BillTransfer, "restore": registry.BillRestore}

// feeCheck prices the names of a domain <check> for the commands of its
// <fee:check> (into ss.feeChkData), or refuses the check: a currency
// other than INR is 2004, as is a phase (this registry has none, RFC
// 8748 §3.5).
func (ss *session) feeCheck(c *command) *response {
	fc := c.Ext.FeeCheck
	if cur := strings.TrimSpace(fc.Currency); cur != "" && cur != registry.Currency {
		return fail(CodeRange, fmt.Sprintf("%s: this registry charges in %s, not %s", messages[CodeRange], registry.Currency, cur))
	}
	if len(fc.Commands) == 0 {
		return fail(CodeMissing, messages[CodeMissing]+": <fee:check> names at least one <fee:command>")
	}
	for _, fcmd := range fc.Commands {
		if strings.TrimSpace(fcmd.Phase) != "" {
			return fail(CodeRange, messages[CodeRange]+": this registry has no launch phases (<fee:command phase>)")
		}
	}
	// the billable commands' prices of every name, in one read of each
	// zone's price list
	var reqs []registry.QuoteRequest
	at := make([]int, len(fc.Commands)) // the request of each command (-1: none)
	for k, fcmd := range fc.Commands {
		per, bad := readPeriod(fcmd.Period)
		if bad != nil {
			return bad
		}
		at[k] = -1
		if bill, ok := feeCommands[strings.TrimSpace(fcmd.Name)]; ok {
			at[k] = len(reqs)
			reqs = append(reqs, registry.QuoteRequest{Command: bill, Period: per})
		}
	}
	names := make([]string, len(c.Check.Domain.Names))
	for i, n := range c.Check.Domain.Names {
		names[i] = strings.TrimSpace(n.V)
	}
	ctx, cancel := ss.contextFor()
	defer cancel()
	quotes, errs, err := ss.s.svc.QuoteAll(ctx, names, reqs)
	if err != nil {
		return ss.failed("fee check", "", err)
	}
	var b bytes.Buffer
	b.WriteString(`<fee:chkData xmlns:fee="` + NSFee + `"><fee:currency>` + registry.Currency + `</fee:currency>`)
	for i, name := range names {
		b.WriteString(`<fee:cd avail="` + strconv.Itoa(boolInt(errs[i] == nil)) + `"><fee:objID>`)
		esc(&b, name)
		b.WriteString(`</fee:objID>`)
		if errs[i] != nil {
			b.WriteString(`<fee:reason>`)
			esc(&b, registry.InfoOf(registry.CodeOf(errs[i])).Reason)
			b.WriteString(`</fee:reason></fee:cd>`)
			continue
		}
		class := "standard"
		for _, q := range quotes[i] {
			if q.Class == "premium" { // premium if any of its prices is its own
				class = q.Class
			}
		}
		b.WriteString(`<fee:class>` + class + `</fee:class>`)
		for k, fcmd := range fc.Commands {
			cname := strings.TrimSpace(fcmd.Name)
			b.WriteString(`<fee:command name="`)
			esc(&b, cname)
			b.WriteString(`">`)
			switch {
			case cname == "delete" || cname == "update":
				b.WriteString(`<fee:fee description="` + cname + `">0.00</fee:fee>`)
			case at[k] < 0:
				b.WriteString(`<fee:reason>not a command this registry prices</fee:reason>`)
			default:
				q := quotes[i][at[k]]
				if q.Command != registry.BillRestore {
					b.WriteString(periodXML("fee", q.Months))
				}
				b.WriteString(`<fee:fee description="` + cname + `"`)
				if q.Grace > 0 {
					b.WriteString(` refundable="1" grace-period="P` + strconv.Itoa(int(q.Grace/(24*time.Hour))) + `D"`)
				}
				b.WriteString(`>` + q.Amount.String() + `</fee:fee>`)
			}
			b.WriteString(`</fee:command>`)
		}
		b.WriteString(`</fee:cd>`)
	}
	b.WriteString(`</fee:chkData>`)
	ss.feeChkData = b.String()
	return nil
}
