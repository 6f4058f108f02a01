package registrytest

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

// DevanagariContact is a contact with an int and a loc postal info, the
// loc one in Devanagari; its name holds क़ as U+0958 (not in NFC, whose
// form is क U+0915 + ़ U+093C), which must come back byte for byte.
func DevanagariContact() registry.ContactData {
	return registry.ContactData{
		Postal: []registry.PostalInfo{
			{Type: "int", Name: "Rahul Sharma", Org: "Kitab Prakashan", Street: []string{"12 MG Marg", "Hazratganj"}, City: "Lucknow", SP: "UP", PC: "226001", CC: "IN"},
			{Type: "loc", Name: "राहुल शर्मा \u0958ादिर", Org: "किताब प्रकाशन", Street: []string{"१२ एम॰ जी॰ मार्ग", "हज़रतगंज"}, City: "लखनऊ", SP: "उत्तर प्रदेश", PC: "226001", CC: "IN"},
		},
		Voice:    &registry.Phone{Number: "+91.5222345678", Ext: "12"},
		Fax:      &registry.Phone{Number: "+91.5222345679"},
		Email:    "rahul@example.in",
		Disclose: &registry.Disclose{Flag: false, Fields: []string{"voice", "email"}},
	}
}

// noContact requires that no contact of the id was stored.
func (e *env) noContact(r *registry.Registrar, id string) {
	e.t.Helper()
	if c, err := e.svc.ContactInfo(e.ctx, r, id, ""); registry.CodeOf(err) != registry.CodeNotFound && registry.CodeOf(err) != registry.CodeBadContact && registry.CodeOf(err) != registry.CodeContactPolicy {
		e.t.Fatalf("ContactInfo(%q) = %+v, %v; want no contact (nothing stored)", id, c, err)
	}
}

