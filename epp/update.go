package epp

import (
	"fmt"
	"strings"

	"github.com/akshara-idn/akshara/registry"
)

// update is RFC 5731 §3.2.5's domain <update>: every part of it (the
// client* statuses of <domain:add> and <domain:rem>, contacts and the
// registrant, name servers, RFC 5910's DS records, the authInfo of
// <domain:chg>) read into one request and applied by one call of the
// registry service, in one transaction: all of it or none (RFC 5730
// §2.9). With RFC 3915's <rgp:update>, a restore. Host and contact
// updates go to host.go and contact.go.
func (ss *session) update(u *update, ext *cmdExt) *response {
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
	if ext != nil && ext.RGP != nil {
		return ss.restore(name, ext.RGP)
	}
	req := registry.DomainUpdate{Name: name}
	deleg, r := updateDelegation(u.Domain, ext) // host.go
	if r != nil {
		return r
	}
	req.AddNS, req.RemNS, req.AddDS, req.RemDS, req.RemAllDS = deleg.AddNS, deleg.RemNS, deleg.AddDS, deleg.RemDS, deleg.RemAllDS
	if req.AddContacts, req.RemContacts, req.Registrant, r = updateContacts(u.Domain); r != nil { // contact.go
		return r
	}
	for _, l := range []*updateList{u.Domain.Add, u.Domain.Rem} {
		if l != nil && len(l.Other) > 0 {
			return fail(CodeUnimplOption, fmt.Sprintf("%s: <domain:%s> in an update (this registry keeps statuses, contacts, name servers and the authInfo)", messages[CodeUnimplOption], l.Other[0].XMLName.Local))
		}
	}
	if u.Domain.Add != nil {
		for _, st := range u.Domain.Add.Status {
			req.AddStatuses = append(req.AddStatuses, strings.TrimSpace(st.S))
		}
	}
	if u.Domain.Rem != nil {
		for _, st := range u.Domain.Rem.Status {
			req.RemStatuses = append(req.RemStatuses, strings.TrimSpace(st.S))
		}
	}
	if u.Domain.Chg != nil && u.Domain.Chg.AuthInfo != nil {
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
		req.AuthInfo = &pw
	}
	ctx, cancel := ss.contextFor()
	defer cancel()
	if _, err := ss.s.svc.UpdateDomain(ctx, ss.registrar, req); err != nil {
		return ss.failed("update", name, err)
	}
	ss.log.Info("epp: updated", "name", name)
	return &response{code: CodeOK}
}

// restore is an <update> with RFC 3915's <rgp:restore>.
func (ss *session) restore(name string, rgp *rgpUpdate) *response {
	if rgp.Restore == nil {
		return fail(CodeMissing, messages[CodeMissing]+`: <rgp:restore op="request|report">`)
	}
	op := strings.TrimSpace(rgp.Restore.Op)
	if op != registry.RestoreRequest && op != registry.RestoreReport {
		return fail(CodeValueSyntax, messages[CodeValueSyntax]+`: <rgp:restore op> is request or report`)
	}
	ctx, cancel := ss.contextFor()
	defer cancel()
	d, err := ss.s.svc.RestoreDomain(ctx, ss.registrar, registry.DomainRestore{Name: name, Op: op})
	if err != nil {
		return ss.failed("restore", name, err)
	}
	ss.log.Info("epp: restore", "name", d.Name, "op", op)
	return &response{code: CodeOK}
}
