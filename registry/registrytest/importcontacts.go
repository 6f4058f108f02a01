package registrytest

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

// ImportContactsFile is a contacts file of two registrars' contacts (issue
// 34 item 4): alpha's ac-1 (an int address) and ac-2 (a Devanagari loc
// address only), beta's bc-1, and a line the registry refuses (an email
// that is no address: BAD_CONTACT).
const ImportContactsFile = "id,registrar,name,org,street,city,sp,pc,cc,loc_name,loc_street,loc_city,loc_cc,voice,email,auth_info\n" +
	"ac-1,alpha,Asha Rao,Acme,12 MG Road,Bengaluru,KA,560001,IN,,,,,+91.8012345678,asha@example.in,Contact-pw-1-strong\n" +
	"ac-2,alpha,,,,,,,,आशा राव,१२ महात्मा गांधी मार्ग,बेंगलुरु,IN,+91.8012345679,asha2@example.in,Contact-pw-1-strong\n" +
	"bc-1,beta,Bala Iyer,,1 Anna Salai,Chennai,TN,600002,IN,,,,,+91.4412345678,bala@example.in,Contact-pw-1-strong\n" +
	"xc-1,alpha,Bad Mail,,,Delhi,,,IN,,,,,,not-an-address,Contact-pw-1-strong\n"

// testImportContacts: an import with a contacts file and contact columns
// creates the contacts, links them to the names (Info lists them, so RDAP
// and WHOIS show the registrant), and refuses, each with its code, a
// name without a contact its zone requires (CONTACT_REQUIRED), one naming
// an unknown contact (NOT_FOUND) or another registrar's
// (CONTACT_NOT_SPONSORED), and the contact the registry refuses; with
// ContactsExempt a name without contacts is imported; run again, nothing
// changes.
func testImportContacts(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	names := "name,registrar,registrant,admin,tech,billing\n" +
		"किताब,alpha,ac-1,ac-1,ac-1 ac-2,\n" + // registered, with contacts
		"कमल,alpha,,,,\n" + // CONTACT_REQUIRED
		"नदी,alpha,zz-9,ac-1,ac-1,\n" + // NOT_FOUND
		"गगन,alpha,bc-1,ac-1,ac-1,\n" + // CONTACT_NOT_SPONSORED
		"पानी,beta,bc-1,bc-1,bc-1,bc-1\n" // registered
	run := func(exempt bool) (*registry.ImportSummary, []registry.ImportRefusal) {
		t.Helper()
		var refused []registry.ImportRefusal
		sum, err := e.svc.Import(e.ctx, func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(names)), nil }, registry.ImportOptions{
			Zone: "भारत", CreateRegistrars: true, ContactsExempt: exempt, Restart: true,
			Contacts: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(ImportContactsFile)), nil },
			Refused:  func(r registry.ImportRefusal) { refused = append(refused, r) },
		})
		if err != nil {
			t.Fatal(err)
		}
		return sum, refused
	}
	sum, refused := run(false)
	if sum.ContactsCreated != 3 || sum.ContactsRefused != 1 || sum.Registered != 2 || sum.Refused != 3 || sum.Linked != 2 {
		t.Fatalf("summary %+v, want 3 contacts created, 1 refused; 2 names registered (with contacts), 3 refused", sum)
	}
	want := map[string]string{"contacts:xc-1": registry.CodeBadContact, "कमल": registry.CodeContactRequired,
		"नदी": registry.CodeNotFound, "गगन": registry.CodeContactNotSponsored}
	for _, r := range refused {
		key := r.Name
		if r.File != "" {
			key = r.File + ":" + r.Name
		}
		if want[key] != r.Code {
			t.Errorf("refused %s (line %d) with %s (%s), want %q", key, r.Line, r.Code, r.Reason, want[key])
		}
		delete(want, key)
	}
	if len(want) > 0 {
		t.Errorf("not refused: %v", want)
	}
	d, err := e.svc.Info(e.ctx, kitab)
	if err != nil {
		t.Fatal(err)
	}
	wantContacts := []registry.DomainContact{{Role: "registrant", ID: "ac-1"}, {Role: "admin", ID: "ac-1"}, {Role: "tech", ID: "ac-1"}, {Role: "tech", ID: "ac-2"}}
	if !slices.Equal(d.Contacts, wantContacts) {
		t.Errorf("%s contacts %v, want %v", kitab, d.Contacts, wantContacts)
	}
	c, err := e.svc.PublicContact(e.ctx, "ac-2")
	if err != nil || !c.Linked || c.Registrar != "alpha" || c.PostalOf("loc") == nil || c.PostalOf("loc").City != "बेंगलुरु" {
		t.Errorf("contact ac-2: %+v, %v; want alpha's, linked, with its Devanagari address", c, err)
	}
	// a linked contact cannot go (ASSOCIATED), as after an EPP create
	alpha := &registry.Registrar{Name: "alpha"}
	for _, r := range mustRegistrars(t, e) {
		if r.Name == "alpha" {
			alpha = &registry.Registrar{ID: r.ID, Name: r.Name}
		}
	}
	if err := e.svc.DeleteContact(e.ctx, alpha, registry.ContactDelete{ID: "ac-1"}); registry.CodeOf(err) != registry.CodeAssociated {
		t.Errorf("deleting imported and linked ac-1: %v, want ASSOCIATED", err)
	}

	// again, exempt: the contacts are there already; कमल comes in
	sum, refused = run(true)
	if sum.ContactsCreated != 0 || sum.ContactsExisting != 3 || sum.Registered != 1 || sum.Duplicates != 2 {
		t.Fatalf("again, exempt: %+v, want 3 contacts there already, 1 registered (कमल), 2 duplicates", sum)
	}
	d, err = e.svc.Info(e.ctx, "कमल.भारत")
	if err != nil || len(d.Contacts) != 0 {
		t.Errorf("कमल.भारत imported exempt: %+v %v, want it without contacts", d, err)
	}
}