// testContacts: contact objects (RFC 5733) — create, info (sponsor, or
// authInfo), update, statuses, delete refused while linked; hostile
// input refused with nothing stored.
func testContacts(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	ctx := e.ctx
	a, _ := e.registrar("alpha")
	b, _ := e.registrar("beta")

	data := DevanagariContact()
	c, err := e.svc.CreateContact(ctx, a, registry.ContactCreate{ID: "rs-1", ContactData: data, AuthInfo: "Contact-pw-1-strong"})
	must(t, "CreateContact", err)
	if c.ROID == 0 || c.ID != "rs-1" {
		t.Fatalf("CreateContact = %+v", c)
	}
	got, err := e.svc.ContactInfo(ctx, a, "rs-1", "")
	must(t, "ContactInfo", err)
	if !reflect.DeepEqual(got.ContactData, DevanagariContact()) || got.Registrar != "alpha" || got.Linked || len(got.Statuses) != 0 {
		t.Fatalf("ContactInfo = %+v\nwant %+v", got.ContactData, DevanagariContact())
	}
	if !strings.Contains(got.Postal[1].Name, "\u0958") {
		t.Fatalf("the loc name was normalised: %q", got.Postal[1].Name)
	}
	wantCode(t, "CreateContact twice", ignoreContact(e.svc.CreateContact(ctx, b, registry.ContactCreate{ID: "rs-1", ContactData: DevanagariContact(), AuthInfo: "Contact-pw-2-strong"})), registry.CodeExists)

	// info: the sponsor, or whoever has the authInfo
	wantCode(t, "ContactInfo by beta", ignoreContact(e.svc.ContactInfo(ctx, b, "rs-1", "")), registry.CodeForbidden)
	wantCode(t, "ContactInfo by beta, wrong authInfo", ignoreContact(e.svc.ContactInfo(ctx, b, "rs-1", "wrong-pw-1")), registry.CodeForbidden)
	_, err = e.svc.ContactInfo(ctx, b, "rs-1", "Contact-pw-1-strong")
	must(t, "ContactInfo by beta with the authInfo", err)
	wantCode(t, "ContactInfo unknown", ignoreContact(e.svc.ContactInfo(ctx, a, "nobody", "")), registry.CodeNotFound)

	// check
	for _, tc := range []struct {
		id     string
		avail  bool
		reason string
	}{{"rs-1", false, "in use"}, {"rs-2", true, ""}, {"x", false, "bad contact field"}, {"rs\u200d1", false, "contact policy"}} {
		ch, err := e.svc.CheckContact(ctx, tc.id)
		must(t, "CheckContact", err)
		if ch.Avail != tc.avail || ch.Reason != tc.reason {
			t.Errorf("CheckContact(%q) = %+v, want avail %v reason %q", tc.id, ch, tc.avail, tc.reason)
		}
	}

	// hostile input: each refused with its code, nothing stored
	long := strings.Repeat("क", 256)
	for _, tc := range []struct {
		name, id string
		edit     func(*registry.ContactData)
		pw, code string
	}{
		{"id too short", "ab", nil, "", registry.CodeBadContact},
		{"id too long", strings.Repeat("a", 17), nil, "", registry.CodeBadContact},
		{"id with a joiner", "ab\u200dcd", nil, "", registry.CodeContactPolicy},
		{"id with a bidi override", "ab\u202ecd", nil, "", registry.CodeContactPolicy},
		{"id with a space", "ab cd", nil, "", registry.CodeContactPolicy},
		{"id in Devanagari", "राहुल", nil, "", registry.CodeContactPolicy},
		{"name past 255", "h-1", func(d *registry.ContactData) { d.Postal[1].Name = long }, "", registry.CodeBadContact},
		{"street past 255", "h-2", func(d *registry.ContactData) { d.Postal[1].Street[0] = long }, "", registry.CodeBadContact},
		{"four streets", "h-3", func(d *registry.ContactData) { d.Postal[0].Street = []string{"a", "b", "c", "d"} }, "", registry.CodeBadContact},
		{"no name", "h-4", func(d *registry.ContactData) { d.Postal[0].Name = " " }, "", registry.CodeBadContact},
		{"no city", "h-5", func(d *registry.ContactData) { d.Postal[0].City = "" }, "", registry.CodeBadContact},
		{"pc past 16", "h-6", func(d *registry.ContactData) { d.Postal[0].PC = strings.Repeat("1", 17) }, "", registry.CodeBadContact},
		{"bad cc", "h-7", func(d *registry.ContactData) { d.Postal[0].CC = "XX" }, "", registry.CodeBadContact},
		{"cc of three", "h-8", func(d *registry.ContactData) { d.Postal[0].CC = "IND" }, "", registry.CodeBadContact},
		{"cc not a country", "h-9", func(d *registry.ContactData) { d.Postal[0].CC = "EU" }, "", registry.CodeBadContact},
		{"Devanagari in int", "h-10", func(d *registry.ContactData) { d.Postal[0].Name = "राहुल" }, "", registry.CodeBadContact},
		{"bidi override in loc", "h-11", func(d *registry.ContactData) { d.Postal[1].Name = "राहुल\u202e" }, "", registry.CodeContactPolicy},
		{"line break in a line", "h-12", func(d *registry.ContactData) { d.Postal[1].City = "लखनऊ\n" }, "", registry.CodeBadContact},
		{"two int", "h-13", func(d *registry.ContactData) { d.Postal[1].Type = "int" }, "", registry.CodeBadContact},
		{"no postal info", "h-14", func(d *registry.ContactData) { d.Postal = nil }, "", registry.CodeBadContact},
		{"bad email", "h-15", func(d *registry.ContactData) { d.Email = "rahul at example.in" }, "", registry.CodeBadContact},
		{"email with a name", "h-16", func(d *registry.ContactData) { d.Email = "Rahul <rahul@example.in>" }, "", registry.CodeBadContact},
		{"no email", "h-17", func(d *registry.ContactData) { d.Email = "" }, "", registry.CodeBadContact},
		{"email too long", "h-18", func(d *registry.ContactData) { d.Email = strings.Repeat("a", 250) + "@example.in" }, "", registry.CodeBadContact},
		{"voice not E.164", "h-19", func(d *registry.ContactData) { d.Voice.Number = "0522 2345678" }, "", registry.CodeBadContact},
		{"voice too long", "h-20", func(d *registry.ContactData) { d.Voice.Number = "+91.123456789012345" }, "", registry.CodeBadContact},
		{"fax extension letters", "h-21", func(d *registry.ContactData) { d.Fax.Ext = "ab" }, "", registry.CodeBadContact},
		{"disclose unknown field", "h-22", func(d *registry.ContactData) { d.Disclose.Fields = []string{"shoe-size"} }, "", registry.CodeBadContact},
		{"short authInfo", "h-23", nil, "short", registry.CodeWeakAuthInfo},
		{"weak authInfo", "h-25", nil, "contactpassword1", registry.CodeWeakAuthInfo},
		{"authInfo past 256", "h-26", nil, strings.Repeat("Ab1-", 65), registry.CodeBadContact},
		{"postal type", "h-24", func(d *registry.ContactData) { d.Postal[0].Type = "intl" }, "", registry.CodeBadContact},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := DevanagariContact()
			if tc.edit != nil {
				tc.edit(&d)
			}
			pw := tc.pw
			if pw == "" {
				pw = "Contact-pw-9-strong"
			}
			_, err := e.svc.CreateContact(ctx, a, registry.ContactCreate{ID: tc.id, ContactData: d, AuthInfo: pw})
			wantCode(t, "CreateContact", err, tc.code)
			e.noContact(a, tc.id)
		})
	}

	// update: the sponsor only; a refused update changes nothing
	wantCode(t, "UpdateContact by beta", e.svc.UpdateContact(ctx, b, registry.ContactUpdate{ID: "rs-1", Email: "x@example.in"}), registry.CodeForbidden)
	wantCode(t, "UpdateContact bad email", e.svc.UpdateContact(ctx, a, registry.ContactUpdate{ID: "rs-1", Email: "not-an-address"}), registry.CodeBadContact)
	loc := DevanagariContact().Postal[1]
	loc.City = "कानपुर"
	must(t, "UpdateContact", e.svc.UpdateContact(ctx, a, registry.ContactUpdate{ID: "rs-1", Email: "rs@example.in", Postal: []registry.PostalChange{{Type: "loc", Addr: &loc}}, Fax: &registry.Phone{}}))
	got, err = e.svc.ContactInfo(ctx, a, "rs-1", "")
	must(t, "ContactInfo", err)
	if got.Email != "rs@example.in" || got.Postal[1].City != "कानपुर" || got.Postal[1].Name != DevanagariContact().Postal[1].Name || got.Postal[0].City != "Lucknow" || got.Fax != nil || !got.Updated.After(got.Created) && !got.Updated.Equal(got.Created) {
		t.Fatalf("after the update: %+v", got)
	}
	must(t, "UpdateContact authInfo", e.svc.UpdateContact(ctx, a, registry.ContactUpdate{ID: "rs-1", AuthInfo: "Contact-pw-new-strong"}))
	wantCode(t, "ContactInfo old authInfo", ignoreContact(e.svc.ContactInfo(ctx, b, "rs-1", "Contact-pw-1-strong")), registry.CodeForbidden)
	_, err = e.svc.ContactInfo(ctx, b, "rs-1", "Contact-pw-new-strong")
	must(t, "ContactInfo new authInfo", err)

	// statuses
	wantCode(t, "add serverHold", e.svc.UpdateContact(ctx, a, registry.ContactUpdate{ID: "rs-1", AddStatuses: []string{"serverHold"}}), registry.CodeContactPolicy)
	must(t, "add clientUpdateProhibited", e.svc.UpdateContact(ctx, a, registry.ContactUpdate{ID: "rs-1", AddStatuses: []string{registry.ContactUpdateProhibited, registry.ContactDeleteProhibited}}))
	wantCode(t, "update while prohibited", e.svc.UpdateContact(ctx, a, registry.ContactUpdate{ID: "rs-1", Email: "y@example.in"}), registry.CodeStatusProhibits)
	wantCode(t, "delete while prohibited", e.svc.DeleteContact(ctx, a, registry.ContactDelete{ID: "rs-1"}), registry.CodeStatusProhibits)
	must(t, "remove the statuses", e.svc.UpdateContact(ctx, a, registry.ContactUpdate{ID: "rs-1", RemStatuses: []string{registry.ContactUpdateProhibited, registry.ContactDeleteProhibited}}))

	// delete: the sponsor only
	_, err = e.svc.CreateContact(ctx, a, registry.ContactCreate{ID: "tmp-1", ContactData: DevanagariContact(), AuthInfo: "Contact-pw-3-strong"})
	must(t, "CreateContact tmp-1", err)
	wantCode(t, "DeleteContact by beta", e.svc.DeleteContact(ctx, b, registry.ContactDelete{ID: "tmp-1"}), registry.CodeForbidden)
	must(t, "DeleteContact", e.svc.DeleteContact(ctx, a, registry.ContactDelete{ID: "tmp-1"}))
	e.noContact(a, "tmp-1")
	wantCode(t, "DeleteContact again", e.svc.DeleteContact(ctx, a, registry.ContactDelete{ID: "tmp-1"}), registry.CodeNotFound)
}

