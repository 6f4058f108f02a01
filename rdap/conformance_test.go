package rdap_test

import (
	"encoding/json"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/idna"
)

// check applies the domain, variants and common-structure tests of
// ICANN's RDAP conformance tool (github.com/icann/rdap-conformance-tool,
// docs/std_95: stdRdapConformanceValidation -105xx, links -106xx,
// notices -107xx, events -109xx, status -110xx, variants -115xx, Unicode
// and LDH names -116xx/-117xx, roles -118xx, entities -119xx, error
// bodies -121xx, domain -122xx), written here from the tool's
// documentation, and returns the codes of the tests that fail.
func check(doc map[string]any, isError bool) []int {
	c := &checker{}
	rc, ok := doc["rdapConformance"]
	if !ok {
		c.fail(-10504)
	} else {
		c.conformance(rc)
	}
	if isError {
		c.errorBody(doc)
	} else if doc["objectClassName"] == "domain" || doc["ldhName"] != nil {
		c.domain(doc)
	} else if rs, ok := doc["domainSearchResults"]; ok {
		c.search(doc, rs)
	} else if doc["objectClassName"] == "entity" {
		c.entities([]any{doc})
		c.notices(doc["notices"])
		if v, ok := doc["events"]; ok {
			c.events(v)
		}
	} else if n, ok := doc["notices"]; ok {
		c.notices(n)
	}
	c.nested(doc, 0)
	sort.Ints(c.codes)
	return slices.Compact(c.codes)
}

type checker struct{ codes []int }

func (c *checker) fail(code int) { c.codes = append(c.codes, code) }

func strs(v any) ([]string, bool) {
	a, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(a))
	for _, x := range a {
		s, ok := x.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

func keysIn(m map[string]any, allowed ...string) bool {
	for k := range m {
		if !slices.Contains(allowed, k) {
			return false
		}
	}
	return true
}

// rdapExtensions: the identifiers this server may use besides rdap_level_0.
var rdapExtensions = []string{"icann_rdap_response_profile_0", "icann_rdap_technical_implementation_guide_0", "redacted", "paging"}

func (c *checker) conformance(v any) {
	a, ok := v.([]any)
	if !ok {
		c.fail(-10500)
		return
	}
	level0 := false
	for _, x := range a {
		s, ok := x.(string)
		switch {
		case !ok:
			c.fail(-10501)
		case s == "rdap_level_0":
			level0 = true
		case !slices.Contains(rdapExtensions, s):
			c.fail(-10502)
		}
	}
	if !level0 {
		c.fail(-10503)
	}
}

// nested: rdapConformance only at the top (-10505).
func (c *checker) nested(v any, depth int) {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["rdapConformance"]; ok && depth > 0 {
			c.fail(-10505)
		}
		for _, x := range v {
			c.nested(x, depth+1)
		}
	case []any:
		for _, x := range v {
			c.nested(x, depth+1)
		}
	}
}

func (c *checker) links(v any) {
	a, ok := v.([]any)
	if !ok {
		c.fail(-10600)
		return
	}
	for _, x := range a {
		l, ok := x.(map[string]any)
		if !ok {
			c.fail(-10600)
			continue
		}
		if !keysIn(l, "value", "rel", "href", "hreflang", "title", "media", "type") {
			c.fail(-10601)
		}
		if _, ok := l["href"]; !ok {
			c.fail(-10610)
		} else if s, _ := l["href"].(string); !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
			c.fail(-10611)
		}
		if _, ok := l["value"]; !ok {
			c.fail(-10612)
		}
		if _, ok := l["rel"]; !ok {
			c.fail(-10613)
		}
	}
}

func (c *checker) notices(v any) {
	a, ok := v.([]any)
	if !ok {
		c.fail(-10700)
		return
	}
	for _, x := range a {
		n, ok := x.(map[string]any)
		if !ok {
			c.fail(-10700)
			continue
		}
		if !keysIn(n, "title", "type", "description", "links") {
			c.fail(-10701)
		}
		if t, ok := n["title"]; ok {
			if _, ok := t.(string); !ok {
				c.fail(-10703)
			}
		}
		if l, ok := n["links"]; ok {
			c.links(l)
		}
		d, ok := n["description"]
		if !ok {
			c.fail(-10707)
			continue
		}
		if _, ok := d.([]any); !ok {
			c.fail(-10708)
		} else if _, ok := strs(d); !ok {
			c.fail(-10709)
		}
	}
}

