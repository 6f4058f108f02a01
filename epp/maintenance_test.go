package epp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/registry"
)

// TestMaintenanceInfo: <maint:info> (RFC 9167) lists the windows not
// cancelled and reads one by id; a login may list the maintenance and
// changePoll extensions; the greeting offers both. Every frame is
// validated with xmllint (the vendored maintenance-1.0.xsd).
func TestMaintenanceInfo(t *testing.T) {
	e := newEnv(t, epp.Options{})
	ctx := t.Context()
	start := time.Date(2031, 3, 1, 2, 0, 0, 0, time.UTC)
	m, err := e.svc.CreateMaintenance(ctx, registry.Maintenance{Name: "March upgrade", Types: []string{"Routine maintenance"}, Start: start, End: start.Add(2 * time.Hour),
		Systems: []registry.MaintenanceSystem{{Name: "EPP", Host: "epp.registry.in", Impact: "partial"}, {Name: "RDAP", Impact: "none"}},
		Detail:  "https://registry.in/maintenance/march", Description: "PostgreSQL upgrade", TLDs: []string{"भारत", "in"}, Connection: true})
	if err != nil {
		t.Fatal(err)
	}
	gone, err := e.svc.CreateMaintenance(ctx, registry.Maintenance{Start: start, End: start.Add(time.Hour), Reason: "emergency", Systems: []registry.MaintenanceSystem{{Name: "WHOIS", Impact: "full"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.CancelMaintenance(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	c := e.dial()
	greet := c.do(head + `<hello/></epp>`)
	for _, ns := range []string{epp.NSChangePoll, epp.NSMaint} {
		if !strings.Contains(greet, "<extURI>"+ns+"</extURI>") {
			t.Errorf("greeting without %s: %s", ns, greet)
		}
	}
	login := strings.Replace(loginFrame("acme", "secret12", ""), "</svcExtension>", "<extURI>"+epp.NSChangePoll+"</extURI><extURI>"+epp.NSMaint+"</extURI></svcExtension>", 1)
	if r := c.do(login); code(r) != 1000 {
		t.Fatalf("login with changePoll and maintenance: %s", r)
	}
	info := func(inner string) string {
		return cmd(`<info><maint:info xmlns:maint="` + epp.NSMaint + `">` + inner + `</maint:info></info>`)
	}
	r := c.do(info(`<maint:list/>`))
	if code(r) != 1000 || !strings.Contains(r, "<maint:id name=\"March upgrade\">"+m.ID+"</maint:id>") || strings.Contains(r, gone.ID) {
		t.Errorf("maint:info list: %s\nwant %s and not the cancelled %s", r, m.ID, gone.ID)
	}
	r = c.do(info(`<maint:id>` + m.ID + `</maint:id>`))
	for _, want := range []string{`<maint:impact>partial</maint:impact>`, `<maint:environment type="production"/>`, `<maint:reason>planned</maint:reason>`,
		`<maint:tld>xn--h2brj9c</maint:tld>`, `<maint:connection>true</maint:connection>`, `<maint:start>2031-03-01T02:00:00.0Z</maint:start>`} {
		if code(r) != 1000 || !strings.Contains(r, want) {
			t.Errorf("maint:info id: %s\nwant %s", r, want)
		}
	}
	if r := c.do(info(`<maint:id>m-none</maint:id>`)); code(r) != 2303 {
		t.Errorf("maint:info of no window: %s, want 2303", r)
	}
	// the queue: created, created, cancelled
	var types []string
	for range 3 {
		r := c.do(cmd(`<poll op="req"/>`))
		i := strings.Index(r, "<maint:pollType>")
		j := strings.Index(r, "</maint:pollType>")
		if code(r) != 1301 || i < 0 || j < i {
			t.Fatalf("poll: %s", r)
		}
		types = append(types, r[i+len("<maint:pollType>"):j])
		id := r[strings.Index(r, `id="`)+4:]
		id = id[:strings.Index(id, `"`)]
		c.do(cmd(`<poll op="ack" msgID="` + id + `"/>`))
	}
	if strings.Join(types, " ") != "create create delete" {
		t.Errorf("maintenance poll types %q, want create create delete", types)
	}
}
