package epp

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// Host objects (RFC 5732) and the name servers of domains (RFC 5731
// domain:ns, hostObj only); docs/delegation.md. The registry does the
// work (registry/hosts.go); this file parses and maps codes.

// hostOp is a <host:check|info|create|delete|update>.
type hostOp struct {
	Names []domainName `xml:"urn:ietf:params:xml:ns:host-1.0 name"`
	Addrs []hostAddr   `xml:"urn:ietf:params:xml:ns:host-1.0 addr"`
	Add   *hostAddRem  `xml:"urn:ietf:params:xml:ns:host-1.0 add"`
	Rem   *hostAddRem  `xml:"urn:ietf:params:xml:ns:host-1.0 rem"`
	Chg   *struct {
		Name string `xml:"urn:ietf:params:xml:ns:host-1.0 name"`
	} `xml:"urn:ietf:params:xml:ns:host-1.0 chg"`
}

type hostAddr struct {
	IP string `xml:"ip,attr"`
	V  string `xml:",chardata"`
}

type hostAddRem struct {
	Addrs    []hostAddr   `xml:"urn:ietf:params:xml:ns:host-1.0 addr"`
	Statuses []statusElem `xml:"urn:ietf:params:xml:ns:host-1.0 status"`
}

type statusElem struct {
	S string `xml:"s,attr"`
}

// domainNS is a <domain:ns>.
type domainNS struct {
	HostObj  []domainName `xml:"urn:ietf:params:xml:ns:domain-1.0 hostObj"`
	HostAttr []anyElem    `xml:"urn:ietf:params:xml:ns:domain-1.0 hostAttr"`
}

// servedObject reports whether the server serves an object namespace.
func servedObject(u string) bool { return u == NSDomain || u == NSHost || u == NSCont }

// servedExtension reports whether the server implements an extension.
func servedExtension(u string) bool {
	return u == NSIDN || u == NSRGP || u == NSSecDNS || u == NSLoginSec || u == NSFee || u == NSChangePoll || u == NSMaint // loginsec.go, fee.go, changepoll.go, maintenance.go
}

// hostOpOf returns the host operation of an object, if it is one.
func (o *object) hostOp() *hostOp {
	for _, h := range []*hostOp{o.HCheck, o.HInfo, o.HCre, o.HDel, o.HUpd} {
		if h != nil {
			return h
		}
	}
	return nil
}