var eventActions = []string{"registration", "reregistration", "last changed", "expiration", "deletion", "reinstantiation",
	"transfer", "locked", "unlocked", "last update of RDAP database", "registrar expiration", "enum validation expiration"}

func (c *checker) events(v any) {
	a, ok := v.([]any)
	if !ok {
		c.fail(-10900)
		return
	}
	seen := map[string]bool{}
	for _, x := range a {
		e, ok := x.(map[string]any)
		if !ok {
			c.fail(-10900)
			continue
		}
		if !keysIn(e, "eventAction", "eventActor", "eventDate", "links") {
			c.fail(-10901)
		}
		act, ok := e["eventAction"]
		if !ok {
			c.fail(-10903)
		} else if s, ok := act.(string); !ok {
			c.fail(-10904)
		} else {
			if !slices.Contains(eventActions, s) {
				c.fail(-10905)
			}
			if seen[s] {
				c.fail(-10912)
			}
			seen[s] = true
		}
		date, ok := e["eventDate"]
		if !ok {
			c.fail(-10906)
		} else if s, ok := date.(string); !ok {
			c.fail(-10907)
		} else if _, err := time.Parse(time.RFC3339, s); err != nil {
			c.fail(-10908)
		}
	}
}

var statuses = []string{"validated", "renew prohibited", "update prohibited", "transfer prohibited", "delete prohibited", "proxy",
	"private", "removed", "obscured", "associated", "active", "inactive", "locked", "pending create", "pending renew",
	"pending transfer", "pending update", "pending delete", "add period", "auto renew period", "client delete prohibited",
	"client hold", "client renew prohibited", "client transfer prohibited", "client update prohibited", "pending restore",
	"redemption period", "renew period", "server delete prohibited", "server renew prohibited", "server transfer prohibited",
	"server update prohibited", "server hold", "transfer period"}

func (c *checker) status(v any) {
	if _, ok := v.([]any); !ok {
		c.fail(-11000)
		return
	}
	s, ok := strs(v)
	if !ok {
		c.fail(-11001)
		return
	}
	for _, x := range s {
		if !slices.Contains(statuses, x) {
			c.fail(-11002)
		}
	}
}

var variantRelations = []string{"registered", "unregistered", "registration restricted", "open registration", "conjoined"}

func (c *checker) variants(v any) {
	a, ok := v.([]any)
	if !ok {
		c.fail(-11500)
		return
	}
	for _, x := range a {
		g, ok := x.(map[string]any)
		if !ok {
			c.fail(-11500)
			continue
		}
		if !keysIn(g, "relation", "idnTable", "variantNames") {
			c.fail(-11501)
		}
		if _, ok := g["relation"].([]any); !ok {
			c.fail(-11503)
		} else if rel, ok := strs(g["relation"]); !ok {
			c.fail(-11504)
		} else {
			for _, r := range rel {
				if !slices.Contains(variantRelations, r) {
					c.fail(-11505)
				}
			}
		}
		if t, ok := g["idnTable"]; ok {
			if _, ok := t.(string); !ok {
				c.fail(-11506)
			}
		}
		names, ok := g["variantNames"].([]any)
		if !ok {
			c.fail(-11507)
			continue
		}
		for _, y := range names {
			n, ok := y.(map[string]any)
			if !ok {
				c.fail(-11507)
				continue
			}
			if !keysIn(n, "ldhName", "unicodeName") {
				c.fail(-11508)
			}
			if l, ok := n["ldhName"]; ok && len(ldhName(l)) > 0 {
				c.fail(-11510)
			}
			if u, ok := n["unicodeName"]; ok && len(unicodeName(u)) > 0 {
				c.fail(-11511)
			}
		}
	}
}

// labels checks lengths and the count of labels (-11x00, -11x01, -11x02)
// with base -11600 (Unicode) or -11700 (LDH).
func labels(name string, base int, octets func(string) int) (codes []int) {
	name = strings.TrimSuffix(name, ".")
	ls := strings.Split(name, ".")
	for _, l := range ls {
		if n := octets(l); n < 1 || n > 63 {
			codes = append(codes, base)
		}
	}
	if len(name) > 253 && base == -11700 {
		codes = append(codes, base-1)
	}
	if len(ls) < 2 {
		codes = append(codes, base-2)
	}
	return codes
}

