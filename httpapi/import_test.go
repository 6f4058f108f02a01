package httpapi_test

import (
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/registry"
)

// TestExemptedInAPI: names brought in by an import, exempted with each
// other, say so (and name the other) in GET /v1/domains, /v1/check and
// /v1/analyze, and every verdict carries the data version.
func TestExemptedInAPI(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	file := "किताब\nकित्ताब\nक्अब\n"
	sum, err := e.svc.Import(t.Context(), func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(file)), nil },
		registry.ImportOptions{ContactsExempt: true, Zone: "भारत", Registrar: "a", AllowInvalid: true})
	if err != nil || sum.Registered != 2 || sum.Exempted != 1 || sum.Legacy != 1 {
		t.Fatalf("Import: %+v, %v", sum, err)
	}
	version := akshara.DataVersion()
	for _, c := range []struct{ name, other string }{{"किताब.भारत", "कित्ताब.भारत"}, {"कित्ताब.भारत", "किताब.भारत"}} {
		var d registry.Domain
		if resp := e.do("GET", "/v1/domains/"+url.PathEscape(c.name), "", "", &d); resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /v1/domains/%s: %d", c.name, resp.StatusCode)
		}
		if !d.Exempted || !slices.Equal(d.ExemptWith, []string{c.other}) || d.DataVersion != version {
			t.Errorf("GET /v1/domains/%s: exempted %v with %v, version %q; want exempted with %s, %s", c.name, d.Exempted, d.ExemptWith, d.DataVersion, c.other, version)
		}
		var res registry.CheckResult
		e.do("GET", q(c.name, ""), "", "", &res)
		if res.Status != registry.Registered || !res.Exempted || !slices.Contains(res.ExemptWith, c.other) || res.DataVersion != version {
			t.Errorf("check %s = %+v, want registered, exempted with %s, version %s", c.name, res, c.other, version)
		}
		var a httpapi.Analysis
		label, _, _ := strings.Cut(c.name, ".")
		e.do("GET", "/v1/analyze?zone="+url.QueryEscape("भारत")+"&label="+url.QueryEscape(label), "", "", &a)
		if a.Status != registry.Registered || !a.Exempted || !slices.Contains(a.ExemptWith, c.other) || a.DataVersion != version {
			t.Errorf("analyze %s = %+v, want registered, exempted with %s, version %s", c.name, a, c.other, version)
		}
	}
	// the legacy name: its record says which rules it breaks
	var d registry.Domain
	e.do("GET", "/v1/domains/"+url.PathEscape("क्अब.भारत"), "", "", &d)
	if !slices.Equal(d.Legacy, []string{"HALANT_FOLLOWER"}) {
		t.Errorf("GET /v1/domains/क्अब.भारत: legacy %v, want [HALANT_FOLLOWER]", d.Legacy)
	}
	// a create conflicting with the exempted pair is refused
	var er httpapi.ErrorBody
	if resp := e.do("POST", "/v1/domains", e.tokenB, `{"name":"किताब.भारत"}`, &er); resp.StatusCode != http.StatusConflict || er.DataVersion != version {
		t.Errorf("POST किताब.भारत: %d %+v, want 409 with data version %s", resp.StatusCode, er, version)
	}
	// a refused create is a verdict too
	if resp := e.do("POST", "/v1/domains", e.tokenB, `{"name":"क्अबक.भारत"}`, &er); resp.StatusCode != http.StatusUnprocessableEntity && resp.StatusCode != http.StatusBadRequest || er.Code != registry.CodeInvalid || er.DataVersion != version {
		t.Errorf("POST क्अबक.भारत: %d %+v, want INVALID_LABEL with data version %s", resp.StatusCode, er, version)
	}
}
