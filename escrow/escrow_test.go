package escrow_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/escrow"
	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// T0 is when the fixture registry starts.
var T0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

type opener func(t *testing.T) registry.Store

func stores(t *testing.T) map[string]opener {
	m := map[string]opener{
		"sqlite": func(t *testing.T) registry.Store {
			s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "r.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
	if os.Getenv("AKSHARA_TEST_POSTGRES_DSN") != "" || os.Getenv("CI") == "true" {
		m["postgres"] = func(t *testing.T) registry.Store {
			s, err := postgres.Open(t.Context(), pgtest.DSN(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
	}
	return m
}

func service(t *testing.T, store registry.Store, clock *registry.ManualClock) *registry.Service {
	svc, err := registry.NewServiceWith(t.Context(), store, registry.ServiceOptions{Clock: clock, Contacts: registrytest.NoContacts()})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// xmllint returns the xmllint command, or skips (fails under CI=true).
func xmllint(t *testing.T) string {
	p, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("xmllint is missing (Debian libxml2-utils)")
		}
		t.Log("xmllint missing: deposits not validated against the schemas")
		return ""
	}
	return p
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// The names of the fixture, and names near them that checks ask about.
var (
	registered = []string{"किताब.भारत", "चाँद.भारत", "चॉंद.भारत", "কিতাব.ভারত", "কিতাব.ভাৰত", "সরকার.ভারত", "সরকার.in", "example.in", "delete-me.in", "transferme.in", "kitab.in", "long.in", "xyz-xy.in"}
	probes     = append(slices.Clone(registered), "कित्ताब.भारत", "সৰকাৰ.ভাৰত", "সৰকাৰ.in", "ন্যায়.ভাৰত", "मंदिर.भारत", "free-name.in", "किताब.in")
)

// fixture builds a registry with IDN domains in several languages and
// zones, a zone family pair, an exempted pair, a reserved name, hosts with
// glue, DS records, contacts, a domain in redemption and one with a
// transfer pending.
func fixture(t *testing.T, svc *registry.Service, clock *registry.ManualClock) {
	ctx := t.Context()
	a, _, err := svc.AddRegistrar(ctx, "alpha")
	must(t, "registrar", err)
	b, _, err := svc.AddRegistrar(ctx, "beta")
	must(t, "registrar", err)
	_, err = svc.CreateContact(ctx, a, registry.ContactCreate{ID: "rs-1", ContactData: registrytest.DevanagariContact(), AuthInfo: "Contact-pw-1-strong"})
	must(t, "contact", err)
	_, err = svc.CreateContact(ctx, a, registry.ContactCreate{ID: "tech-1", ContactData: registry.ContactData{Postal: []registry.PostalInfo{{Type: "int", Name: "Tech Person", City: "Pune", CC: "IN"}}, Email: "tech@example.in"}, AuthInfo: "Contact-pw-2-strong"})
	must(t, "contact", err)
	_, err = svc.CreateContact(ctx, b, registry.ContactCreate{ID: "rb-1", ContactData: registry.ContactData{Postal: []registry.PostalInfo{{Type: "int", Name: "Beta Owner", City: "Kolkata", CC: "IN"}}, Email: "b@example.in"}, AuthInfo: "Contact-pw-3-strong"})
	must(t, "contact", err)
	create := func(r *registry.Registrar, c registry.DomainCreate) {
		t.Helper()
		if c.AuthInfo == "" {
			c.AuthInfo = "2fooBAR!xQ7wK4pL"
		}
		_, err := svc.CreateDomain(ctx, r, c)
		must(t, "create "+c.Name, err)
	}
	create(a, registry.DomainCreate{Name: "किताब.भारत", Lang: "hi", Contacts: []registry.DomainContact{{Role: "registrant", ID: "rs-1"}, {Role: "tech", ID: "tech-1"}}})
	create(a, registry.DomainCreate{Name: "चाँद.भारत", Lang: "hi"})
	create(b, registry.DomainCreate{Name: "चॉंद.भारत", Lang: "mr", Exempt: true})
	create(b, registry.DomainCreate{Name: "কিতাব.ভারত", Contacts: []registry.DomainContact{{Role: "registrant", ID: "rb-1"}}})
	// the same label under the other member TLD, for the same registrant:
	// a variant group (same entity, docs/variants.md), deposited with its
	// originalName and restored as one group holding one set
	create(b, registry.DomainCreate{Name: "কিতাব.ভাৰত", Contacts: []registry.DomainContact{{Role: "registrant", ID: "rb-1"}}})
	create(a, registry.DomainCreate{Name: "সরকার.ভারত"})
	create(a, registry.DomainCreate{Name: "সরকার.in"})
	create(a, registry.DomainCreate{Name: "example.in"})
	create(a, registry.DomainCreate{Name: "delete-me.in"})
	create(a, registry.DomainCreate{Name: "transferme.in", AuthInfo: "Transfer-pw-9-strong"})
	create(b, registry.DomainCreate{Name: "kitab.in"})
	// registrars whose names are no EPP clID (3 to 16 characters)
	long, _, err := svc.AddRegistrar(ctx, "Registrar with a long name")
	must(t, "registrar", err)
	create(long, registry.DomainCreate{Name: "long.in"})
	xy, _, err := svc.AddRegistrar(ctx, "xy")
	must(t, "registrar", err)
	create(xy, registry.DomainCreate{Name: "xyz-xy.in"})
	_, err = svc.Reserve(ctx, "मंदिर.भारत", "the operator's own")
	must(t, "reserve", err)
	_, err = svc.CreateHost(ctx, a, registry.HostCreate{Name: "ns1.किताब.भारत", Addrs: []registry.Addr{{IP: "8.8.8.8", Family: "v4"}, {IP: "2001:4860:4860::8888", Family: "v6"}}})
	must(t, "host", err)
	_, err = svc.CreateHost(ctx, a, registry.HostCreate{Name: "ns1.example.com"})
	must(t, "host", err)
	_, err = svc.CreateHost(ctx, b, registry.HostCreate{Name: "ns2.example.net"})
	must(t, "host", err)
	_, err = svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: "किताब.भारत", AddNS: []string{"ns1.किताब.भारत", "ns1.example.com"},
		AddDS: []registry.DS{{KeyTag: 12345, Algorithm: 13, DigestType: 2, Digest: "49FD46E6C4B45C55D4AC69CBD3CD34AC1AFE51DE9C89C1F0A6F5D1BC4AA6D2E4"}}, AddStatuses: []string{"clientTransferProhibited"}})
	must(t, "update", err)
	_, err = svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: "example.in", AddNS: []string{"ns1.example.com"}})
	must(t, "update", err)
	_, err = svc.UpdateDomain(ctx, b, registry.DomainUpdate{Name: "kitab.in", AddNS: []string{"ns2.example.net"}})
	must(t, "update", err)
	clock.Advance(61 * 24 * time.Hour) // past the add grace period and the transfer lock
	_, err = svc.DeleteDomain(ctx, a, registry.DomainDelete{Name: "delete-me.in"})
	must(t, "delete", err)
	_, err = svc.TransferDomain(ctx, b, registry.DomainTransfer{Name: "transferme.in", Op: registry.TransferRequestOp, AuthInfo: "Transfer-pw-9-strong"})
	must(t, "transfer", err)
	clock.Advance(time.Hour)
}

// snapshot is what must be identical after a restore: every check
// answer, every info, every zone export.
func snapshot(t *testing.T, svc *registry.Service, more ...string) string {
	ctx := t.Context()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, n := range append(slices.Clone(probes), more...) {
		res, err := svc.Check(ctx, n, "")
		must(t, "check "+n, err)
		enc.Encode(res)
	}
	encodeEach(t, enc, "info", append(slices.Clone(registered), more...), func(n string) (*registry.Domain, error) {
		d, err := svc.Info(ctx, n)
		if d != nil {
			d.ID, d.RegistrarID = 0, 0
		}
		return d, err
	})
	encodeEach(t, enc, "host", []string{"ns1.किताब.भारत", "ns1.example.com", "ns2.example.net", "ns9.example.org", "ns2.किताब.भारत"}, func(n string) (*registry.Host, error) {
		h, err := svc.HostInfo(ctx, n)
		if h != nil {
			h.ID, h.Version = 0, 0
		}
		return h, err
	})
	encodeEach(t, enc, "contact", []string{"rs-1", "tech-1", "rb-1", "new-1"}, func(id string) ([]any, error) {
		c, err := svc.Store().(registry.ContactStore).Contact(ctx, id)
		if c == nil {
			return nil, err
		}
		c.ROID, c.Version = 0, 0
		return []any{c, c.AuthHash}, err
	})
	rs, err := svc.ReservedNames(ctx, "")
	must(t, "reserved", err)
	enc.Encode(rs)
	for _, z := range svc.Zones() {
		err := svc.ExportZone(ctx, z.Name, registry.ZoneExportOptions{NS: []string{"a.nic.example."}}, &b)
		must(t, "export "+z.Name, err)
	}
	return b.String()
}

// encodeEach encodes what get returns for each key (its ids and versions,
// which a restore renumbers, cleared by get), or "absent KEY".
func encodeEach[T any](t *testing.T, enc *json.Encoder, what string, keys []string, get func(string) (T, error)) {
	t.Helper()
	for _, k := range keys {
		v, err := get(k)
		if registry.CodeOf(err) == registry.CodeNotFound {
			enc.Encode("absent " + k)
			continue
		}
		must(t, what+" "+k, err)
		enc.Encode(v)
	}
}

// checkDeposits checks the files of a deposit (one a zone family, named
// TLD_suffix.xml), validates each and its report, and returns their
// paths; every registered domain is in exactly one.
func checkDeposits(t *testing.T, res []*escrow.Result, lint, suffix string) []string {
	t.Helper()
	var files []string
	domains := int64(0)
	for _, r := range res {
		files = append(files, r.File)
		tld, _, _ := strings.Cut(filepath.Base(r.File), "_")
		if filepath.Base(r.File) != tld+"_"+suffix+".xml" {
			t.Errorf("deposit file %s, want TLD_%s.xml", r.File, suffix)
		}
		v, err := escrow.Verify(r.File, escrow.VerifyOptions{Xmllint: lint})
		must(t, "verify "+r.File, err)
		domains += v.Counts["urn:ietf:params:xml:ns:rdeDomain-1.0"]
		if lint != "" {
			must(t, "report schema", escrow.Validate(lint, r.Report))
		}
	}
	if domains != int64(len(registered)) {
		t.Errorf("the deposits hold %d domains, want %d", domains, len(registered))
	}
	return files
}

func TestRoundTrip(t *testing.T) {
	lint := xmllint(t)
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			clock := registry.NewManualClock(T0)
			src := service(t, open(t), clock)
			fixture(t, src, clock)
			dir := t.TempDir()
			res, err := escrow.Deposit(t.Context(), src, escrow.Options{Type: "FULL", Watermark: clock.Now(), Dir: dir})
			must(t, "deposit", err)
			files := checkDeposits(t, res, lint, "2030-03-03_full_S1_R0")
			dst := service(t, open(t), clock)
			rep, err := escrow.Restore(t.Context(), dst, files, escrow.VerifyOptions{})
			must(t, "restore", err)
			if len(rep.Disagreements) > 0 {
				t.Errorf("restore disagreements: %q", rep.Disagreements)
			}
			if got, want := snapshot(t, dst), snapshot(t, src); got != want {
				t.Errorf("restored registry differs:\n%s", lineDiff(got, want))
			}
			// a second restore into the restored (not empty) store is refused
			if _, err := escrow.Restore(t.Context(), dst, files, escrow.VerifyOptions{}); registry.CodeOf(err) != registry.CodeEscrowRestore {
				t.Errorf("restore into a registry that is not empty: %v", err)
			}
		})
	}
}