// ldhName: every label an A-label or an NR-LDH label (-11703).
func ldhName(v any) []int {
	s, ok := v.(string)
	if !ok {
		return []int{-11703}
	}
	codes := labels(s, -11700, func(l string) int { return len(l) })
	for _, l := range strings.Split(strings.TrimSuffix(s, "."), ".") {
		for _, r := range l {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				codes = append(codes, -11703)
			}
		}
		if strings.HasPrefix(strings.ToLower(l), "xn--") {
			if _, err := idna.Registration.ToUnicode(strings.ToLower(l)); err != nil {
				codes = append(codes, -11703)
			}
		} else if len(l) >= 4 && l[2:4] == "--" || strings.HasPrefix(l, "-") || strings.HasSuffix(l, "-") {
			codes = append(codes, -11703) // not NR-LDH
		}
	}
	return codes
}

// unicodeName: every label a U-label or an NR-LDH label (-11603).
func unicodeName(v any) []int {
	s, ok := v.(string)
	if !ok {
		return []int{-11603}
	}
	codes := labels(s, -11600, func(l string) int {
		a, err := idna.Registration.ToASCII(l)
		if err != nil {
			return len(l)
		}
		return len(a)
	})
	if _, err := idna.Registration.ToASCII(s); err != nil {
		codes = append(codes, -11603)
	}
	return codes
}

var roles = []string{"registrant", "technical", "administrative", "abuse", "billing", "registrar", "reseller", "sponsor", "proxy", "notifications", "noc"}

func (c *checker) entities(v any) {
	a, ok := v.([]any)
	if !ok {
		c.fail(-11900)
		return
	}
	for _, x := range a {
		e, ok := x.(map[string]any)
		if !ok || e["objectClassName"] != "entity" {
			c.fail(-11901)
			continue
		}
		r, ok := strs(e["roles"])
		if !ok {
			c.fail(-11800)
			continue
		}
		for i, role := range r {
			if !slices.Contains(roles, role) {
				c.fail(-11802)
			}
			if slices.Contains(r[:i], role) {
				c.fail(-11803)
			}
		}
		// what an entity has of the common structure, and its own
		// entities (a registrar's abuse contact)
		if v, ok := e["links"]; ok {
			c.links(v)
		}
		if v, ok := e["remarks"]; ok {
			c.notices(v)
		}
		if v, ok := e["status"]; ok {
			c.status(v)
		}
		if v, ok := e["entities"]; ok {
			c.entities(v)
		}
	}
}

var domainKeys = []string{"objectClassName", "handle", "ldhName", "unicodeName", "variants", "nameservers", "secureDNS",
	"entities", "status", "publicIds", "remarks", "links", "port43", "events", "notices", "rdapConformance", "lang", "redacted"}

func (c *checker) domain(d map[string]any) {
	if !keysIn(d, domainKeys...) {
		c.fail(-12201)
	}
	if d["objectClassName"] != "domain" {
		c.fail(-12203)
	}
	if h, ok := d["handle"]; ok {
		if _, ok := h.(string); !ok {
			c.fail(-12204)
		}
	}
	if l, ok := d["ldhName"]; ok && len(ldhName(l)) > 0 {
		c.fail(-12205)
	}
	if u, ok := d["unicodeName"]; ok && len(unicodeName(u)) > 0 {
		c.fail(-12206)
	}
	if v, ok := d["variants"]; ok {
		n := len(c.codes)
		c.variants(v)
		if len(c.codes) > n {
			c.fail(-12207)
		}
	}
	if v, ok := d["entities"]; ok {
		c.entities(v)
	}
	if v, ok := d["status"]; ok {
		c.status(v)
	}
	if v, ok := d["links"]; ok {
		c.links(v)
	}
	if v, ok := d["events"]; ok {
		c.events(v)
	}
	if v, ok := d["notices"]; ok {
		c.notices(v)
	}
}

