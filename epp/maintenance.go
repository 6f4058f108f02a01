package epp

import (
	"bytes"
	"strconv"
	"strings"

	"golang.org/x/net/idna"

	"github.com/akshara-idn/akshara/registry"
)

// Maintenance notifications (RFC 9167): <info><maint:info> reads a window
// (<maint:id>) or the list of them (<maint:list/>); a window's creation,
// change and cancellation reach every registrar as poll messages with
// <maint:infData> and its <maint:pollType>.

// NSMaint is RFC 9167's namespace.
const NSMaint = "urn:ietf:params:xml:ns:epp:maintenance-1.0"

// maintInfo is a <maint:info>: an id or the list.
type maintInfo struct {
	ID *struct {
		V string `xml:",chardata"`
	} `xml:"urn:ietf:params:xml:ns:epp:maintenance-1.0 id"`
	List *struct{} `xml:"urn:ietf:params:xml:ns:epp:maintenance-1.0 list"`
}

// dispatchMaint answers a <maint:info> (nil for another command).
func (ss *session) dispatchMaint(obj *object, verb string) *response {
	if obj == nil || obj.MInfo == nil || verb != "info" {
		return nil
	}
	ctx, cancel := ss.contextFor()
	defer cancel()
	mi := obj.MInfo
	switch {
	case mi.ID != nil && mi.List != nil:
		return fail(CodeSyntax, messages[CodeSyntax]+": <maint:info> holds a <maint:id> or a <maint:list/>, not both")
	case mi.List != nil:
		ms, err := ss.s.svc.Maintenances(ctx)
		if err != nil {
			return ss.failed("maintenance list", "", err)
		}
		var b bytes.Buffer
		b.WriteString(`<maint:infData xmlns:maint="` + NSMaint + `"><maint:list>`)
		for _, m := range ms {
			b.WriteString(`<maint:listItem>`)
			maintID(&b, m)
			b.WriteString(`<maint:start>` + m.Start.UTC().Format(timeFormat) + `</maint:start><maint:end>` + m.End.UTC().Format(timeFormat) + `</maint:end>`)
			maintDates(&b, m)
			b.WriteString(`</maint:listItem>`)
		}
		b.WriteString(`</maint:list></maint:infData>`)
		return &response{code: CodeOK, resData: b.String()}
	case mi.ID != nil && strings.TrimSpace(mi.ID.V) != "":
		m, err := ss.s.svc.MaintenanceInfo(ctx, strings.TrimSpace(mi.ID.V))
		if err != nil {
			return ss.failed("maintenance info", mi.ID.V, err)
		}
		return &response{code: CodeOK, resData: maintInfData(m, "")}
	}
	return fail(CodeMissing, messages[CodeMissing]+": <maint:info> holds a <maint:id> or a <maint:list/>")
}

func maintID(b *bytes.Buffer, m *registry.Maintenance) {
	b.WriteString(`<maint:id`)
	if m.Name != "" {
		b.WriteString(` name="`)
		esc(b, m.Name)
		b.WriteString(`"`)
	}
	b.WriteString(`>`)
	esc(b, m.ID)
	b.WriteString(`</maint:id>`)
}

func maintDates(b *bytes.Buffer, m *registry.Maintenance) {
	b.WriteString(`<maint:crDate>` + m.Created.UTC().Format(timeFormat) + `</maint:crDate>`)
	up := m.Updated
	if m.Cancelled.After(up) {
		up = m.Cancelled
	}
	if !up.IsZero() {
		b.WriteString(`<maint:upDate>` + up.UTC().Format(timeFormat) + `</maint:upDate>`)
	}
}

// maintInfData renders a window (with its poll type in a poll message).
func maintInfData(m *registry.Maintenance, pollType string) string {
	var b bytes.Buffer
	b.WriteString(`<maint:infData xmlns:maint="` + NSMaint + `"><maint:maint>`)
	maintID(&b, m)
	for _, t := range m.Types {
		b.WriteString(`<maint:type>`)
		esc(&b, t)
		b.WriteString(`</maint:type>`)
	}
	if pollType != "" {
		b.WriteString(`<maint:pollType>` + pollType + `</maint:pollType>`)
	}
	b.WriteString(`<maint:systems>`)
	for _, sy := range m.Systems {
		b.WriteString(`<maint:system><maint:name>`)
		esc(&b, sy.Name)
		b.WriteString(`</maint:name>`)
		if sy.Host != "" {
			b.WriteString(`<maint:host>`)
			esc(&b, sy.Host)
			b.WriteString(`</maint:host>`)
		}
		b.WriteString(`<maint:impact>` + sy.Impact + `</maint:impact></maint:system>`)
	}
	b.WriteString(`</maint:systems><maint:environment type="` + m.Environment + `"/>`)
	b.WriteString(`<maint:start>` + m.Start.UTC().Format(timeFormat) + `</maint:start><maint:end>` + m.End.UTC().Format(timeFormat) + `</maint:end>`)
	b.WriteString(`<maint:reason>` + m.Reason + `</maint:reason>`)
	if m.Detail != "" {
		b.WriteString(`<maint:detail>`)
		esc(&b, m.Detail)
		b.WriteString(`</maint:detail>`)
	}
	if m.Description != "" {
		b.WriteString(`<maint:description>`)
		esc(&b, m.Description)
		b.WriteString(`</maint:description>`)
	}
	if len(m.TLDs) > 0 {
		b.WriteString(`<maint:tlds>`)
		for _, t := range m.TLDs {
			a, err := idna.Punycode.ToASCII(t)
			if err != nil {
				a = t
			}
			b.WriteString(`<maint:tld>`)
			esc(&b, a)
			b.WriteString(`</maint:tld>`)
		}
		b.WriteString(`</maint:tlds>`)
	}
	b.WriteString(`<maint:intervention><maint:connection>` + strconv.FormatBool(m.Connection) + `</maint:connection><maint:implementation>` +
		strconv.FormatBool(m.Implementation) + `</maint:implementation></maint:intervention>`)
	maintDates(&b, m)
	b.WriteString(`</maint:maint></maint:infData>`)
	return b.String()
}

// withMaint renders a maintenance poll message's window.
func withMaint(r *response, m *registry.PollMessage) {
	if m.Maint != nil {
		r.resData = maintInfData(&m.Maint.Window, m.Maint.PollType)
	}
}