var _ = context.Background

// TestRefused: a deposit cut at a byte, one naming a contact it does not
// hold, one whose header counts disagree, and one restore refused half
// way are refused by verify and by restore with named codes, and nothing
// is written.
func TestRefused(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			clock := registry.NewManualClock(T0)
			src := service(t, open(t), clock)
			fixture(t, src, clock)
			dir := t.TempDir()
			res, err := escrow.Deposit(t.Context(), src, escrow.Options{Watermark: clock.Now(), Dir: dir})
			must(t, "deposit", err)
			var file string
			var files []string
			for _, r := range res {
				files = append(files, r.File)
				if strings.HasPrefix(filepath.Base(r.File), "xn--h2brj9c_") {
					file = r.File
				}
			}
			good, err := os.ReadFile(file)
			must(t, "read", err)
			dst := service(t, open(t), clock)
			bad := filepath.Join(dir, "bad.xml")
			refused := func(what string, body []byte, code string) {
				t.Helper()
				must(t, "write", os.WriteFile(bad, body, 0o644))
				if _, err := escrow.Verify(bad, escrow.VerifyOptions{}); code != registry.CodeEscrowRestore && registry.CodeOf(err) != code {
					t.Errorf("%s: verify: %v, want %s", what, err, code)
				}
				all := slices.DeleteFunc(slices.Clone(files), func(f string) bool { return f == file })
				if _, err := escrow.Restore(t.Context(), dst, append(all, bad), escrow.VerifyOptions{}); registry.CodeOf(err) != code {
					t.Errorf("%s: restore: %v, want %s", what, err, code)
				}
				if regs, err := dst.Store().Registrars(t.Context()); err != nil || len(regs) != 0 {
					t.Fatalf("%s: the store holds %d registrars after a refused restore (%v)", what, len(regs), err)
				}
			}
			step := max(1, len(good)/97)
			for cut := 0; cut < len(good)-1; cut += step {
				refused("cut at byte "+strconv.Itoa(cut), good[:cut], escrow.CodeTruncated)
			}
			refused("cut before the last newline", bytes.TrimSuffix(good, []byte("</rde:deposit>\n")), escrow.CodeTruncated)
			refused("missing contact", bytes.Replace(good, []byte("<rdeDomain:registrant>rs-1<"), []byte("<rdeDomain:registrant>rs-9<"), 1), escrow.CodeReference)
			refused("missing registrar", bytes.Replace(good, []byte("<rdeDomain:clID>beta<"), []byte("<rdeDomain:clID>gamma<"), 1), escrow.CodeReference)
			refused("wrong count", bytes.Replace(good, []byte(`rdeContact-1.0">2<`), []byte(`rdeContact-1.0">3<`), 1), escrow.CodeCount)
			// valid as a deposit, refused by the registry half way: a domain
			// of a zone it does not serve, after every other object
			body := bytes.Replace(good, []byte("<rdeDomain:uName>चाँद.भारत<"), []byte("<rdeDomain:uName>चाँद.example<"), 1)
			refused("unknown zone", body, registry.CodeEscrowRestore)
		})
	}
}