// dispatchDelegation runs host commands and domain updates; nil for the
// others.
func (ss *session) dispatchDelegation(obj *object, verb string, ext *cmdExt) *response {
	if verb != "create" && verb != "update" && ext != nil && (ext.SecCreate != nil || ext.SecUpdate != nil) {
		return fail(CodeSyntax, messages[CodeSyntax]+": <secDNS:create> goes with a domain <create>, <secDNS:update> with a domain <update>")
	}
	h := obj.hostOp()
	if h == nil {
		if verb == "update" && len(obj.Other) == 0 {
			return fail(CodeMissing, messages[CodeMissing]+": <update> holds a <domain:update> or a <host:update>")
		}
		return nil
	}
	if ext != nil && (ext.IDN != nil || ext.SecCreate != nil || ext.SecUpdate != nil) {
		return fail(CodeSyntax, messages[CodeSyntax]+": a host command takes no extension")
	}
	names, r := objectNames(h.Names, "host:name", "names", verb, 1, 255) // commands.go
	if r != nil {
		return r
	}
	ctx, cancel := ss.contextFor()
	defer cancel()
	svc := ss.s.svc
	switch verb {
	case "check":
		items := make([]checked, len(names))
		for i, n := range names {
			c, err := svc.CheckHost(ctx, n)
			if err != nil {
				return ss.hostError("check", n, err)
			}
			items[i] = checked{c.Name, c.Avail, c.Reason}
		}
		return &response{code: CodeOK, resData: chkData("host", NSHost, "name", items)} // commands.go
	case "create":
		ho, err := svc.CreateHost(ctx, ss.registrar, registry.HostCreate{Name: names[0], Addrs: addrs(h.Addrs)})
		if err != nil {
			return ss.hostError("create", names[0], err)
		}
		var b bytes.Buffer
		b.WriteString(`<host:creData xmlns:host="` + NSHost + `"><host:name>`)
		esc(&b, ho.Name)
		b.WriteString(`</host:name><host:crDate>` + ho.Created.UTC().Format(timeFormat) + `</host:crDate></host:creData>`)
		ss.log.Info("epp: host created", "name", ho.Name)
		return &response{code: CodeOK, resData: b.String()}
	case "info":
		ho, err := svc.HostInfo(ctx, names[0])
		if err != nil {
			return ss.hostError("info", names[0], err)
		}
		return &response{code: CodeOK, resData: hostInfData(ho)}
	case "delete":
		if err := svc.DeleteHost(ctx, ss.registrar, registry.HostDelete{Name: names[0]}); err != nil {
			return ss.hostError("delete", names[0], err)
		}
		ss.log.Info("epp: host deleted", "name", names[0])
		return &response{code: CodeOK}
	case "update":
		u := registry.HostUpdate{Name: names[0]}
		if h.Add != nil {
			u.AddAddrs, u.AddStatuses = addrs(h.Add.Addrs), statuses(h.Add.Statuses)
		}
		if h.Rem != nil {
			u.RemAddrs, u.RemStatuses = addrs(h.Rem.Addrs), statuses(h.Rem.Statuses)
		}
		if h.Chg != nil {
			if u.NewName = strings.TrimSpace(h.Chg.Name); u.NewName == "" {
				return fail(CodeMissing, messages[CodeMissing]+": <host:chg> holds the new <host:name>")
			}
		}
		if err := svc.UpdateHost(ctx, ss.registrar, u); err != nil {
			return ss.hostError("update", names[0], err)
		}
		ss.log.Info("epp: host updated", "name", names[0])
		return &response{code: CodeOK}
	}
	return fail(CodeUnimplemented, fmt.Sprintf("%s: <host:%s>", messages[CodeUnimplemented], verb))
}

func (ss *session) hostError(verb, name string, err error) *response {
	r := fromError(err)
	if r.code == CodeFailed {
		ss.log.Error("epp: host "+verb, "name", name, "error", err)
	}
	return r
}

func addrs(in []hostAddr) []registry.Addr {
	out := make([]registry.Addr, len(in))
	for i, a := range in {
		f := strings.TrimSpace(a.IP)
		if f == "" {
			f = "v4" // the schema's default
		}
		out[i] = registry.Addr{IP: strings.TrimSpace(a.V), Family: f}
	}
	return out
}

func statuses(in []statusElem) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = strings.TrimSpace(s.S)
	}
	return out
}

// hostInfData renders a host's <host:infData>.
func hostInfData(h *registry.Host) string {
	var b bytes.Buffer
	b.WriteString(`<host:infData xmlns:host="` + NSHost + `"><host:name>`)
	esc(&b, h.Name)
	b.WriteString(`</host:name><host:roid>H` + strconv.FormatInt(h.ID, 10) + `-AKSHARA</host:roid>`)
	objectStatuses(&b, "host", h.Statuses, h.Linked)
	for _, a := range h.Addrs {
		ip := "v4"
		if strings.Contains(a, ":") {
			ip = "v6"
		}
		b.WriteString(`<host:addr ip="` + ip + `">`)
		esc(&b, a)
		b.WriteString(`</host:addr>`)
	}
	objectSponsor(&b, "host", h.Registrar, h.Created, h.Updated)
	b.WriteString(`</host:infData>`)
	return b.String()
}

// objectStatuses writes a host's or contact's <P:status> elements: ok
// when it has no client status, linked when a domain names it.
func objectStatuses(b *bytes.Buffer, p string, statuses []string, linked bool) {
	if len(statuses) == 0 {
		b.WriteString(`<` + p + `:status s="ok"/>`)
	}
	for _, s := range statuses {
		b.WriteString(`<` + p + `:status s="`)
		esc(b, s)
		b.WriteString(`"/>`)
	}
	if linked {
		b.WriteString(`<` + p + `:status s="linked"/>`)
	}
}

