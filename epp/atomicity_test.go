package epp_test

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestAtomicityEPP is the atomicity suite (registrytest.World, issue 33)
// over EPP, on both stores: every command with one invalid part, alone or
// beside valid ones, is answered with the result code the code table
// gives the invalid part's code, and the registry reads exactly as before
// (the domains' info, hosts, contacts, the zone, the poll queues, the
// conflict sets), with one new audit record: the refusal's. Every frame
// the server sends is validated with xmllint against the RFC schemas.
func TestAtomicityEPP(t *testing.T) {
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			clock := registry.NewManualClock(registrytest.T0)
			svc := st.Service(t, registry.ServiceOptions{Clock: clock})
			w := registrytest.NewWorld(t, svc, clock)
			pws := map[string]string{registrytest.Acme: "secret12", registrytest.Other: "secret34"}
			for name, pw := range pws {
				if err := svc.SetEPPPassword(t.Context(), name, pw); err != nil {
					t.Fatal(err)
				}
			}
			e := serve(t, svc, epp.Options{})
			sessions := map[string]*client{}
			for name, pw := range pws {
				c := e.dial()
				if r := c.do(fullLogin(name, pw)); code(r) != 1000 {
					t.Fatalf("login %s: %s", name, r)
				}
				sessions[name] = c
			}
			w.Run(t, registrytest.Level{
				Name: "EPP",
				Run: func(t *testing.T, op registrytest.Op) (string, bool) {
					c := sessions[op.As]
					c.t = t
					r := c.do(opFrame(op))
					return strconv.Itoa(code(r)), true
				},
				Refused:   func(c string) string { return strconv.Itoa(registry.InfoOf(c).EPP) },
				Succeeded: func(answer string) bool { return answer == "1000" || answer == "1001" },
			})
		})
	}
}

// fullLogin is a login with the domain, host and contact objects and the
// secDNS, RGP and IDN extensions.
func fullLogin(clID, pw string) string {
	return cmd(`<login><clID>` + clID + `</clID><pw>` + pw + `</pw><options><version>1.0</version><lang>en</lang></options><svcs>` +
		`<objURI>urn:ietf:params:xml:ns:domain-1.0</objURI><objURI>urn:ietf:params:xml:ns:host-1.0</objURI><objURI>urn:ietf:params:xml:ns:contact-1.0</objURI>` +
		`<svcExtension><extURI>urn:ietf:params:xml:ns:secDNS-1.1</extURI><extURI>urn:ietf:params:xml:ns:rgp-1.0</extURI><extURI>urn:ietf:params:xml:ns:idn-1.0</extURI></svcExtension></svcs></login>`)
}

