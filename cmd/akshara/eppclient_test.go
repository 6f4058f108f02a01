package main

import (
	"crypto/tls"
	"fmt"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/internal/loopback"
	"github.com/akshara-idn/akshara/registry"
)

// startEPP serves EPP for svc in process (the server akshara serve runs)
// on a loopback port and logs registrar in (its EPP password set here)
// with host-1.0, contact-1.0 and secDNS-1.1: the end-to-end tests send the frames a
// registrar's software sends.
func startEPP(t testing.TB, svc *registry.Service, registrar string) *eppConn {
	t.Helper()
	if err := svc.SetEPPPassword(t.Context(), registrar, "secret12"); err != nil {
		t.Fatal(err)
	}
	cert, _, err := epp.SelfSigned("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := epp.New(svc, epp.Options{TLS: &tls.Config{Certificates: []tls.Certificate{cert}}, MaxSessionsPerAddr: -1, MaxSessionsPerRegistrar: -1, CommandRate: -1})
	if err != nil {
		t.Fatal(err)
	}
	c := dialEPP(t, loopback.Serve(t, srv))
	// login makes the registrar's contact its creates name (registrant,
	// admin and tech: the zones file requires them, docs/contacts.md)
	if r := c.loginWith(registrar, `<objURI>urn:ietf:params:xml:ns:host-1.0</objURI><svcExtension><extURI>urn:ietf:params:xml:ns:secDNS-1.1</extURI></svcExtension>`); !strings.Contains(r, `code="1000"`) {
		t.Fatalf("login: %s", r)
	}
	return c
}

// must sends a command (the inside of <command>) that must succeed
// (1000, or one of the codes given).
func (c *eppConn) must(command string, codes ...string) {
	c.t.Helper()
	r := c.do(command + `<clTRID>KNOT-1</clTRID>`)
	for _, code := range append(codes, "1000") {
		if strings.Contains(r, `<result code="`+code+`">`) {
			return
		}
	}
	c.t.Fatalf("EPP %.100s…: %s", command, r)
}

const (
	eppDomainNS = `xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"`
	eppHostNS   = `xmlns:host="urn:ietf:params:xml:ns:host-1.0"`
	eppSecNS    = `xmlns:secDNS="urn:ietf:params:xml:ns:secDNS-1.1"`
)

// createDomain creates a domain with name servers (host objects) and DS
// records (keyTag alg digestType digest).
func (c *eppConn) createDomain(name string, ns []string, ds []registry.DS) {
	c.t.Helper()
	var b strings.Builder
	b.WriteString(`<create><domain:create ` + eppDomainNS + `><domain:name>` + name + `</domain:name>`)
	if len(ns) > 0 {
		b.WriteString(`<domain:ns>`)
		for _, n := range ns {
			b.WriteString(`<domain:hostObj>` + n + `</domain:hostObj>`)
		}
		b.WriteString(`</domain:ns>`)
	}
	b.WriteString(`<domain:registrant>` + c.contact + `</domain:registrant><domain:contact type="admin">` + c.contact + `</domain:contact><domain:contact type="tech">` + c.contact + `</domain:contact>`)
	b.WriteString(`<domain:authInfo><domain:pw>2fooBAR!xQ7wK4pL</domain:pw></domain:authInfo></domain:create></create>`)
	if len(ds) > 0 {
		b.WriteString(`<extension><secDNS:create ` + eppSecNS + `>` + dsData(ds) + `</secDNS:create></extension>`)
	}
	c.must(b.String())
}

func dsData(ds []registry.DS) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, `<secDNS:dsData><secDNS:keyTag>%d</secDNS:keyTag><secDNS:alg>%d</secDNS:alg><secDNS:digestType>%d</secDNS:digestType><secDNS:digest>%s</secDNS:digest></secDNS:dsData>`,
			d.KeyTag, d.Algorithm, d.DigestType, d.Digest)
	}
	return b.String()
}

// createHost creates a host with addresses (glue).
func (c *eppConn) createHost(name string, addrs ...string) {
	c.t.Helper()
	var b strings.Builder
	b.WriteString(`<create><host:create ` + eppHostNS + `><host:name>` + name + `</host:name>`)
	for _, a := range addrs {
		ip := "v4"
		if strings.Contains(a, ":") {
			ip = "v6"
		}
		b.WriteString(`<host:addr ip="` + ip + `">` + a + `</host:addr>`)
	}
	b.WriteString(`</host:create></create>`)
	c.must(b.String())
}

// addDelegation adds name servers and DS records to a domain.
func (c *eppConn) addDelegation(name string, ns []string, ds []registry.DS) {
	c.t.Helper()
	var b strings.Builder
	b.WriteString(`<update><domain:update ` + eppDomainNS + `><domain:name>` + name + `</domain:name><domain:add><domain:ns>`)
	for _, n := range ns {
		b.WriteString(`<domain:hostObj>` + n + `</domain:hostObj>`)
	}
	b.WriteString(`</domain:ns></domain:add></domain:update></update>`)
	if len(ds) > 0 {
		b.WriteString(`<extension><secDNS:update ` + eppSecNS + `><secDNS:add>` + dsData(ds) + `</secDNS:add></secDNS:update></extension>`)
	}
	c.must(b.String())
}

// deleteDomain deletes a domain (1001 after the add grace period: it
// goes into redemption).
func (c *eppConn) deleteDomain(name string) {
	c.t.Helper()
	c.must(`<delete><domain:delete `+eppDomainNS+`><domain:name>`+name+`</domain:name></domain:delete></delete>`, "1001")
}

// setStatus adds (or with remove, removes) a client status of a domain.
func (c *eppConn) setStatus(name, status string, remove bool) {
	c.t.Helper()
	op := "add"
	if remove {
		op = "rem"
	}
	c.must(`<update><domain:update ` + eppDomainNS + `><domain:name>` + name + `</domain:name><domain:` + op + `><domain:status s="` + status + `"/></domain:` + op + `></domain:update></update>`)
}