// TestForeignDeposit: a deposit written by another registry system (by
// hand, after RFC 9022's examples) restores: the name today's policy
// refuses is kept as legacy, the colliding names are kept exempted, and
// the deposit's NNDN objects are compared with the recomputed sets.
func TestForeignDeposit(t *testing.T) {
	lint := xmllint(t)
	const file = "testdata/foreign.xml"
	if _, err := escrow.Verify(file, escrow.VerifyOptions{Xmllint: lint}); err != nil {
		t.Fatalf("verify: %v", err)
	}
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			clock := registry.NewManualClock(time.Date(2019, 10, 17, 0, 0, 0, 0, time.UTC))
			svc := service(t, open(t), clock)
			rep, err := escrow.Restore(t.Context(), svc, []string{file}, escrow.VerifyOptions{})
			must(t, "restore", err)
			if rep.Domains != 6 || rep.Contacts != 2 || rep.Hosts != 2 || rep.Registrars != 2 {
				t.Errorf("restored %+v", rep)
			}
			if !slices.Equal(rep.Legacy, []string{"क्अब.भारत: " + legacyCodes(t, svc, "क्अब.भारत")}) {
				t.Errorf("legacy %q", rep.Legacy)
			}
			if !slices.Equal(rep.Exempted, []string{"चॉंद.भारत: with चाँद.भारत"}) {
				t.Errorf("exempted %q", rep.Exempted)
			}
			if rep.Blocked != 1 || len(rep.Disagreements) != 1 {
				t.Errorf("NNDN: %d blocked, disagreements %q (want the count's alone: the other registry listed one variant)", rep.Blocked, rep.Disagreements)
			}
			ctx := t.Context()
			d, err := svc.Info(ctx, "example.in")
			must(t, "info", err)
			if d.Registrar != "RegistrarX" || len(d.NameServers) != 2 || len(d.DS) != 1 || len(d.Contacts) != 3 || !d.Expires.Equal(time.Date(2025, 4, 3, 22, 0, 0, 0, time.UTC)) {
				t.Errorf("example.in = %+v", d)
			}
			if d, err := svc.Info(ctx, "चॉंद.भारत"); err != nil || !d.Exempted || !slices.Contains(d.Statuses, "redemptionPeriod") || d.Lang != "mr" {
				t.Errorf("चॉंद.भारत = %+v, %v", d, err)
			}
			if d, err := svc.Info(ctx, "क्अब.भारत"); err != nil || len(d.Legacy) == 0 {
				t.Errorf("क्अब.भारत = %+v, %v", d, err)
			}
			if c, err := svc.Check(ctx, "कित्ताब.भारत", ""); err != nil || c.Status != registry.Blocked || c.BlockedBy != "किताब.भारत" {
				t.Errorf("check कित्ताब.भारत = %+v, %v", c, err)
			}
			if h, err := svc.HostInfo(ctx, "ns1.example.in"); err != nil || len(h.Addrs) != 2 {
				t.Errorf("host = %+v, %v", h, err)
			}
			if tr, err := svc.TransferDomain(ctx, &registry.Registrar{Name: "RegistrarX"}, registry.DomainTransfer{Name: "transfer-me.in", Op: registry.TransferQueryOp}); err == nil && tr.Status != registry.TransferPending {
				t.Errorf("transfer-me.in transfer %+v", tr)
			}
		})
	}
}

