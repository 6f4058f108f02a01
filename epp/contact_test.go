package epp_test

import (
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

const nsContact = `xmlns:contact="urn:ietf:params:xml:ns:contact-1.0"`

func contactCmd(verb, inner string) string {
	return cmd(`<` + verb + `><contact:` + verb + ` ` + nsContact + `>` + inner + `</contact:` + verb + `></` + verb + `>`)
}

func contactID(id string) string { return `<contact:id>` + id + `</contact:id>` }

// locName is a Devanagari name with क़ as U+0958 (not NFC): it must come
// back byte for byte.
const locName = "राहुल शर्मा \u0958ादिर"

// postal renders a <contact:postalInfo>.
func postal(typ, name, city, cc string) string {
	return `<contact:postalInfo type="` + typ + `"><contact:name>` + name + `</contact:name><contact:addr><contact:street>12 MG Marg</contact:street><contact:city>` +
		city + `</contact:city><contact:pc>226001</contact:pc><contact:cc>` + cc + `</contact:cc></contact:addr></contact:postalInfo>`
}

// contactCreate renders a contact create; edit changes its inner XML.
func contactCreate(id string, edit func(string) string) string {
	inner := contactID(id) + postal("int", "Rahul Sharma", "Lucknow", "IN") + postal("loc", locName, "लखनऊ", "IN") +
		`<contact:voice x="12">+91.5222345678</contact:voice><contact:email>rahul@example.in</contact:email>` +
		`<contact:authInfo><contact:pw>Contact-pw-1-strong</contact:pw></contact:authInfo>` +
		`<contact:disclose flag="0"><contact:name type="loc"/><contact:voice/><contact:email/></contact:disclose>`
	if edit != nil {
		inner = edit(inner)
	}
	return contactCmd("create", inner)
}

func domainCreateContacts(name, contacts string) string {
	return cmd(`<create><domain:create ` + nsDomain + `><domain:name>` + name + `</domain:name>` + contacts +
		`<domain:authInfo><domain:pw>2fooBAR!xQ7wK4pL</domain:pw></domain:authInfo></domain:create></create>`)
}

func regAdmTech(reg, adm, tech string) string {
	return `<domain:registrant>` + reg + `</domain:registrant><domain:contact type="admin">` + adm + `</domain:contact><domain:contact type="tech">` + tech + `</domain:contact>`
}

// TestContactsEPP is a registrar's conversation about contacts and the
// contacts of domains, on both stores, with the zones file's contact
// policy (भारत: registrant, admin and tech required); hostile input is
// refused with its code and nothing stored; every server frame is
// validated with xmllint against the RFC schemas (contact-1.0 included).
func TestContactsEPP(t *testing.T) {
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			t.Parallel()
			testContactsEPP(t, newEnvOn(t, st.Service(t, registry.ServiceOptions{}), epp.Options{}))
		})
	}
}

