package epp

import (
	"bytes"
	"crypto/tls"
	"encoding/xml"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/registry/registrytest"
)

// FuzzEPP feeds frames to the parser and the command handler of a
// logged-in session: no panic, and every answer is one well-formed <epp>
// document with a result code, or a greeting.
func FuzzEPP(f *testing.F) {
	seeds := []string{
		`<?xml version="1.0" encoding="UTF-8"?><epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><hello/></epp>`,
		`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><check><domain:check xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name>किताब.भारत</domain:name><domain:name>abc.in</domain:name></domain:check></check><clTRID>ABC-1</clTRID></command></epp>`,
		`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><create><domain:create xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name>xn--11b4aya5ed.xn--h2brj9c</domain:name></domain:create></create><extension><idn:data xmlns:idn="urn:ietf:params:xml:ns:idn-1.0"><idn:table>hi</idn:table><idn:uname>किताब.भारत</idn:uname></idn:data></extension><clTRID>ABC-2</clTRID></command></epp>`,
		`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><info><domain:info xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name hosts="all">किताब.भारत</domain:name></domain:info></info></command></epp>`,
		`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><delete><domain:delete xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name>कमल.भारत</domain:name></domain:delete></delete></command></epp>`,
		`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><login><clID>acme</clID><pw>secret12</pw><options><version>1.0</version><lang>en</lang></options><svcs><objURI>urn:ietf:params:xml:ns:domain-1.0</objURI></svcs></login></command></epp>`,
		`<?xml version="1.0"?><!DOCTYPE epp [<!ENTITY x "y">]><epp/>`,
		`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><update/><clTRID>&amp;</clTRID></command></epp>`,
		"\xff\xfe<epp/>",
		// delegation (host.go, secdns.go)
		`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><create><host:create xmlns:host="urn:ietf:params:xml:ns:host-1.0"><host:name>ns1.किताब.भारत</host:name><host:addr ip="v6">2001:4860::1</host:addr></host:create></create></command></epp>`,
		`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><update><host:update xmlns:host="urn:ietf:params:xml:ns:host-1.0"><host:name>ns1.example.com</host:name><host:add><host:status s="clientDeleteProhibited"/></host:add><host:chg><host:name>ns2.example.com</host:name></host:chg></host:update></update></command></epp>`,
		`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><update><domain:update xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name>abc.in</domain:name><domain:add><domain:ns><domain:hostObj>ns1.example.com</domain:hostObj></domain:ns></domain:add></domain:update></update><extension><secDNS:update xmlns:secDNS="urn:ietf:params:xml:ns:secDNS-1.1"><secDNS:rem><secDNS:all>true</secDNS:all></secDNS:rem><secDNS:add><secDNS:dsData><secDNS:keyTag>1</secDNS:keyTag><secDNS:alg>13</secDNS:alg><secDNS:digestType>2</secDNS:digestType><secDNS:digest>AB</secDNS:digest></secDNS:dsData></secDNS:add></secDNS:update></extension></command></epp>`,
		`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><transfer op="request"><domain:transfer xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name>किताब.भारत</domain:name><domain:period unit="y">1</domain:period><domain:authInfo><domain:pw>2fooBAR!xQ7wK4pL</domain:pw></domain:authInfo></domain:transfer></transfer><clTRID>ABC-3</clTRID></command></epp>`,
		`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><poll op="ack" msgID="12"/></command></epp>`,
		`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><update><domain:update xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name>किताब.भारत</domain:name><domain:chg><domain:authInfo><domain:null/></domain:authInfo></domain:chg></domain:update></update></command></epp>`,
		// contacts (contact.go)
		`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><create><contact:create xmlns:contact="urn:ietf:params:xml:ns:contact-1.0"><contact:id>rs-1</contact:id><contact:postalInfo type="loc"><contact:name>राहुल शर्मा</contact:name><contact:org>किताब</contact:org><contact:addr><contact:street>हज़रतगंज</contact:street><contact:city>लखनऊ</contact:city><contact:sp>उत्तर प्रदेश</contact:sp><contact:pc>226001</contact:pc><contact:cc>IN</contact:cc></contact:addr></contact:postalInfo><contact:voice x="12">+91.5222345678</contact:voice><contact:fax/><contact:email>rahul@example.in</contact:email><contact:authInfo><contact:pw>Contact-pw-1-strong</contact:pw></contact:authInfo><contact:disclose flag="0"><contact:name type="loc"/><contact:voice/></contact:disclose></contact:create></create></command></epp>`,
		`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><update><contact:update xmlns:contact="urn:ietf:params:xml:ns:contact-1.0"><contact:id>rs-1</contact:id><contact:add><contact:status s="clientDeleteProhibited"/></contact:add><contact:chg><contact:postalInfo type="int"><contact:name>Rahul</contact:name></contact:postalInfo><contact:email>r@example.in</contact:email></contact:chg></contact:update></update></command></epp>`,
		`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><info><contact:info xmlns:contact="urn:ietf:params:xml:ns:contact-1.0"><contact:id>rs-1</contact:id><contact:authInfo><contact:pw>Contact-pw-1-strong</contact:pw></contact:authInfo></contact:info></info></command></epp>`,
		`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><create><domain:create xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name>abc.in</domain:name><domain:registrant>rs-1</domain:registrant><domain:contact type="admin">rs-1</domain:contact><domain:contact type="tech">rs-1</domain:contact><domain:authInfo><domain:pw>2fooBAR!xQ7wK4pL</domain:pw></domain:authInfo></domain:create></create></command></epp>`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	svc := registrytest.SQLiteService(f)
	r, _, err := svc.AddRegistrar(f.Context(), "acme")
	if err != nil {
		f.Fatal(err)
	}
	cert, _, err := SelfSigned()
	if err != nil {
		f.Fatal(err)
	}
	srv, err := New(svc, Options{TLS: &tls.Config{Certificates: []tls.Certificate{cert}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		ss := &session{s: srv, registrar: r, log: slog.New(slog.DiscardHandler)}
		out, _ := ss.handle(frame)
		if !bytes.Contains(out, []byte("<greeting>")) && !bytes.Contains(out, []byte(`<result code="`)) {
			t.Fatalf("answer without a result: %s", out)
		}
		dec := xml.NewDecoder(bytes.NewReader(out))
		roots := 0
		depth := 0
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("the answer is not well-formed: %v\n%s", err, out)
			}
			switch tok := tok.(type) {
			case xml.StartElement:
				if depth == 0 {
					roots++
					if tok.Name.Local != "epp" || tok.Name.Space != NSEPP {
						t.Fatalf("root %v", tok.Name)
					}
				}
				depth++
			case xml.EndElement:
				depth--
			}
		}
		if roots != 1 || !strings.HasPrefix(string(out), "<?xml") {
			t.Fatalf("answer: %s", out)
		}
	})
}

// FuzzFrames reads a byte stream as RFC 5734 data units: no panic, no
// frame over the cap, and a refused length is a 2500 answer.
func FuzzFrames(f *testing.F) {
	f.Add([]byte("\x00\x00\x00\x09hello"), 64)
	f.Add([]byte("\x00\x00\x00\x04"), 64)
	f.Add([]byte("\xff\xff\xff\xff"), 1024)
	f.Add([]byte("\x00\x00\x00\x06ab\x00\x00\x00\x05c"), 16)
	f.Fuzz(func(t *testing.T, stream []byte, max int) {
		if max < 5 || max > 1<<20 {
			return
		}
		r := bytes.NewReader(stream)
		for {
			body, err := readFrame(r, max, nil)
			if err != nil {
				if resp, ok := err.(*response); ok && resp.code != CodeFailedClosing {
					t.Fatalf("a refused length answered %d", resp.code)
				}
				return
			}
			if len(body)+4 > max || len(body) == 0 {
				t.Fatalf("a frame of %d octets with the cap at %d", len(body)+4, max)
			}
		}
	})
}