// legacyCodes is the rule codes the policy gives a name.
func legacyCodes(t *testing.T, svc *registry.Service, name string) string {
	res, err := svc.Check(t.Context(), name, "hi")
	must(t, "check", err)
	var codes []string
	for _, e := range res.Errors {
		codes = append(codes, e.Code.String())
	}
	slices.Sort(codes)
	return strings.Join(slices.Compact(codes), " ")
}

// TestDiff: after a FULL deposit, a day of changes (creates, an exempted
// create, deletes, a transfer approved, hosts and contacts changed and
// deleted, a name reserved and one released) makes a DIFF deposit; then a
// purge another, with the purged domains in <rde:deletes>. FULL+DIFF
// restored is identical to the registry at each watermark, on both
// stores.
func TestDiff(t *testing.T) {
	lint := xmllint(t)
	extra := []string{"नया.भारत", "दूसरा.in", "चांद.भारत"}
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			clock := registry.NewManualClock(T0)
			src := service(t, open(t), clock)
			fixture(t, src, clock)
			dir := t.TempDir()
			full, err := escrow.Deposit(ctx, src, escrow.Options{Type: "FULL", Watermark: clock.Now(), Dir: dir})
			must(t, "full", err)
			if _, err := escrow.Deposit(ctx, src, escrow.Options{Type: "DIFF", Watermark: clock.Now(), Dir: dir}); err == nil {
				t.Errorf("a DIFF at the FULL's watermark was written")
			}
			regs, err := src.Store().Registrars(ctx)
			must(t, "registrars", err)
			reg := map[string]*registry.Registrar{}
			for i := range regs {
				reg[regs[i].Name] = &regs[i].Registrar
			}
			a, b := reg["alpha"], reg["beta"]
			// a day of changes
			clock.Advance(2 * time.Hour)
			_, err = src.CreateContact(ctx, a, registry.ContactCreate{ID: "new-1", ContactData: registry.ContactData{Postal: []registry.PostalInfo{{Type: "int", Name: "New", City: "Delhi", CC: "IN"}}, Email: "n@example.in"}, AuthInfo: "Contact-pw-4-strong"})
			must(t, "contact", err)
			_, err = src.CreateDomain(ctx, a, registry.DomainCreate{Name: "नया.भारत", Lang: "hi", AuthInfo: "2fooBAR!xQ7wK4pL", Contacts: []registry.DomainContact{{Role: "registrant", ID: "new-1"}}})
			must(t, "create", err)
			_, err = src.CreateDomain(ctx, b, registry.DomainCreate{Name: "दूसरा.in", Lang: "hi", AuthInfo: "2fooBAR!xQ7wK4pL"})
			must(t, "create", err)
			_, err = src.CreateDomain(ctx, b, registry.DomainCreate{Name: "चांद.भारत", Lang: "hi", Exempt: true})
			if err != nil {
				extra = extra[:2]
			}
			must(t, "contact update", src.UpdateContact(ctx, a, registry.ContactUpdate{ID: "tech-1", Email: "tech2@example.in"}))
			_, err = src.CreateHost(ctx, a, registry.HostCreate{Name: "ns2.किताब.भारत", Addrs: []registry.Addr{{IP: "8.8.4.4", Family: "v4"}}})
			must(t, "host", err)
			_, err = src.UpdateDomain(ctx, b, registry.DomainUpdate{Name: "kitab.in", RemNS: []string{"ns2.example.net"}})
			must(t, "update", err)
			must(t, "host delete", src.DeleteHost(ctx, b, registry.HostDelete{Name: "ns2.example.net"}))
			must(t, "host update", src.UpdateHost(ctx, a, registry.HostUpdate{Name: "ns1.किताब.भारत", RemAddrs: []registry.Addr{{IP: "8.8.8.8", Family: "v4"}}}))
			_, err = src.TransferDomain(ctx, a, registry.DomainTransfer{Name: "transferme.in", Op: registry.TransferApproveOp})
			must(t, "approve", err)
			_, err = src.DeleteDomain(ctx, a, registry.DomainDelete{Name: "সরকার.in"})
			must(t, "delete", err)
			must(t, "unreserve", src.Unreserve(ctx, "मंदिर.भारत"))
			_, err = src.Reserve(ctx, "नीति.भारत", "")
			must(t, "reserve", err)
			clock.Advance(20 * time.Hour)
			diff1, err := escrow.Deposit(ctx, src, escrow.Options{Type: "DIFF", Watermark: clock.Now(), Dir: dir})
			must(t, "diff", err)
			want1 := snapshot(t, src, extra...)
			// the purge of the domains deleted
			clock.Advance(40 * 24 * time.Hour)
			_, err = src.RunLifecycle(ctx, 0)
			must(t, "lifecycle", err)
			diff2, err := escrow.Deposit(ctx, src, escrow.Options{Type: "DIFF", Watermark: clock.Now(), Dir: dir})
			must(t, "diff", err)
			want2 := snapshot(t, src, extra...)
			deletes := 0
			var files1, files2 []string
			for _, r := range full {
				files1 = append(files1, r.File)
			}
			for _, r := range diff1 {
				_, err := escrow.Verify(r.File, escrow.VerifyOptions{Xmllint: lint})
				must(t, "verify diff", err)
				files1 = append(files1, r.File)
			}
			files2 = slices.Clone(files1)
			for _, r := range diff2 {
				_, err := escrow.Verify(r.File, escrow.VerifyOptions{Xmllint: lint})
				must(t, "verify diff", err)
				b, _ := os.ReadFile(r.File)
				deletes += bytes.Count(b, []byte("<rdeDomain:delete>"))
				files2 = append(files2, r.File)
			}
			if deletes != 2 {
				t.Errorf("the DIFF after the purge deletes %d domains, want 2 (delete-me.in, সরকার.in)", deletes)
			}
			for i, tc := range []struct {
				files []string
				want  string
			}{{files1, want1}, {files2, want2}} {
				dst := service(t, open(t), clock)
				rep, err := escrow.Restore(ctx, dst, tc.files, escrow.VerifyOptions{})
				must(t, "restore", err)
				if len(rep.Disagreements) > 0 {
					t.Errorf("restore %d: disagreements %q", i+1, rep.Disagreements)
				}
				if got := snapshot(t, dst, extra...); got != tc.want {
					t.Errorf("FULL+%d DIFF restored differs:\n%s", i+1, lineDiff(got, tc.want))
				}
			}
		})
	}
}

