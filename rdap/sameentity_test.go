package rdap_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestVariantGroup: a member of a variant group (docs/variants.md, "Same
// entity") lists the other members as a variants group of relation
// "registered", with their A-labels.
func TestVariantGroup(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	r := &registry.Registrar{ID: 1, Name: "acme"}
	if _, err := e.svc.CreateContact(ctx, r, registry.ContactCreate{ID: "rs-9", ContactData: registrytest.DevanagariContact(), AuthInfo: "Contact-pw-1-strong"}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"কিতাব.ভারত", "কিতাব.ভাৰত"} {
		if _, err := e.svc.CreateDomain(ctx, r, registry.DomainCreate{Name: n, Contacts: []registry.DomainContact{{Role: registry.RoleRegistrant, ID: "rs-9"}}}); err != nil {
			t.Fatalf("Create(%s): %v", n, err)
		}
	}
	code, body := e.raw(t, "/rdap/domain/কিতাব.ভারত")
	if code != 200 {
		t.Fatalf("GET: %d %s", code, body)
	}
	var doc struct {
		Variants []struct {
			Relation     []string `json:"relation"`
			VariantNames []struct {
				LDHName     string `json:"ldhName"`
				UnicodeName string `json:"unicodeName"`
			} `json:"variantNames"`
		} `json:"variants"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, v := range doc.Variants {
		for _, n := range v.VariantNames {
			if n.UnicodeName == "কিতাব.ভাৰত" {
				found = strings.Join(v.Relation, ",") == "registered" && strings.HasPrefix(n.LDHName, "xn--") && strings.Count(n.LDHName, "xn--") == 2
			}
		}
	}
	if !found {
		t.Errorf("variants of কিতাব.ভারত: %+v; want কিতাব.ভাৰত as a registered variant with its A-label", doc.Variants)
	}
}