// x escapes text for XML.
func x(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

func el(name, v string) string { return `<` + name + `>` + x(v) + `</` + name + `>` }

// dsXML renders DS records as <secDNS:dsData>.
func dsXML(in []registry.DS) string {
	var b strings.Builder
	for _, d := range in {
		b.WriteString(ds(strconv.Itoa(d.KeyTag), strconv.Itoa(d.Algorithm), strconv.Itoa(d.DigestType), d.Digest))
	}
	return b.String()
}

// domainContactsXML renders contacts as <domain:contact> (the registrant
// apart).
func domainContactsXML(cs []registry.DomainContact) (registrant, contacts string) {
	for _, c := range cs {
		if c.Role == registry.RoleRegistrant {
			registrant = el("domain:registrant", c.ID)
			continue
		}
		contacts += `<domain:contact type="` + c.Role + `">` + x(c.ID) + `</domain:contact>`
	}
	return registrant, contacts
}

// addrXML renders host addresses.
func addrXML(addrs []string) string {
	var b strings.Builder
	for _, a := range addrs {
		ip := "v4"
		if strings.Contains(a, ":") {
			ip = "v6"
		}
		b.WriteString(`<host:addr ip="` + ip + `">` + x(a) + `</host:addr>`)
	}
	return b.String()
}

// statusXML renders statuses of an object (domain, host, contact).
func statusXML(p string, sts []string) string {
	var b strings.Builder
	for _, s := range sts {
		b.WriteString(`<` + p + `:status s="` + x(s) + `"/>`)
	}
	return b.String()
}

func periodXML(years int) string {
	if years == 0 {
		return ""
	}
	return `<domain:period unit="y">` + strconv.Itoa(years) + `</domain:period>`
}

// phoneXML renders a <contact:voice> or <contact:fax>.
func phoneXML(elem string, p *registry.Phone) string {
	if p == nil {
		return ""
	}
	ext := ""
	if p.Ext != "" {
		ext = ` x="` + x(p.Ext) + `"`
	}
	return `<contact:` + elem + ext + `>` + x(p.Number) + `</contact:` + elem + `>`
}

// contactXML renders a contact create's data.
func contactXML(d registry.ContactData, pw string) string {
	var b strings.Builder
	for _, p := range d.Postal {
		b.WriteString(`<contact:postalInfo type="` + p.Type + `">` + el("contact:name", p.Name))
		if p.Org != "" {
			b.WriteString(el("contact:org", p.Org))
		}
		b.WriteString(`<contact:addr>`)
		for _, s := range p.Street {
			b.WriteString(el("contact:street", s))
		}
		b.WriteString(el("contact:city", p.City))
		if p.SP != "" {
			b.WriteString(el("contact:sp", p.SP))
		}
		if p.PC != "" {
			b.WriteString(el("contact:pc", p.PC))
		}
		b.WriteString(el("contact:cc", p.CC) + `</contact:addr></contact:postalInfo>`)
	}
	b.WriteString(phoneXML("voice", d.Voice) + phoneXML("fax", d.Fax) + el("contact:email", d.Email))
	b.WriteString(`<contact:authInfo>` + el("contact:pw", pw) + `</contact:authInfo>`)
	if d.Disclose != nil {
		flag := "0"
		if d.Disclose.Flag {
			flag = "1"
		}
		b.WriteString(`<contact:disclose flag="` + flag + `">`)
		for _, f := range d.Disclose.Fields {
			name, typ, ok := strings.Cut(f, ":")
			if ok {
				b.WriteString(`<contact:` + name + ` type="` + typ + `"/>`)
			} else {
				b.WriteString(`<contact:` + name + `/>`)
			}
		}
		b.WriteString(`</contact:disclose>`)
	}
	return b.String()
}

// opFrame is the EPP frame of a command of the suite.
func opFrame(op registrytest.Op) string {
	switch op.Kind {
	case registrytest.OpDomainCreate:
		ns := ""
		if len(op.NS) > 0 {
			ns = hostObjs(op.NS...)
		}
		reg, cs := domainContactsXML(op.Contacts)
		ext := ""
		if len(op.DS) > 0 {
			ext = `<extension><secDNS:create ` + nsSec + `>` + dsXML(op.DS) + `</secDNS:create></extension>`
		}
		return cmd(`<create><domain:create ` + nsDomain + `>` + el("domain:name", op.Name) + periodXML(op.Years) + ns + reg + cs +
			`<domain:authInfo>` + el("domain:pw", op.AuthInfo) + `</domain:authInfo></domain:create></create>` + ext)
	case registrytest.OpDomainUpdate:
		part := func(tag string, ns []string, cs []registry.DomainContact, sts []string) string {
			if len(ns)+len(cs)+len(sts) == 0 {
				return ""
			}
			s := ""
			if len(ns) > 0 {
				s += hostObjs(ns...)
			}
			_, c := domainContactsXML(cs) // (a registrant is changed by <domain:chg>)
			return `<domain:` + tag + `>` + s + c + statusXML("domain", sts) + `</domain:` + tag + `>`
		}
		inner := part("add", op.AddNS, op.AddContacts, op.AddStatuses) + part("rem", op.RemNS, op.RemContacts, op.RemStatuses)
		if op.Registrant != "" || op.SetAuth != nil {
			chg := ""
			if op.Registrant != "" {
				chg += el("domain:registrant", op.Registrant)
			}
			if op.SetAuth != nil {
				if *op.SetAuth == "" {
					chg += `<domain:authInfo><domain:null/></domain:authInfo>`
				} else {
					chg += `<domain:authInfo>` + el("domain:pw", *op.SetAuth) + `</domain:authInfo>`
				}
			}
			inner += `<domain:chg>` + chg + `</domain:chg>`
		}
		ext := ""
		if len(op.AddDS)+len(op.RemDS) > 0 {
			ext = `<secDNS:update ` + nsSec + `>`
			if len(op.RemDS) > 0 {
				ext += `<secDNS:rem>` + dsXML(op.RemDS) + `</secDNS:rem>`
			}
			if len(op.AddDS) > 0 {
				ext += `<secDNS:add>` + dsXML(op.AddDS) + `</secDNS:add>`
			}
			ext += `</secDNS:update>`
		}
		return updateDomain(op.Name, inner, ext)
	case registrytest.OpDomainRenew:
		p := ""
		if op.Years != 0 {
			p = fmt.Sprint(op.Years, "y")
		}
		return renewFrame(op.Name, op.CurExpiry.UTC().Format(time.DateOnly), p)
	case registrytest.OpDomainDelete:
		return domainCmd("delete", op.Name)
	case registrytest.OpDomainRestore:
		return restoreFrame(op.Name, op.Verb)
	case registrytest.OpDomainTransfer:
		return transferFrame(op.Verb, op.Name, x(op.AuthInfo), periodXML(op.Years))
	case registrytest.OpHostCreate:
		return hostCmd("create", hostName(op.Name)+addrXML(op.Addrs))
	case registrytest.OpHostUpdate:
		inner := hostName(op.Name)
		for _, p := range []struct {
			tag        string
			addrs, sts []string
		}{{"add", op.AddAddrs, op.AddStatuses}, {"rem", op.RemAddrs, op.RemStatuses}} {
			if len(p.addrs)+len(p.sts) > 0 {
				inner += `<host:` + p.tag + `>` + addrXML(p.addrs) + statusXML("host", p.sts) + `</host:` + p.tag + `>`
			}
		}
		if op.NewName != "" {
			inner += `<host:chg>` + hostName(op.NewName) + `</host:chg>`
		}
		return hostCmd("update", inner)
	case registrytest.OpHostDelete:
		return hostCmd("delete", hostName(op.Name))
	case registrytest.OpContactCreate:
		return contactCmd("create", contactID(op.Name)+contactXML(op.Contact, op.AuthInfo))
	case registrytest.OpContactUpdate:
		inner := contactID(op.Name)
		if len(op.AddStatuses) > 0 {
			inner += `<contact:add>` + statusXML("contact", op.AddStatuses) + `</contact:add>`
		}
		if len(op.RemStatuses) > 0 {
			inner += `<contact:rem>` + statusXML("contact", op.RemStatuses) + `</contact:rem>`
		}
		if op.Voice != "" || op.Email != "" || op.AuthInfo != "" {
			chg := ""
			if op.Voice != "" {
				chg += phoneXML("voice", &registry.Phone{Number: op.Voice})
			}
			if op.Email != "" {
				chg += el("contact:email", op.Email)
			}
			if op.AuthInfo != "" {
				chg += `<contact:authInfo>` + el("contact:pw", op.AuthInfo) + `</contact:authInfo>`
			}
			inner += `<contact:chg>` + chg + `</contact:chg>`
		}
		return contactCmd("update", inner)
	case registrytest.OpContactDelete:
		return contactCmd("delete", contactID(op.Name))
	}
	panic("no frame for " + string(op.Kind))
}