func mustRegistrars(t *testing.T, e *env) []registry.RegistrarInfo {
	t.Helper()
	rs, err := e.svc.Registrars(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// testImportConflictsRefuse (issue 34 item 5): with Conflicts "refuse" a
// name whose conflict set meets another registrar's name (registered
// before, or earlier in the file) is refused with CONFLICT naming it, and
// nothing of it is written; one meeting the same registrar's name is
// exempted as without it; with "exempt" (the default) it is exempted.
func testImportConflictsRefuse(t *testing.T, open func(*testing.T) registry.Store) {
	for _, mode := range []string{registry.ImportConflictsRefuse, registry.ImportConflictsExempt} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t, open)
			alpha, _, err := e.svc.AddRegistrar(e.ctx, "alpha")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: kitab, Lang: "hi"}); err != nil {
				t.Fatal(err)
			}
			// बतख and बत्तख are variants (row त = त्त), as किताब and कित्ताब
			file := "name,registrar\nकित्ताब,beta\nबतख,alpha\nबत्तख,beta\nबत्तख,alpha\n"
			var refused []registry.ImportRefusal
			sum, err := e.svc.Import(e.ctx, func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader([]byte(file))), nil }, registry.ImportOptions{
				Zone: "भारत", CreateRegistrars: true, ContactsExempt: true, Conflicts: mode,
				Refused: func(r registry.ImportRefusal) { refused = append(refused, r) },
			})
			if err != nil {
				t.Fatal(err)
			}
			check := func(name, registrar string) {
				t.Helper()
				d, err := e.svc.Info(e.ctx, name)
				if registrar == "" {
					if registry.CodeOf(err) != registry.CodeNotFound {
						t.Errorf("%s: %+v %v, want it not registered", name, d, err)
					}
					return
				}
				if err != nil || d.Registrar != registrar {
					t.Errorf("%s: %+v %v, want %s's", name, d, err, registrar)
				}
			}
			if mode == registry.ImportConflictsExempt {
				// कित्ताब (beta) exempted with किताब; बत्तख (beta) with बतख; the second बत्तख a duplicate
				if sum.Registered != 1 || sum.Exempted != 2 || sum.Duplicates != 1 || sum.Refused != 0 {
					t.Fatalf("exempt: %+v", sum)
				}
				check(kittab, "beta")
				return
			}
			// कित्ताब (beta) refused: किताब is alpha's; बतख registered;
			// बत्तख (beta) refused: बतख (earlier in the file) is alpha's;
			// बत्तख (alpha) exempted with बतख, the same registrar's
			if sum.Registered != 1 || sum.Exempted != 1 || sum.Refused != 2 || sum.Duplicates != 0 {
				t.Fatalf("refuse: %+v, want 1 registered, 1 exempted, 2 refused", sum)
			}
			if len(sum.RefusedByCode) != 1 || sum.RefusedByCode[0] != (registry.CodeCount{Code: registry.CodeConflict, Count: 2}) {
				t.Errorf("refused by code %v, want CONFLICT 2", sum.RefusedByCode)
			}
			wantRefused := []struct{ name, against string }{{kittab, kitab}, {"बत्तख.भारत", "बतख.भारत"}}
			if len(refused) != len(wantRefused) {
				t.Fatalf("refused %+v, want %v", refused, wantRefused)
			}
			for i, w := range wantRefused {
				if r := refused[i]; r.Name != w.name || r.Code != registry.CodeConflict || !strings.Contains(r.Reason, w.against) {
					t.Errorf("refusal %d: %+v, want %s refused with CONFLICT naming %s", i, r, w.name, w.against)
				}
			}
			check(kittab, "")
			check("बतख.भारत", "alpha")
			check("बत्तख.भारत", "alpha")
			// nothing of a refused name is held: beta's create of कित्ताब
			// is refused by किताब's set, as any create is
			beta := &registry.Registrar{}
			for _, r := range mustRegistrars(t, e) {
				if r.Name == "beta" {
					beta = &registry.Registrar{ID: r.ID, Name: r.Name}
				}
			}
			if _, err := e.svc.CreateDomain(e.ctx, beta, registry.DomainCreate{Name: kittab, Lang: "hi"}); registry.CodeOf(err) != registry.CodeConflict {
				t.Errorf("create of %s after the refused import: %v, want CONFLICT", kittab, err)
			}
		})
	}
}
