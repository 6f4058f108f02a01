package epp

import (
	"bytes"
	"strconv"

	"github.com/akshara-idn/akshara/registry"
)

// Change poll (RFC 8590): a poll message of a change the registrar did
// not make itself carries <changePoll:changeData> (what, when, who, why,
// and the server transaction) in its <extension>, and the object's info
// data, after the change or (state "before") as it was, in its
// <resData>: a transfer's message keeps its <domain:trnData>.

// NSChangePoll is RFC 8590's namespace.
const NSChangePoll = "urn:ietf:params:xml:ns:changePoll-1.0"

// changeData renders <changePoll:changeData>.
func changeData(c *registry.ChangeData) string {
	var b bytes.Buffer
	b.WriteString(`<changePoll:changeData xmlns:changePoll="` + NSChangePoll + `"`)
	if c.State == "before" {
		b.WriteString(` state="before"`)
	}
	b.WriteString(`><changePoll:operation`)
	if c.Op != "" {
		b.WriteString(` op="`)
		esc(&b, c.Op)
		b.WriteString(`"`)
	}
	b.WriteString(`>` + c.Operation + `</changePoll:operation><changePoll:date>` + c.Date.UTC().Format(timeFormat) + `</changePoll:date><changePoll:svTRID>`)
	esc(&b, clip(c.SvTRID, 64))
	b.WriteString(`</changePoll:svTRID><changePoll:who>`)
	who := c.Who
	if who == "" {
		who = "registry"
	}
	esc(&b, clip(who, 255))
	b.WriteString(`</changePoll:who>`)
	if c.Reason != "" {
		b.WriteString(`<changePoll:reason>`)
		esc(&b, clip(c.Reason, 32))
		b.WriteString(`</changePoll:reason>`)
	}
	b.WriteString(`</changePoll:changeData>`)
	return b.String()
}

// changeInfData renders the object of a change message as its info data
// (domain:infData or host:infData), in the state the message carries.
func changeInfData(m *registry.PollMessage) string {
	c := m.Change
	var b bytes.Buffer
	if c.Object == "host" {
		b.WriteString(`<host:infData xmlns:host="` + NSHost + `"><host:name>`)
		esc(&b, m.ALabel)
		b.WriteString(`</host:name><host:roid>H` + strconv.FormatInt(c.ObjectID, 10) + `-AKSHARA</host:roid>`)
		for _, s := range c.Statuses {
			b.WriteString(`<host:status s="`)
			esc(&b, s)
			b.WriteString(`"/>`)
		}
		objectSponsor(&b, "host", c.Sponsor, c.Created, c.Date)
		b.WriteString(`</host:infData>`)
		return b.String()
	}
	b.WriteString(`<domain:infData xmlns:domain="` + NSDomain + `"><domain:name>`)
	esc(&b, m.ALabel)
	b.WriteString(`</domain:name><domain:roid>D` + strconv.FormatInt(c.ObjectID, 10) + `-AKSHARA</domain:roid>`)
	for _, s := range c.Statuses {
		b.WriteString(`<domain:status s="`)
		esc(&b, s)
		b.WriteString(`"/>`)
	}
	b.WriteString(`<domain:clID>`)
	esc(&b, clID(c.Sponsor))
	b.WriteString(`</domain:clID>`)
	if !c.Created.IsZero() {
		b.WriteString(`<domain:crDate>` + c.Created.UTC().Format(timeFormat) + `</domain:crDate>`)
	}
	if !c.Expires.IsZero() {
		b.WriteString(`<domain:exDate>` + c.Expires.UTC().Format(timeFormat) + `</domain:exDate>`)
	}
	b.WriteString(`</domain:infData>`)
	return b.String()
}

// withChange adds a change message's change data (and, unless it is a
// transfer's, the object's info data) to a poll response.
func withChange(r *response, m *registry.PollMessage) {
	if m.Change == nil {
		return
	}
	r.exts += changeData(m.Change)
	if r.resData == "" && m.Transfer == nil {
		// the object's info, unless the message has its own data (a
		// purge's panData, a deletion's infData: pollmsg.go)
		r.resData = changeInfData(m)
	}
}
