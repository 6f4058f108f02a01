package epp

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/akshara-idn/akshara/registry"
)

// Transfers (RFC 5731 §3.2.4), the poll queue (RFC 5730 §2.9.2.3) and the
// authInfo of <update>: each a call of the registry service, answered
// through the one code table.

// createAuthInfo reads a create's <domain:authInfo>: the password, "" for
// none (an empty <domain:pw/> sets none, RFC 9154 §4.1).
func createAuthInfo(a *authInfo) (string, *response) {
	switch {
	case a == nil:
		return "", nil
	case a.Ext != nil:
		return "", fail(CodeUnimplOption, messages[CodeUnimplOption]+": <domain:ext> authorization information; this registry takes <domain:pw>")
	case a.Null != nil:
		return "", fail(CodeSyntax, messages[CodeSyntax]+": <domain:null/> removes an authInfo in an <update> only")
	case a.PW == nil:
		return "", fail(CodeMissing, messages[CodeMissing]+": <domain:authInfo> holds a <domain:pw>")
	}
	return *a.PW, nil
}

// oneName reads the one <domain:name> of a command.
func oneName(ns []domainName, verb string) (string, *response) {
	switch {
	case len(ns) == 0:
		return "", fail(CodeMissing, messages[CodeMissing]+": <domain:name>")
	case len(ns) > 1:
		return "", fail(CodeSyntax, messages[CodeSyntax]+": one <domain:name> per "+verb)
	}
	n := strings.TrimSpace(ns[0].V)
	if n == "" {
		return "", fail(CodeMissing, messages[CodeMissing]+": an empty <domain:name>")
	}
	if utf8.RuneCountInString(n) > 255 {
		return "", fail(CodeValueSyntax, messages[CodeValueSyntax]+": a <domain:name> has at most 255 characters")
	}
	return n, nil
}

// trnData renders a transfer (RFC 5731 §3.2.4 <domain:trnData>).
func trnData(t *registry.Transfer) string {
	var b bytes.Buffer
	b.WriteString(`<domain:trnData xmlns:domain="` + NSDomain + `"><domain:name>`)
	esc(&b, t.ALabel)
	b.WriteString(`</domain:name><domain:trStatus>` + t.Status + `</domain:trStatus><domain:reID>`)
	esc(&b, clID(t.Gaining))
	b.WriteString(`</domain:reID><domain:reDate>` + t.Requested.UTC().Format(timeFormat) + `</domain:reDate><domain:acID>`)
	esc(&b, clID(t.Losing))
	b.WriteString(`</domain:acID><domain:acDate>` + t.ActDate.UTC().Format(timeFormat) + `</domain:acDate></domain:trnData>`)
	return b.String()
}

// failed maps a service error, logging internal ones.
func (ss *session) failed(what, name string, err error) *response {
	r := fromError(err)
	if r.code == CodeFailed {
		ss.log.Error("epp: "+what, "name", name, "error", err)
	}
	return r
}

