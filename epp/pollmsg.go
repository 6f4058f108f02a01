package epp

import (
	"bytes"
	"strconv"

	"github.com/akshara-idn/akshara/registry"
)

// lifecycleData is the <resData> (and <extension>) of a lifecycle poll
// message that is neither a transfer's nor an auto-renewal's (issue 34
// item 12; registry/pollaction.go):
//
//   - a purge: RFC 5731 §3.3's <domain:panData>, the deletion it completes
//     (paResult="1", the deletion's transaction identifiers, the purge's
//     date), so that the registrar's software closes the <delete> it was
//     answered 1001 for;
//   - a deletion at expiry: the domain as it now is, a <domain:infData>
//     (name, roid, statuses, clID) with RFC 3915's <rgp:infData>
//     (redemptionPeriod).
//
// Both "" when the message lacks what they need (a purge whose deletion
// the audit log does not have): the message keeps its text.
func lifecycleData(m *registry.PollMessage, sponsor string) (resData, exts string) {
	switch m.Kind {
	case registry.PollPurge:
		p := m.Pending
		if p == nil {
			return "", ""
		}
		var b bytes.Buffer
		b.WriteString(`<domain:panData xmlns:domain="` + NSDomain + `"><domain:name paResult="` + strconv.Itoa(boolInt(p.OK)) + `">`)
		esc(&b, m.ALabel)
		b.WriteString(`</domain:name><domain:paTRID>`)
		if p.ClTRID != "" {
			b.WriteString(`<clTRID>`)
			esc(&b, clip(p.ClTRID, 64))
			b.WriteString(`</clTRID>`)
		}
		b.WriteString(`<svTRID>`)
		esc(&b, clip(p.SvTRID, 64))
		b.WriteString(`</svTRID></domain:paTRID><domain:paDate>` + p.Date.UTC().Format(timeFormat) + `</domain:paDate></domain:panData>`)
		return b.String(), ""
	case registry.PollDeletion:
		if m.DomainID == 0 {
			return "", ""
		}
		var b, e bytes.Buffer
		b.WriteString(`<domain:infData xmlns:domain="` + NSDomain + `"><domain:name>`)
		esc(&b, m.ALabel)
		b.WriteString(`</domain:name><domain:roid>D` + strconv.FormatInt(m.DomainID, 10) + `-AKSHARA</domain:roid>`)
		n := 0
		for _, st := range m.Statuses {
			if rgpStatus[st] {
				if e.Len() == 0 {
					e.WriteString(`<rgp:infData xmlns:rgp="` + NSRGP + `">`)
				}
				e.WriteString(`<rgp:rgpStatus s="` + st + `"/>`)
				continue
			}
			b.WriteString(`<domain:status s="` + st + `"/>`)
			n++
		}
		if n == 0 {
			b.WriteString(`<domain:status s="` + registry.StatusOK + `"/>`)
		}
		b.WriteString(`<domain:clID>`)
		esc(&b, clID(sponsor))
		b.WriteString(`</domain:clID></domain:infData>`)
		if e.Len() > 0 {
			e.WriteString(`</rgp:infData>`)
		}
		return b.String(), e.String()
	}
	return "", ""
}