// objectSponsor writes a host's or contact's <P:clID>, <P:crID> (its
// registrar: the one that created it sponsors it), crDate and upDate.
func objectSponsor(b *bytes.Buffer, p, registrar string, created, updated time.Time) {
	b.WriteString(`<` + p + `:clID>`)
	esc(b, clID(registrar))
	b.WriteString(`</` + p + `:clID><` + p + `:crID>`)
	esc(b, clID(registrar))
	b.WriteString(`</` + p + `:crID><` + p + `:crDate>` + created.UTC().Format(timeFormat) + `</` + p + `:crDate>`)
	if updated.After(created) {
		b.WriteString(`<` + p + `:upDate>` + updated.UTC().Format(timeFormat) + `</` + p + `:upDate>`)
	}
}

// nameServers reads a <domain:ns>: hostObj names; hostAttr is refused
// (no zone of this registry takes name servers as attributes).
func nameServers(ns *domainNS) ([]string, *response) {
	if ns == nil {
		return nil, nil
	}
	if len(ns.HostAttr) > 0 {
		return nil, fail(CodePolicy, messages[CodePolicy]+": the zones of this registry take name servers as host objects (<domain:hostObj>) only, not <domain:hostAttr>; create the host with <host:create> first")
	}
	out := make([]string, 0, len(ns.HostObj))
	for _, h := range ns.HostObj {
		n := strings.TrimSpace(h.V)
		if n == "" {
			return nil, fail(CodeMissing, messages[CodeMissing]+": an empty <domain:hostObj>")
		}
		out = append(out, n)
	}
	return out, nil
}

// createDelegation reads the name servers and DS records of a domain
// create.
func createDelegation(op *domainOp, ext *cmdExt) (ns []string, ds []registry.DS, r *response) {
	if ns, r = nameServers(op.NS); r != nil {
		return nil, nil, r
	}
	if ext != nil && ext.SecUpdate != nil {
		return nil, nil, fail(CodeSyntax, messages[CodeSyntax]+": <secDNS:update> goes with a domain <update>")
	}
	if ext != nil && ext.SecCreate != nil {
		if ds, r = ext.SecCreate.records(); r != nil {
			return nil, nil, r
		}
	}
	return ns, ds, nil
}

// updateDelegation reads the name servers of a domain <update>'s
// <domain:add> and <domain:rem> and its <secDNS:update>: the change of
// the delegation (empty: none).
func updateDelegation(u *domainUpdate, ext *cmdExt) (registry.Delegation, *response) {
	var d registry.Delegation
	if ext != nil && ext.SecCreate != nil {
		return d, fail(CodeSyntax, messages[CodeSyntax]+": <secDNS:create> goes with a domain <create>")
	}
	if ext != nil && ext.IDN != nil {
		return d, fail(CodeSyntax, messages[CodeSyntax]+": <idn:data> goes with a domain <create>")
	}
	for _, ar := range []struct {
		x  *updateList
		ns *[]string
	}{{u.Add, &d.AddNS}, {u.Rem, &d.RemNS}} {
		if ar.x == nil || ar.x.NS == nil {
			continue
		}
		ns, r := nameServers(ar.x.NS)
		if r != nil {
			return d, r
		}
		*ar.ns = ns
	}
	if ext != nil && ext.SecUpdate != nil {
		if r := ext.SecUpdate.apply(&d); r != nil {
			return d, r
		}
	}
	return d, nil
}

// emptyDelegation reports whether d changes nothing.
func emptyDelegation(d registry.Delegation) bool {
	return len(d.AddNS)+len(d.RemNS)+len(d.AddDS)+len(d.RemDS) == 0 && !d.RemAllDS
}

// domainNSXML renders a domain's <domain:ns> (empty without name servers).
func domainNSXML(d *registry.Domain) string {
	if len(d.NameServers) == 0 {
		return ""
	}
	var b bytes.Buffer
	b.WriteString(`<domain:ns>`)
	for _, n := range d.NameServers {
		b.WriteString(`<domain:hostObj>`)
		esc(&b, n)
		b.WriteString(`</domain:hostObj>`)
	}
	b.WriteString(`</domain:ns>`)
	return b.String()
}