// lineDiff lists the lines of got and want that differ.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			b.WriteString("line " + strconv.Itoa(i+1) + ":\n got " + gl + "\nwant " + wl + "\n")
		}
	}
	return b.String()
}

// TestConcurrentDeposit: deposits taken while creates (with contacts),
// deletes and transfers run are each the registry at one instant: every
// reference resolves and the counts agree (Verify), every NNDN's holder is
// a domain of the deposit, and each restores with no disagreement.
func TestConcurrentDeposit(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			clock := registry.NewManualClock(T0)
			src := service(t, open(t), clock)
			fixture(t, src, clock)
			regs, err := src.Store().Registrars(ctx)
			must(t, "registrars", err)
			a, b := &regs[0].Registrar, &regs[1].Registrar
			stop := make(chan struct{})
			done := make(chan error, 3)
			go func() { // creates, each with a contact of its own
				for i := 0; ; i++ {
					select {
					case <-stop:
						done <- nil
						return
					default:
					}
					id := "cc-" + strconv.Itoa(i)
					if _, err := src.CreateContact(ctx, a, registry.ContactCreate{ID: id, ContactData: registry.ContactData{Postal: []registry.PostalInfo{{Type: "int", Name: "C", City: "Delhi", CC: "IN"}}, Email: "c@example.in"}, AuthInfo: "Contact-pw-1-strong"}); err != nil {
						done <- err
						return
					}
					if _, err := src.CreateDomain(ctx, a, registry.DomainCreate{Name: "conc" + strconv.Itoa(i) + ".in", AuthInfo: "Transfer-pw-9-strong", Contacts: []registry.DomainContact{{Role: "registrant", ID: id}}}); err != nil {
						done <- err
						return
					}
				}
			}()
			go func() { // deletes of what the first made, then of their contacts
				for i := 0; ; i++ {
					select {
					case <-stop:
						done <- nil
						return
					default:
					}
					_, err := src.DeleteDomain(ctx, a, registry.DomainDelete{Name: "conc" + strconv.Itoa(i) + ".in"})
					if registry.CodeOf(err) == registry.CodeNotFound {
						i--
						time.Sleep(time.Millisecond)
						continue
					}
					if err != nil {
						done <- err
						return
					}
				}
			}()
			go func() { // transfers requested and cancelled (a registrar's requests are limited a day: then idle)
				names := []string{"चाँद.भारत", "example.in", "সরকার.ভারত", "সরকার.in"}
				for i := 0; ; i++ {
					select {
					case <-stop:
						done <- nil
						return
					default:
					}
					n := names[i%len(names)]
					_, err := src.TransferDomain(ctx, b, registry.DomainTransfer{Name: n, Op: registry.TransferCancelOp})
					if registry.CodeOf(err) == registry.CodeNotPendingTransfer || err == nil {
						_, err = src.TransferDomain(ctx, b, registry.DomainTransfer{Name: n, Op: registry.TransferRequestOp, AuthInfo: "2fooBAR!xQ7wK4pL"})
					}
					switch registry.CodeOf(err) {
					case registry.CodeTransferLimited, registry.CodeAuthInfoLocked, registry.CodeBadAuthInfo, registry.CodePendingTransfer:
						time.Sleep(time.Millisecond)
					default:
						if err != nil {
							done <- err
							return
						}
					}
				}
			}()
			var deposits [][]string
			for range 4 {
				time.Sleep(20 * time.Millisecond)
				dir := t.TempDir()
				res, err := escrow.Deposit(ctx, src, escrow.Options{Watermark: clock.Now(), Dir: dir})
				must(t, "deposit", err)
				var files []string
				for _, r := range res {
					_, err := escrow.Verify(r.File, escrow.VerifyOptions{})
					must(t, "verify", err)
					files = append(files, r.File)
				}
				deposits = append(deposits, files)
				clock.Advance(time.Second)
			}
			close(stop)
			for range 3 {
				if err := <-done; err != nil {
					t.Fatalf("a writer: %v", err)
				}
			}
			for i, files := range deposits {
				dst := service(t, open(t), clock)
				rep, err := escrow.Restore(ctx, dst, files, escrow.VerifyOptions{})
				must(t, "restore", err)
				if len(rep.Disagreements) > 0 {
					t.Errorf("deposit %d: disagreements %q", i, rep.Disagreements)
				}
				t.Logf("deposit %d: %d domains, %d contacts, %d blocked names", i, rep.Domains, rep.Contacts, rep.Blocked)
			}
		})
	}
}