// search checks a domain search's answer (RFC 9083 §8): each result a
// domain object (with no notices: those are the answer's), and RFC
// 8977's paging_metadata (-13000: its own, not the tool's, code).
func (c *checker) search(doc map[string]any, rs any) {
	a, ok := rs.([]any)
	if !ok {
		c.fail(-12201)
		return
	}
	for _, x := range a {
		d, ok := x.(map[string]any)
		if !ok {
			c.fail(-12203)
			continue
		}
		if _, ok := d["notices"]; ok {
			c.fail(-10701)
		}
		c.domain(d)
	}
	c.notices(doc["notices"])
	if pm, ok := doc["paging_metadata"]; ok {
		m, ok := pm.(map[string]any)
		if !ok || !keysIn(m, "totalCount", "pageSize", "pageNumber", "links") {
			c.fail(-13000)
			return
		}
		for _, k := range []string{"totalCount", "pageSize", "pageNumber"} {
			if v, ok := m[k]; ok {
				if n, ok := v.(float64); !ok || n < 0 || n != float64(int(n)) {
					c.fail(-13000)
				}
			}
		}
		if l, ok := m["links"]; ok {
			c.links(l)
		}
	}
}

func (c *checker) errorBody(d map[string]any) {
	ec, ok1 := d["errorCode"]
	t, ok2 := d["title"]
	desc, ok3 := d["description"]
	if !ok1 || !ok2 || !ok3 {
		c.fail(-12101)
	}
	if ok1 {
		if _, ok := ec.(float64); !ok {
			c.fail(-12103)
		}
	}
	if ok2 {
		if _, ok := t.(string); !ok {
			c.fail(-12104)
		}
	}
	if ok3 {
		if _, ok := desc.([]any); !ok {
			c.fail(-12105)
		} else if _, ok := strs(desc); !ok {
			c.fail(-12106)
		}
	}
	if n, ok := d["notices"]; ok {
		c.notices(n)
	}
}