func (ss *session) transfer(t *transfer) *response {
	if t.Domain == nil {
		if len(t.Other) > 0 && t.Other[0].XMLName.Space == NSCont {
			return fail(CodeUnimplemented, messages[CodeUnimplemented]+": contact transfers are not served: a contact stays with the registrar that created it (the gaining registrar of a domain creates its own and names them in a domain <update>)")
		}
		if len(t.Other) > 0 {
			return fail(CodeUnimplObject, fmt.Sprintf("%s: this registry serves domain objects only (%s)", messages[CodeUnimplObject], NSDomain))
		}
		return fail(CodeMissing, messages[CodeMissing]+": <transfer> holds a <domain:transfer>")
	}
	name, r := oneName(t.Domain.Names, "transfer")
	if r != nil {
		return r
	}
	pw := ""
	if a := t.Domain.AuthInfo; a != nil {
		if pw, r = createAuthInfo(a); r != nil {
			return r
		}
	}
	years := 0
	if p := t.Domain.Period; p != nil {
		n, err := strconv.Atoi(strings.TrimSpace(p.V))
		switch {
		case err != nil || n < 1 || n > 99:
			return fail(CodeValueSyntax, messages[CodeValueSyntax]+": <domain:period> is a number of 1 to 99")
		case strings.TrimSpace(p.Unit) == "m":
			return fail(CodeRange, messages[CodeRange]+": this registry's periods are whole years (unit=\"y\")")
		case strings.TrimSpace(p.Unit) != "y":
			return fail(CodeValueSyntax, messages[CodeValueSyntax]+": <domain:period unit> is y or m")
		}
		years = n
	}
	op := strings.TrimSpace(t.Op)
	if op != "request" && t.Domain.Period != nil {
		return fail(CodeSyntax, messages[CodeSyntax]+": a <domain:period> goes with op=\"request\" only")
	}
	ctx, cancel := ss.contextFor()
	defer cancel()
	svc := ss.s.svc
	switch op {
	case registry.TransferRequestOp, registry.TransferQueryOp, registry.TransferApproveOp, registry.TransferRejectOp, registry.TransferCancelOp:
	default: // the schema's enumeration
		return fail(CodeSyntax, messages[CodeSyntax]+": <transfer op> is request, query, approve, reject or cancel")
	}
	tr, err := svc.TransferDomain(ctx, ss.registrar, registry.DomainTransfer{Name: name, Op: op, AuthInfo: pw, Years: years})
	if err != nil {
		return ss.failed("transfer "+op, name, err)
	}
	code := CodeOK
	if op == "request" {
		code = CodePending // RFC 5731 §3.2.4: the action is pending
		ss.log.Info("epp: transfer requested", "name", tr.Name, "from", tr.Losing)
	}
	return &response{code: code, resData: trnData(tr)}
}

func (ss *session) poll(p *poll) *response {
	ctx, cancel := ss.contextFor()
	defer cancel()
	switch strings.TrimSpace(p.Op) {
	case "req":
		m, n, err := ss.s.svc.PollRequest(ctx, ss.registrar)
		if err != nil {
			return ss.failed("poll", "", err)
		}
		if m == nil {
			return &response{code: CodeNoMessages}
		}
		var b bytes.Buffer
		b.WriteString(`<msgQ count="` + strconv.Itoa(n) + `" id="` + strconv.FormatInt(m.ID, 10) + `"><qDate>` + m.Queued.UTC().Format(timeFormat) + `</qDate><msg lang="en">`)
		esc(&b, m.Text)
		b.WriteString(`</msg></msgQ>`)
		r := &response{code: CodeAckToDequeue, msgQ: b.String()}
		switch {
		case m.Transfer != nil:
			r.resData = trnData(m.Transfer)
		case !m.ExDate.IsZero():
			var d bytes.Buffer
			d.WriteString(`<domain:renData xmlns:domain="` + NSDomain + `"><domain:name>`)
			esc(&d, m.ALabel)
			d.WriteString(`</domain:name><domain:exDate>` + m.ExDate.UTC().Format(timeFormat) + `</domain:exDate></domain:renData>`)
			r.resData = d.String()
		default: // a purge, a deletion at expiry (pollmsg.go)
			r.resData, r.exts = lifecycleData(m, ss.registrar.Name)
		}
		withChange(r, m) // RFC 8590 (changepoll.go)
		withMaint(r, m)  // RFC 9167 (maintenance.go)
		return r
	case "ack":
		id, err := strconv.ParseInt(strings.TrimSpace(p.MsgID), 10, 64)
		if strings.TrimSpace(p.MsgID) == "" {
			return fail(CodeMissing, messages[CodeMissing]+": <poll op=\"ack\"> names the message (msgID)")
		}
		if err != nil || id <= 0 {
			return fail(CodeNotExists, messages[CodeNotExists]+": there is no message "+strings.TrimSpace(p.MsgID)+" in your queue")
		}
		left, err := ss.s.svc.PollAck(ctx, ss.registrar, id)
		if err != nil {
			return ss.failed("poll ack", "", err)
		}
		return &response{code: CodeOK, msgQ: `<msgQ count="` + strconv.Itoa(left) + `" id="` + strconv.FormatInt(id, 10) + `"/>`}
	}
	return fail(CodeSyntax, messages[CodeSyntax]+": <poll op> is req or ack") // required, of the schema's enumeration
}