// testDomainContacts: a domain's registrant and admin/tech/billing
// contacts — the zone's required roles (the zones file: भारत requires
// registrant, admin and tech), unknown contacts, another registrar's
// contacts, each refused with nothing stored; update; a linked contact
// cannot be deleted until the domain is purged.
func testDomainContacts(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	ctx := registry.WithChannel(e.ctx, registry.Channel{Name: "epp"}) // the zones' contact policy binds it
	a, _ := e.registrar("alpha")
	b, _ := e.registrar("beta")
	for _, id := range []string{"a-reg", "a-adm", "a-tech", "a-new"} {
		_, err := e.svc.CreateContact(ctx, a, registry.ContactCreate{ID: id, ContactData: DevanagariContact(), AuthInfo: "Contact-pw-1-strong"})
		must(t, "CreateContact "+id, err)
	}
	_, err := e.svc.CreateContact(ctx, b, registry.ContactCreate{ID: "b-reg", ContactData: DevanagariContact(), AuthInfo: "Contact-pw-1-strong"})
	must(t, "CreateContact b-reg", err)
	dc := func(pairs ...string) []registry.DomainContact {
		var out []registry.DomainContact
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, registry.DomainContact{Role: pairs[i], ID: pairs[i+1]})
		}
		return out
	}
	create := func(name string, cs []registry.DomainContact) error {
		_, err := e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: name, Contacts: cs})
		return err
	}
	full := dc("registrant", "a-reg", "admin", "a-adm", "tech", "a-tech")
	for _, tc := range []struct {
		name string
		cs   []registry.DomainContact
		code string
	}{
		{"no contacts", nil, registry.CodeContactRequired},
		{"no tech", dc("registrant", "a-reg", "admin", "a-adm"), registry.CodeContactRequired},
		{"no registrant", dc("admin", "a-adm", "tech", "a-tech"), registry.CodeContactRequired},
		{"unknown contact", dc("registrant", "nobody", "admin", "a-adm", "tech", "a-tech"), registry.CodeNotFound},
		{"another registrar's contact", dc("registrant", "b-reg", "admin", "a-adm", "tech", "a-tech"), registry.CodeContactNotSponsored},
		{"two registrants", append(dc("registrant", "a-new"), full...), registry.CodeContactPolicy},
		{"unknown role", append(dc("owner", "a-new"), full...), registry.CodeContactPolicy},
		{"joiner in the id", dc("registrant", "a-r\u200ceg", "admin", "a-adm", "tech", "a-tech"), registry.CodeContactPolicy},
		{"five admins", append(dc("admin", "a-new", "admin", "a-reg", "admin", "a-tech", "admin", "b-reg"), full...), registry.CodeContactPolicy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantCode(t, "create", create(kitab, tc.cs), tc.code)
			if d, err := e.svc.Info(ctx, kitab); registry.CodeOf(err) != registry.CodeNotFound {
				t.Fatalf("Info after a refused create = %+v, %v; want NOT_FOUND", d, err)
			}
		})
	}
	must(t, "create with contacts", create(kitab, append(full, dc("billing", "a-new")...)))
	d, err := e.svc.Info(ctx, kitab)
	must(t, "Info", err)
	want := dc("registrant", "a-reg", "admin", "a-adm", "tech", "a-tech", "billing", "a-new")
	if !reflect.DeepEqual(d.Contacts, want) {
		t.Fatalf("Info contacts = %v, want %v", d.Contacts, want)
	}
	c, err := e.svc.ContactInfo(ctx, a, "a-reg", "")
	must(t, "ContactInfo", err)
	if !c.Linked {
		t.Error("a-reg is not linked")
	}
	// a zone that requires none: a create without contacts
	_, err = e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: "kitab.in"})
	wantCode(t, "in without contacts", err, registry.CodeContactRequired)

	// update: a new registrant in one update; a change leaving a
	// required role empty, or taking another's contact, changes nothing
	wantCode(t, "rem tech", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, RemContacts: dc("tech", "a-tech")})), registry.CodeContactRequired)
	wantCode(t, "second registrant", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, AddContacts: dc("registrant", "a-new")})), registry.CodeContactPolicy)
	wantCode(t, "beta's contact", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, AddContacts: dc("admin", "b-reg")})), registry.CodeContactNotSponsored)
	wantCode(t, "by beta", Err(e.svc.UpdateDomain(ctx, b, registry.DomainUpdate{Name: kitab, AddContacts: dc("admin", "b-reg")})), registry.CodeForbidden)
	wantCode(t, "rem absent", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, RemContacts: dc("admin", "a-new")})), registry.CodeContactPolicy)
	wantCode(t, "chg registrant to beta's", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, Registrant: "b-reg"})), registry.CodeContactNotSponsored)
	d, _ = e.svc.Info(ctx, kitab)
	if !reflect.DeepEqual(d.Contacts, want) {
		t.Fatalf("a refused update changed the contacts: %v", d.Contacts)
	}
	must(t, "chg registrant", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, Registrant: "a-new"})))
	d, _ = e.svc.Info(ctx, kitab)
	if want := dc("registrant", "a-new", "admin", "a-adm", "tech", "a-tech", "billing", "a-new"); !reflect.DeepEqual(d.Contacts, want) {
		t.Fatalf("after chg registrant: %v, want %v", d.Contacts, want)
	}
	must(t, "delete a-reg (no longer linked)", e.svc.DeleteContact(ctx, a, registry.ContactDelete{ID: "a-reg"}))

	// a linked contact stays until its domain is purged
	wantCode(t, "delete linked", e.svc.DeleteContact(ctx, a, registry.ContactDelete{ID: "a-adm"}), registry.CodeAssociated)
	_, err = e.svc.DeleteDomain(ctx, a, registry.DomainDelete{Name: kitab})
	must(t, "DeleteDomain", err)
	wantCode(t, "delete linked in redemption", e.svc.DeleteContact(ctx, a, registry.ContactDelete{ID: "a-adm"}), registry.CodeAssociated)
	e.purge()
	must(t, "delete after the purge", e.svc.DeleteContact(ctx, a, registry.ContactDelete{ID: "a-adm"}))
}