// TestConformanceChecks: the checks themselves fail where they must, on
// documents broken one way each (a check that cannot fail proves nothing).
func TestConformanceChecks(t *testing.T) {
	e := newEnv(t)
	_, good := e.get(t, "/rdap/domain/"+kitabA)
	if fails := check(good, false); len(fails) > 0 {
		t.Fatalf("the served domain fails %v", fails)
	}
	mutate := func(f func(d map[string]any)) map[string]any {
		b, _ := json.Marshal(good)
		var d map[string]any
		json.Unmarshal(b, &d)
		f(d)
		return d
	}
	variant := func(d map[string]any) map[string]any {
		return d["variants"].([]any)[0].(map[string]any)
	}
	tests := []struct {
		name string
		doc  map[string]any
		code int
	}{
		{"no rdapConformance", mutate(func(d map[string]any) { delete(d, "rdapConformance") }), -10504},
		{"rdapConformance not an array", mutate(func(d map[string]any) { d["rdapConformance"] = "rdap_level_0" }), -10500},
		{"no rdap_level_0", mutate(func(d map[string]any) { d["rdapConformance"] = []any{"icann_rdap_response_profile_0"} }), -10503},
		{"unknown extension", mutate(func(d map[string]any) { d["rdapConformance"] = []any{"rdap_level_0", "akshara_0"} }), -10502},
		{"nested rdapConformance", mutate(func(d map[string]any) {
			d["entities"].([]any)[0].(map[string]any)["rdapConformance"] = []any{"rdap_level_0"}
		}), -10505},
		{"link without href", mutate(func(d map[string]any) { delete(d["links"].([]any)[0].(map[string]any), "href") }), -10610},
		{"link without rel", mutate(func(d map[string]any) { delete(d["links"].([]any)[0].(map[string]any), "rel") }), -10613},
		{"notice without description", mutate(func(d map[string]any) { delete(d["notices"].([]any)[0].(map[string]any), "description") }), -10707},
		{"notice description not strings", mutate(func(d map[string]any) { d["notices"].([]any)[0].(map[string]any)["description"] = []any{1} }), -10709},
		{"event date not RFC 3339", mutate(func(d map[string]any) { d["events"].([]any)[0].(map[string]any)["eventDate"] = "yesterday" }), -10908},
		{"unknown event action", mutate(func(d map[string]any) { d["events"].([]any)[0].(map[string]any)["eventAction"] = "born" }), -10905},
		{"event action twice", mutate(func(d map[string]any) { d["events"] = append(d["events"].([]any), d["events"].([]any)[0]) }), -10912},
		{"unknown status", mutate(func(d map[string]any) { d["status"] = []any{"fine"} }), -11002},
		{"variants not an array", mutate(func(d map[string]any) { d["variants"] = map[string]any{} }), -11500},
		{"unknown variants key", mutate(func(d map[string]any) { variant(d)["why"] = "x" }), -11501},
		{"relation not an array", mutate(func(d map[string]any) { variant(d)["relation"] = "unregistered" }), -11503},
		{"unknown relation", mutate(func(d map[string]any) { variant(d)["relation"] = []any{"blocked"} }), -11505},
		{"idnTable not a string", mutate(func(d map[string]any) { variant(d)["idnTable"] = 1 }), -11506},
		{"variantNames not an array", mutate(func(d map[string]any) { variant(d)["variantNames"] = "x" }), -11507},
		{"bad variant ldhName", mutate(func(d map[string]any) {
			variant(d)["variantNames"].([]any)[0].(map[string]any)["ldhName"] = "कित्ताब.भारत"
		}), -11510},
		{"bad variant unicodeName", mutate(func(d map[string]any) {
			variant(d)["variantNames"].([]any)[0].(map[string]any)["unicodeName"] = "a..b"
		}), -11511},
		{"one-label ldhName", mutate(func(d map[string]any) { d["ldhName"] = "xn--11b4aya5ed" }), -12205},
		{"unknown role", mutate(func(d map[string]any) { d["entities"].([]any)[0].(map[string]any)["roles"] = []any{"owner"} }), -11802},
		{"objectClassName", mutate(func(d map[string]any) { d["objectClassName"] = "dom" }), -12203},
		{"unknown domain key", mutate(func(d map[string]any) { d["blocks"] = []any{} }), -12201},
		{"unknown role of a nested entity", mutate(func(d map[string]any) {
			d["entities"].([]any)[0].(map[string]any)["entities"] = []any{map[string]any{"objectClassName": "entity", "roles": []any{"owner"}}}
		}), -11802},
		{"entity link without href", mutate(func(d map[string]any) {
			delete(d["entities"].([]any)[0].(map[string]any)["links"].([]any)[0].(map[string]any), "href")
		}), -10610},
		{"a search result with an unknown key", mutate(func(d map[string]any) {
			r := map[string]any{}
			for k, v := range d {
				if k != "rdapConformance" && k != "notices" {
					r[k] = v
				}
			}
			r["blocks"] = []any{}
			for k := range d {
				delete(d, k)
			}
			d["rdapConformance"] = []any{"rdap_level_0", "paging"}
			d["domainSearchResults"] = []any{r}
			d["notices"] = []any{}
		}), -12201},
		{"paging_metadata of a string", mutate(func(d map[string]any) {
			r := map[string]any{}
			for k, v := range d {
				if k != "rdapConformance" && k != "notices" {
					r[k] = v
				}
			}
			for k := range d {
				delete(d, k)
			}
			d["rdapConformance"] = []any{"rdap_level_0", "paging"}
			d["domainSearchResults"] = []any{r}
			d["paging_metadata"] = map[string]any{"pageSize": "fifty"}
			d["notices"] = []any{}
		}), -13000},
	}
	for _, tt := range tests {
		if fails := check(tt.doc, false); !slices.Contains(fails, tt.code) {
			t.Errorf("%s: checks found %v, want %d", tt.name, fails, tt.code)
		}
	}
	if _, blocked := e.get(t, "/rdap/domain/"+kittabA); len(check(blocked, false)) > 0 {
		t.Errorf("the served blocked variant fails %v", check(blocked, false))
	}
	_, bad := e.get(t, "/rdap/domain/"+url.PathEscape("कमल.भारत"))
	if fails := check(bad, true); len(fails) > 0 {
		t.Errorf("the served 404 fails %v", fails)
	}
	delete(bad, "title")
	bad["description"] = "x"
	if fails := check(bad, true); !slices.Contains(fails, -12101) || !slices.Contains(fails, -12105) {
		t.Errorf("a broken error body: %v", fails)
	}
}
