package registry_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

// TestPublicFields: the fields a contact has, in order, and which its
// disclose publishes: nothing without flag="1"; a form it names that the
// contact lacks publishes nothing; an organization the disclosed form
// lacks is not published; fields no form has are left out.
func TestPublicFields(t *testing.T) {
	both := []registry.PostalInfo{
		{Type: "int", Name: "Rahul Sharma", Street: []string{"12 MG Marg", "Hazratganj"}, City: "Lucknow", SP: "UP", PC: "226001", CC: "IN"},
		{Type: "loc", Name: "राहुल शर्मा", Org: "किताब प्रकाशन", City: "लखनऊ", CC: "IN"},
	}
	locOnly := []registry.PostalInfo{{Type: "loc", Name: "सीता", City: "पुणे", CC: "IN"}}
	voice := &registry.Phone{Number: "+91.5222345678", Ext: "12"}
	f := func(name string, shown bool, value string) registry.ContactField {
		return registry.ContactField{Name: name, Shown: shown, Value: value}
	}
	hidden := func(names ...string) []registry.ContactField {
		var out []registry.ContactField
		for _, n := range names {
			out = append(out, f(n, false, ""))
		}
		return out
	}
	all := []string{"Name", "Organization", "Street", "City", "State/Province", "Postal Code", "Country", "Phone", "Email"}
	tests := []struct {
		name     string
		postal   []registry.PostalInfo
		voice    *registry.Phone
		fax      *registry.Phone
		disclose *registry.Disclose
		want     []registry.ContactField
	}{
		{"no disclose", both, voice, nil, nil, hidden(all...)},
		{"flag 0 names fields", both, voice, nil, &registry.Disclose{Flag: false, Fields: []string{"name:int", "voice", "email"}}, hidden(all...)},
		{"name int, voice, email", both, voice, nil, &registry.Disclose{Flag: true, Fields: []string{"name:int", "voice", "email"}},
			append(append([]registry.ContactField{f("Name", true, "Rahul Sharma")}, hidden(all[1:7]...)...), f("Phone", true, "+91.5222345678 ext. 12"), f("Email", true, "s@example.in"))},
		{"org of the int form, which has none", both, voice, nil, &registry.Disclose{Flag: true, Fields: []string{"org:int"}}, hidden(all...)},
		{"org and address of the loc form", both, nil, nil, &registry.Disclose{Flag: true, Fields: []string{"org:loc", "addr:loc"}},
			[]registry.ContactField{f("Name", false, ""), f("Organization", true, "किताब प्रकाशन"), f("Street", true, ""), f("City", true, "लखनऊ"),
				f("State/Province", true, ""), f("Postal Code", true, ""), f("Country", true, "IN"), f("Email", false, "")}},
		{"address of the int form", both, nil, nil, &registry.Disclose{Flag: true, Fields: []string{"addr:int"}},
			[]registry.ContactField{f("Name", false, ""), f("Organization", false, ""), f("Street", true, "12 MG Marg, Hazratganj"), f("City", true, "Lucknow"),
				f("State/Province", true, "UP"), f("Postal Code", true, "226001"), f("Country", true, "IN"), f("Email", false, "")}},
		{"a form the contact lacks", locOnly, nil, voice, &registry.Disclose{Flag: true, Fields: []string{"name:int", "addr:int", "fax"}},
			[]registry.ContactField{f("Name", false, ""), f("City", false, ""), f("Country", false, ""), f("Fax", true, "+91.5222345678 ext. 12"), f("Email", false, "")}},
	}
	for _, tt := range tests {
		c := &registry.Contact{ID: "c-1", ContactData: registry.ContactData{Postal: tt.postal, Voice: tt.voice, Fax: tt.fax, Email: "s@example.in", Disclose: tt.disclose}}
		if got := c.PublicFields(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %v\nwant %v", tt.name, got, tt.want)
		}
	}
}

// The fields RDAP and WHOIS show of a contact that publishes its email
// only.
func ExampleContact_PublicFields() {
	c := &registry.Contact{ID: "rs-1", ContactData: registry.ContactData{
		Postal:   []registry.PostalInfo{{Type: "int", Name: "Rahul Sharma", City: "Lucknow", CC: "IN"}},
		Email:    "rahul@example.in",
		Disclose: &registry.Disclose{Flag: true, Fields: []string{"email"}},
	}}
	for _, f := range c.PublicFields() {
		if f.Shown {
			fmt.Printf("%s: %s\n", f.Name, f.Value)
		} else {
			fmt.Printf("%s: REDACTED FOR PRIVACY\n", f.Name)
		}
	}
	// Output:
	// Name: REDACTED FOR PRIVACY
	// City: REDACTED FOR PRIVACY
	// Country: REDACTED FOR PRIVACY
	// Email: rahul@example.in
}
