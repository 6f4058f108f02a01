package httpapi_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/registry"
)

// TestIssue9 replays, over HTTP, every case of issue 9: homograph blocking
// holds across a zone whatever language each registrant names.
func TestIssue9(t *testing.T) {
	type step struct {
		name, lang string
		token      int // 0: registrar a, 1: b
		status     int
		blockedBy  string // for a 409
		wantLang   string // for a 201, when set
	}
	for _, tc := range []struct {
		title string
		steps []step
	}{
		{"Marathi then Nepali in भारत", []step{
			{"किताब.भारत", "mr", 0, 201, "", "mr"},
			{"कित्ताब.भारत", "ne", 1, 409, "किताब.भारत", ""},
		}},
		{"Nepali then Hindi in भारत", []step{
			{"कित्ताब.भारत", "ne", 0, 201, "", "ne"},
			{"किताब.भारत", "hi", 1, 409, "कित्ताब.भारत", ""},
		}},
		{"no language in in: Hindi, and the variant is blocked", []step{
			{"किताब.in", "", 0, 201, "", "hi"},
			{"कित्ताब.in", "", 1, 409, "किताब.in", ""},
		}},
		{"identical renderings चाँद / चॉंद", []step{
			{"चाँद.भारत", "hi", 0, 201, "", ""},
			{"चॉंद.भारत", "mr", 1, 409, "चाँद.भारत", ""},
		}},
		{"identical renderings आँख / ऑंख", []step{
			{"ऑंख.भारत", "", 0, 201, "", "hi"},
			{"आँख.भारत", "ne", 1, 409, "ऑंख.भारत", ""},
		}},
		{"identical renderings काँग्रेस / कॉंग्रेस in in", []step{
			{"कॉंग्रेस.in", "", 0, 201, "", ""},
			{"काँग्रेस.in", "mr", 1, 409, "कॉंग्रेस.in", ""},
		}},
		{"cross-script टीम / ਟੀਸ in in", []step{
			{"टीम.in", "", 0, 201, "", "hi"},
			{"ਟੀਸ.in", "pa", 1, 409, "टीम.in", ""},
		}},
		{"cross-script ਧੇਟ / पेट in in", []step{
			{"ਧੇਟ.in", "pa", 0, 201, "", ""},
			{"पेट.in", "", 1, 409, "ਧੇਟ.in", ""},
		}},
		{"cross-script हिम / ਵਿਸ in in", []step{
			{"हिम.in", "mr", 0, 201, "", ""},
			{"ਵਿਸ.in", "", 1, 409, "हिम.in", ""},
		}},
		{"single-script zones are not affected", []step{
			{"टीम.भारत", "hi", 0, 201, "", ""},
			{"ਟੀਸ.ਭਾਰਤ", "pa", 1, 201, "", ""},
		}},
		{"plain ASCII in in", []step{
			{"example.in", "", 0, 201, "", "ldh"},
			{"EXAMPLE.in", "", 1, 409, "example.in", ""},
		}},
	} {
		t.Run(tc.title, func(t *testing.T) {
			e := newEnv(t, httpapi.Options{})
			tokens := []string{e.tokenA, e.tokenB}
			for _, s := range tc.steps {
				body := `{"name":"` + s.name + `","lang":"` + s.lang + `"}`
				var d registry.Domain
				var eb httpapi.ErrorBody
				out := any(&d)
				if s.status != 201 {
					out = &eb
				}
				r := e.do("POST", "/v1/domains", tokens[s.token], body, out)
				if r.StatusCode != s.status {
					t.Fatalf("create %s (%q): %d %+v %+v, want %d", s.name, s.lang, r.StatusCode, d, eb, s.status)
				}
				// EXISTS for the very name registered (issue 10), else CONFLICT
				wantCode := "CONFLICT"
				if strings.EqualFold(strings.TrimSuffix(s.name, "."), s.blockedBy) {
					wantCode = "EXISTS"
				}
				if s.status == 409 && (eb.Code != wantCode || eb.BlockedBy != s.blockedBy) {
					t.Errorf("create %s (%q): %+v, want %s blocked by %s", s.name, s.lang, eb, wantCode, s.blockedBy)
				}
				if s.status == 201 && s.wantLang != "" && d.Lang != s.wantLang {
					t.Errorf("create %s (%q): language %q, want %q", s.name, s.lang, d.Lang, s.wantLang)
				}
				if s.status == 409 {
					// the check says the same, in every language
					for _, lang := range []string{"", s.lang, "hi"} {
						var c registry.CheckResult
						e.do("GET", q(s.name, lang), "", "", &c)
						if c.Status == registry.Invalid {
							continue // a language that refuses the label
						}
						want := s.blockedBy
						if c.Status == registry.Registered {
							want = "" // a registered name is not blocked by itself
						}
						if c.Status != registry.Blocked && c.Status != registry.Registered || c.BlockedBy != want {
							t.Errorf("check %s (%q): %s by %q, want blocked by %s", s.name, lang, c.Status, c.BlockedBy, s.blockedBy)
						}
					}
				}
			}
		})
	}
}