func testContactsEPP(t *testing.T, e *env) {
	a, b := e.dial(), e.dial()
	a.login("acme", "secret12")
	b.login("other", "secret34")
	long := strings.Repeat("क", 256)
	rep := func(old, new string) func(string) string {
		return func(s string) string {
			if !strings.Contains(s, old) {
				t.Fatalf("the frame has no %q", old)
			}
			return strings.Replace(s, old, new, 1)
		}
	}
	steps := []step{
		{"check", a, contactCmd("check", contactID("rs-1")+contactID("rs-2")), 1000, []string{`<contact:id avail="1">rs-1</contact:id>`}},
		{"create", a, contactCreate("rs-1", nil), 1000, []string{"<contact:id>rs-1</contact:id><contact:crDate>"}},
		{"create again", b, contactCreate("rs-1", nil), 2302, nil},
		{"check after", a, contactCmd("check", contactID("rs-1")), 1000, []string{`<contact:id avail="0">rs-1</contact:id><contact:reason>in use</contact:reason>`}},
		{"info", a, contactCmd("info", contactID("rs-1")), 1000, []string{
			`<contact:status s="ok"/>`, `<contact:name>` + locName + `</contact:name>`, `<contact:city>लखनऊ</contact:city>`,
			`<contact:voice x="12">+91.5222345678</contact:voice>`, `<contact:clID>acme</contact:clID>`,
			`<contact:authInfo><contact:pw/></contact:authInfo><contact:disclose flag="0"><contact:name type="loc"/><contact:voice/><contact:email/></contact:disclose>`}},
		{"info by another", b, contactCmd("info", contactID("rs-1")), 2201, nil},
		{"info by another, wrong authInfo", b, contactCmd("info", contactID("rs-1")+`<contact:authInfo><contact:pw>wrong-pw-1</contact:pw></contact:authInfo>`), 2201, nil},
		{"info by another with the authInfo", b, contactCmd("info", contactID("rs-1")+`<contact:authInfo><contact:pw>Contact-pw-1-strong</contact:pw></contact:authInfo>`), 1000, []string{`<contact:name>` + locName}},
		{"update by another", b, contactCmd("update", contactID("rs-1")+`<contact:chg><contact:email>x@example.in</contact:email></contact:chg>`), 2201, nil},
		{"update", a, contactCmd("update", contactID("rs-1")+`<contact:chg><contact:postalInfo type="loc"><contact:addr><contact:city>कानपुर</contact:city><contact:cc>IN</contact:cc></contact:addr></contact:postalInfo><contact:fax>+91.5222345679</contact:fax></contact:chg>`), 1000, nil},
		{"info updated", a, contactCmd("info", contactID("rs-1")), 1000, []string{`<contact:name>` + locName + `</contact:name>`, `<contact:city>कानपुर</contact:city>`, `<contact:fax>+91.5222345679</contact:fax>`, `<contact:upDate>`}},
		{"status", a, contactCmd("update", contactID("rs-1")+`<contact:add><contact:status s="clientDeleteProhibited"/></contact:add>`), 1000, nil},
		{"server status", a, contactCmd("update", contactID("rs-1")+`<contact:add><contact:status s="serverDeleteProhibited"/></contact:add>`), 2306, nil},
		{"delete prohibited", a, contactCmd("delete", contactID("rs-1")), 2304, nil},
		{"status removed", a, contactCmd("update", contactID("rs-1")+`<contact:rem><contact:status s="clientDeleteProhibited"/></contact:rem>`), 1000, nil},
		{"transfer", b, cmd(`<transfer op="request"><contact:transfer ` + nsContact + `>` + contactID("rs-1") + `<contact:authInfo><contact:pw>Contact-pw-1-strong</contact:pw></contact:authInfo></contact:transfer></transfer>`), 2101, nil},
		{"adm and tech", a, contactCreate("adm-1", nil), 1000, nil},
		{"tech", a, contactCreate("tech-1", nil), 1000, nil},
		{"another's", b, contactCreate("oth-1", nil), 1000, nil},

		// hostile contacts: refused, nothing stored (checked below)
		{"id too long", a, contactCreate("h-1234567890abcde", nil), 2005, nil},
		{"id with a joiner", a, contactCreate("h-2\u200dx", nil), 2306, []string{"not allowed"}},
		{"id with a bidi override", a, contactCreate("h-3\u202ex", nil), 2306, nil},
		{"name past 255", a, contactCreate("h-4", rep(locName, long)), 2005, []string{"at most 255"}},
		{"bad email", a, contactCreate("h-5", rep("rahul@example.in", "rahul.example.in")), 2005, []string{"not an email address"}},
		{"bad cc", a, contactCreate("h-6", rep("<contact:cc>IN</contact:cc>", "<contact:cc>QQ</contact:cc>")), 2005, []string{"ISO 3166"}},
		{"Devanagari in int", a, contactCreate("h-7", rep("Rahul Sharma", "राहुल")), 2005, []string{"7-bit ASCII"}},
		{"bad voice", a, contactCreate("h-8", rep("+91.5222345678", "05222345678")), 2005, nil},
		{"no authInfo", a, contactCreate("h-9", rep("<contact:authInfo><contact:pw>Contact-pw-1-strong</contact:pw></contact:authInfo>", "")), 2003, nil},
		{"no email", a, contactCreate("h-10", rep("<contact:email>rahul@example.in</contact:email>", "")), 2003, nil},

		// domains
		{"domain without contacts", a, domainCreateContacts(kitab, ""), 2003, []string{"registrant"}},
		{"domain without tech", a, domainCreateContacts(kitab, `<domain:registrant>rs-1</domain:registrant><domain:contact type="admin">adm-1</domain:contact>`), 2003, []string{"tech"}},
		{"domain with an unknown contact", a, domainCreateContacts(kitab, regAdmTech("rs-1", "nobody", "tech-1")), 2303, []string{"nobody"}},
		{"domain with another's contact", a, domainCreateContacts(kitab, regAdmTech("oth-1", "adm-1", "tech-1")), 2201, []string{"another registrar"}},
		{"domain with a bad contact type", a, domainCreateContacts(kitab, regAdmTech("rs-1", "adm-1", "tech-1")+`<domain:contact type="owner">adm-1</domain:contact>`), 2001, nil},
		{"domain create", a, domainCreateContacts(kitab, regAdmTech("rs-1", "adm-1", "tech-1")), 1000, nil},
		{"domain info", b, domainCmd("info", kitab), 1000, []string{`<domain:registrant>rs-1</domain:registrant><domain:contact type="admin">adm-1</domain:contact><domain:contact type="tech">tech-1</domain:contact><domain:clID>`}},
		{"contact linked", a, contactCmd("info", contactID("adm-1")), 1000, []string{`<contact:status s="ok"/><contact:status s="linked"/>`}},
		{"delete linked", a, contactCmd("delete", contactID("rs-1")), 2305, nil},
		{"chg registrant to another's", a, updateDomain(kitab, `<domain:chg><domain:registrant>oth-1</domain:registrant></domain:chg>`, ""), 2201, nil},
		{"rem the tech", a, updateDomain(kitab, `<domain:rem><domain:contact type="tech">tech-1</domain:contact></domain:rem>`, ""), 2003, nil},
		{"chg registrant, add billing", a, updateDomain(kitab, `<domain:add><domain:contact type="billing">adm-1</domain:contact></domain:add><domain:chg><domain:registrant>tech-1</domain:registrant></domain:chg>`, ""), 1000, nil},
		{"domain info updated", a, domainCmd("info", kitab), 1000, []string{`<domain:registrant>tech-1</domain:registrant><domain:contact type="admin">adm-1</domain:contact><domain:contact type="tech">tech-1</domain:contact><domain:contact type="billing">adm-1</domain:contact>`}},
		{"delete no longer linked", a, contactCmd("delete", contactID("rs-1")), 1000, nil},
		{"info deleted", a, contactCmd("info", contactID("rs-1")), 2303, nil},
	}
	runSteps(t, steps)
	// nothing of a refused create was stored
	for _, id := range []string{"h-4", "h-5", "h-6", "h-7", "h-8", "h-9", "h-10"} {
		if r := a.do(contactCmd("check", contactID(id))); !strings.Contains(r, `avail="1"`) {
			t.Errorf("%s was stored:\n%s", id, r)
		}
	}
}
