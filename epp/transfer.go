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
	var tr *registry.Transfer
	var err error
	switch op {
	case "request":
		tr, err = svc.RequestTransfer(ctx, ss.registrar, name, pw, years)
	case "query":
		tr, err = svc.QueryTransfer(ctx, ss.registrar, name, pw)
	case "approve":
		tr, err = svc.ApproveTransfer(ctx, ss.registrar, name)
	case "reject":
		tr, err = svc.RejectTransfer(ctx, ss.registrar, name)
	case "cancel":
		tr, err = svc.CancelTransfer(ctx, ss.registrar, name)
	default: // the schema's enumeration
		return fail(CodeSyntax, messages[CodeSyntax]+": <transfer op> is request, query, approve, reject or cancel")
	}
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
		}
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

// update is RFC 5731 §3.2.5's <update>: the client* statuses of
// <domain:add> and <domain:rem> (docs/lifecycle.md), the authInfo of
// <domain:chg>, or with RFC 3915's <rgp:update> a restore. Statuses are
// changed before the authInfo, each in a transaction of its own.
func (ss *session) update(u *update, ext *cmdExt) *response {
	var rgp *rgpUpdate
	if ext != nil {
		rgp = ext.RGP
	}
	if u.Domain == nil && u.Host != nil { // host.go
		return ss.dispatchDelegation(&object{HUpd: u.Host}, "update", ext)
	}
	if u.Domain == nil && u.Contact != nil { // contact.go
		return ss.dispatchContact(&object{CUpd: u.Contact}, "update", ext)
	}
	if u.Domain == nil {
		if len(u.Other) > 0 {
			return fail(CodeUnimplObject, fmt.Sprintf("%s: this registry serves domain objects only (%s)", messages[CodeUnimplObject], NSDomain))
		}
		return fail(CodeMissing, messages[CodeMissing]+": <update> holds a <domain:update>")
	}
	name, r := oneName(u.Domain.Names, "update")
	if r != nil {
		return r
	}
	// the name servers and DS records (host.go), read before anything
	// changes
	deleg, r := updateDelegation(u.Domain, ext)
	if r != nil {
		return r
	}
	cAdd, cRem, registrant, r := updateContacts(u.Domain) // contact.go
	if r != nil {
		return r
	}
	contactsChange := len(cAdd)+len(cRem) > 0 || registrant != ""
	ctx, cancel := ss.contextFor()
	defer cancel()
	if rgp != nil {
		if rgp.Restore == nil {
			return fail(CodeMissing, messages[CodeMissing]+`: <rgp:restore op="request|report">`)
		}
		op := strings.TrimSpace(rgp.Restore.Op)
		if op != registry.RestoreRequest && op != registry.RestoreReport {
			return fail(CodeValueSyntax, messages[CodeValueSyntax]+`: <rgp:restore op> is request or report`)
		}
		d, err := ss.s.svc.Restore(ctx, ss.registrar, name, op)
		if err != nil {
			return ss.failed("restore", name, err)
		}
		ss.log.Info("epp: restore", "name", d.Name, "op", op)
		return &response{code: CodeOK}
	}
	var add, rem []string
	for _, l := range []*updateList{u.Domain.Add, u.Domain.Rem} {
		if l != nil && len(l.Other) > 0 {
			return fail(CodeUnimplOption, fmt.Sprintf("%s: <domain:%s> in an update (this registry keeps statuses, name servers and the authInfo)", messages[CodeUnimplOption], l.Other[0].XMLName.Local))
		}
	}
	if u.Domain.Add != nil {
		for _, st := range u.Domain.Add.Status {
			add = append(add, strings.TrimSpace(st.S))
		}
	}
	if u.Domain.Rem != nil {
		for _, st := range u.Domain.Rem.Status {
			rem = append(rem, strings.TrimSpace(st.S))
		}
	}
	if len(add)+len(rem) > 0 {
		if _, err := ss.s.svc.UpdateStatuses(ctx, ss.registrar, name, add, rem); err != nil {
			return ss.failed("update", name, err)
		}
	}
	if contactsChange {
		if err := ss.s.svc.UpdateDomainContacts(ctx, ss.registrar, name, registry.DomainContactUpdate{Add: cAdd, Rem: cRem, Registrant: registrant}); err != nil {
			return ss.failed("update", name, err)
		}
		ss.log.Info("epp: contacts updated", "name", name)
	}
	if !emptyDelegation(deleg) {
		if err := ss.s.svc.UpdateDelegation(ctx, ss.registrar, name, deleg); err != nil {
			return ss.failed("update", name, err)
		}
		ss.log.Info("epp: delegation updated", "name", name)
	}
	if u.Domain.Chg == nil || u.Domain.Chg.AuthInfo == nil {
		if len(add)+len(rem) > 0 || !emptyDelegation(deleg) || contactsChange {
			return &response{code: CodeOK}
		}
		// nothing changes, but the registrar must sponsor the domain
		d, err := ss.s.svc.Info(ctx, name)
		if err != nil {
			return ss.failed("update", name, err)
		}
		if d.Registrar != ss.registrar.Name {
			return fromError(registry.Errorf(registry.CodeForbidden, "%s belongs to another registrar", d.Name))
		}
		return &response{code: CodeOK}
	}
	a := u.Domain.Chg.AuthInfo
	pw := ""
	switch {
	case a.Ext != nil:
		return fail(CodeUnimplOption, messages[CodeUnimplOption]+": <domain:ext> authorization information; this registry takes <domain:pw>")
	case a.Null != nil:
	case a.PW == nil:
		return fail(CodeMissing, messages[CodeMissing]+": <domain:authInfo> holds a <domain:pw> or <domain:null/>")
	default:
		pw = *a.PW
	}
	if err := ss.s.svc.SetAuthInfo(ctx, ss.registrar, name, pw); err != nil {
		return ss.failed("update", name, err)
	}
	ss.log.Info("epp: authInfo set", "name", name, "removed", pw == "")
	return &response{code: CodeOK}
}