// TestLDHEverywhere: a plain ASCII name in in is valid as ldh in check,
// analyze (the web page's source) and create (issue 9: analyze said
// MIXED_SCRIPT in Assamese).
func TestLDHEverywhere(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	var c registry.CheckResult
	if e.do("GET", q("example.in", ""), "", "", &c); c.Status != registry.Available || c.Lang != "ldh" {
		t.Errorf("check example.in: %+v", c)
	}
	var a httpapi.Analysis
	if r := e.do("GET", "/v1/analyze?zone=in&label=example", "", "", &a); r.StatusCode != 200 || !a.Valid || a.Lang != "ldh" || a.Status != registry.Available || !slices.Equal(a.Langs, []string{"ldh"}) || len(a.Errors) != 0 {
		t.Errorf("analyze example in in: %d %+v", r.StatusCode, a)
	}
	a = httpapi.Analysis{}
	if e.do("GET", "/v1/analyze?zone=in&label="+url.QueryEscape("ex_ample"), "", "", &a); a.Valid || a.Lang != "ldh" || len(a.Errors) == 0 || a.Errors[0].Code.String() != "NOT_IN_REPERTOIRE" {
		t.Errorf("analyze ex_ample in in: %+v", a)
	}
	a = httpapi.Analysis{}
	if e.do("GET", "/v1/analyze?zone="+url.QueryEscape("भारत")+"&label=example", "", "", &a); a.Valid {
		t.Errorf("analyze example in भारत (no LDH): %+v", a)
	}
	a = httpapi.Analysis{}
	if e.do("GET", "/v1/analyze?zone=in&label="+url.QueryEscape("किताब"), "", "", &a); a.Lang != "hi" || a.Langs[0] != "hi" {
		t.Errorf("analyze किताब in in: lang %q langs %q, want hi first", a.Lang, a.Langs)
	}
}

// TestExemptedOverHTTP: an exempted domain says so, and names the other,
// in its record and in a check; a create conflicting with it is refused.
func TestExemptedOverHTTP(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	ctx := t.Context()
	r, _, err := e.svc.AddRegistrar(ctx, "importer")
	if err != nil {
		t.Fatal(err)
	}
	if r := e.do("POST", "/v1/domains", e.tokenA, `{"name":"चाँद.भारत","lang":"hi"}`, nil); r.StatusCode != 201 {
		t.Fatalf("create चाँद: %d", r.StatusCode)
	}
	if _, err := e.svc.CreateDomain(ctx, r, registry.DomainCreate{Name: "चॉंद.भारत", Lang: "hi", Exempt: true}); err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if r := e.do("GET", "/v1/domains/"+url.PathEscape("चॉंद.भारत"), "", "", &d); r.StatusCode != 200 || d["exempted"] != true || len(d["exempt_with"].([]any)) != 1 || d["exempt_with"].([]any)[0] != "चाँद.भारत" {
		t.Errorf("info चॉंद: %d %v", r.StatusCode, d)
	}
	var c map[string]any
	if e.do("GET", q("चाँद.भारत", ""), "", "", &c); c["status"] != "registered" || c["exempted"] != true || c["exempt_with"].([]any)[0] != "चॉंद.भारत" {
		t.Errorf("check चाँद: %v", c)
	}
	var eb httpapi.ErrorBody
	if r := e.do("POST", "/v1/domains", e.tokenB, `{"name":"चॉंद.भारत","lang":"mr"}`, &eb); r.StatusCode != 409 {
		t.Errorf("create चॉंद again: %d %+v", r.StatusCode, eb)
	}
}