// TestRestorePlansForSize: a PostgreSQL restore keeps the planner's
// statistics up with the tables it fills in one transaction, as a bulk
// import does: after its 1,000th domain the domains table has been
// analyzed (by the restore: autovacuum sets last_autoanalyze, not
// last_analyze). Without it the restore planned every lookup by name for
// an empty table: 9,337 domains took 45 s instead of 18.
func TestRestorePlansForSize(t *testing.T) {
	open, ok := stores(t)["postgres"]
	if !ok {
		t.Skip("no PostgreSQL: set AKSHARA_TEST_POSTGRES_DSN")
	}
	clock := registry.NewManualClock(T0)
	src := service(t, stores(t)["sqlite"](t), clock)
	sum, err := src.Import(t.Context(), registrytest.GeneratedImport(t, 1300, 7),
		registry.ImportOptions{Zone: "भारत", Registrar: "old", CreateRegistrars: true, ContactsExempt: true, AllowInvalid: true})
	must(t, "import", err)
	if sum.Registered+sum.Exempted < 1000 {
		t.Fatalf("%d domains imported: the restore must reach its 1,000th", sum.Registered+sum.Exempted)
	}
	dir := t.TempDir()
	res, err := escrow.Deposit(t.Context(), src, escrow.Options{Type: "FULL", Watermark: clock.Now(), Dir: dir})
	must(t, "deposit", err)
	var files []string
	for _, r := range res {
		files = append(files, r.File)
	}
	store := open(t)
	dst := service(t, store, clock)
	rep, err := escrow.Restore(t.Context(), dst, files, escrow.VerifyOptions{})
	must(t, "restore", err)
	if rep.Domains != sum.Registered+sum.Exempted {
		t.Fatalf("%d domains restored of %d", rep.Domains, sum.Registered+sum.Exempted)
	}
	var analyzed bool
	err = store.(interface{ DB() *sql.DB }).DB().QueryRowContext(t.Context(),
		`SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables WHERE relname = 'domains'`).Scan(&analyzed)
	must(t, "pg_stat_user_tables", err)
	if !analyzed {
		t.Error("the restore of more than 1,000 domains did not analyze the domains table")
	}
}