func ignoreContact(_ *registry.Contact, err error) error { return err }

// testContactRace: a contact deleted while domains are created naming it:
// either the delete wins and no domain names the contact (their creates
// refused NOT_FOUND, nothing stored), or it is refused ASSOCIATED and the
// contact stays with its domains; never a domain naming a contact that
// is gone, never an internal error.
func testContactRace(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	ctx := e.ctx
	a, _ := e.registrar("alpha")
	for round := 0; round < 8; round++ {
		id := fmt.Sprintf("race-%d", round)
		_, err := e.svc.CreateContact(ctx, a, registry.ContactCreate{ID: id, ContactData: DevanagariContact(), AuthInfo: "Contact-pw-1-strong"})
		must(t, "CreateContact", err)
		cs := []registry.DomainContact{{Role: "registrant", ID: id}, {Role: "admin", ID: id}, {Role: "tech", ID: id}}
		const creates = 4
		var wg sync.WaitGroup
		errs := make([]error, creates+1)
		for i := 0; i < creates; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				_, errs[i] = e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: fmt.Sprintf("race%d-%d.in", round, i), Contacts: cs})
			}(i)
		}
		wg.Add(1)
		go func() { defer wg.Done(); errs[creates] = e.svc.DeleteContact(ctx, a, registry.ContactDelete{ID: id}) }()
		wg.Wait()
		created := 0
		for i := 0; i < creates; i++ {
			switch code := registry.CodeOf(errs[i]); {
			case errs[i] == nil:
				created++
				d, err := e.svc.Info(ctx, fmt.Sprintf("race%d-%d.in", round, i))
				must(t, "Info", err)
				if len(d.Contacts) != 3 {
					t.Fatalf("round %d: a created domain has contacts %v", round, d.Contacts)
				}
			case code == registry.CodeNotFound:
				if d, err := e.svc.Info(ctx, fmt.Sprintf("race%d-%d.in", round, i)); registry.CodeOf(err) != registry.CodeNotFound {
					t.Fatalf("round %d: a refused create left %+v, %v", round, d, err)
				}
			default:
				t.Fatalf("round %d: create: %v", round, errs[i])
			}
		}
		switch code := registry.CodeOf(errs[creates]); {
		case errs[creates] == nil:
			if created > 0 {
				t.Fatalf("round %d: the contact was deleted and %d domains name it", round, created)
			}
		case code == registry.CodeAssociated:
			if created == 0 {
				t.Fatalf("round %d: the delete was refused ASSOCIATED and no domain names the contact", round)
			}
			if _, err := e.svc.ContactInfo(ctx, a, id, ""); err != nil {
				t.Fatalf("round %d: the contact of %d domains: %v", round, created, err)
			}
		default:
			t.Fatalf("round %d: delete: %v", round, errs[creates])
		}
	}
}

// BenchCreateRead runs two sub-benchmarks with ReportAllocs: "create"
// calls create(i) for i = 0, 1, …, then "read" calls read(i % created).
func BenchCreateRead(b *testing.B, create, read func(i int) error) {
	n := 0
	b.Run("create", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := create(n); err != nil {
				b.Fatal(err)
			}
			n++
		}
	})
	if n == 0 {
		b.Skip("nothing created")
	}
	b.Run("info", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := read(i % n); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}
