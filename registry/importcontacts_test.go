package registry

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestImportContactColumns: the names file's contact columns are read by
// header only (a file without one keeps its five columns: a sixth field
// is a bad line), several ids of a role separated by spaces or ';'.
func TestImportContactColumns(t *testing.T) {
	for _, tt := range []struct {
		name, input string
		want        []DomainContact
		code        string
	}{
		{"header", "name,registrant,admin,tech,billing\nकिताब,rs-1,adm-1,t-1 t-2,b-1;b-2\n",
			[]DomainContact{{"registrant", "rs-1"}, {"admin", "adm-1"}, {"tech", "t-1"}, {"tech", "t-2"}, {"billing", "b-1"}, {"billing", "b-2"}}, ""},
		{"any order, empty roles", "tech,name,registrant\nt-1,किताब,\n", []DomainContact{{"tech", "t-1"}}, ""},
		{"no header: five columns", "किताब,a,hi,,,rs-1\n", nil, CodeBadLine},
	} {
		ir := NewImportReader(strings.NewReader(tt.input))
		rec, err := ir.Next()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		code := ""
		if rec.Err != nil {
			code = rec.Err.Code
		}
		if code != tt.code || !slices.Equal(rec.Contacts, tt.want) {
			t.Errorf("%s: %v %q, want %v %q", tt.name, rec.Contacts, code, tt.want, tt.code)
		}
	}
}

// TestReadImportContacts: a contacts file's header names its columns in
// any order; CSV or TSV; int and loc postal infos; a line with more
// fields than the header names is a bad line; an unknown column or no
// id column stops the import before anything is created.
func TestReadImportContacts(t *testing.T) {
	rows, err := ReadImportContacts(strings.NewReader("\ufeffemail,id,name,city,cc,loc_name,loc_city,loc_cc,voice,street,street2\n" +
		"a@example.in,ac-1,Asha,Pune,in,आशा,पुणे,IN,+91.2012345678x12,1 Main Rd,\"Flat 2, Block B\"\n" +
		"# a comment\n\n" +
		"b@example.in,ac-2,Bala,Pune,IN,,,,,,,extra\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Err != nil || rows[1].Err == nil || rows[1].Err.Code != CodeBadLine {
		t.Fatalf("rows %+v", rows)
	}
	c := rows[0].Create
	if c.ID != "ac-1" || len(c.Postal) != 2 || c.Postal[1].City != "पुणे" || !slices.Equal(c.Postal[0].Street, []string{"1 Main Rd", "Flat 2, Block B"}) ||
		c.Voice == nil || c.Voice.Number != "+91.2012345678" || c.Voice.Ext != "12" {
		t.Errorf("row 1: %+v", c)
	}
	tsv, err := ReadImportContacts(strings.NewReader("id\temail\tname\tcity\tcc\nac-3\tc@example.in\tChitra, Rao\tGoa\tIN\n"))
	if err != nil || len(tsv) != 1 || tsv[0].Create.Postal[0].Name != "Chitra, Rao" {
		t.Errorf("TSV: %+v %v", tsv, err)
	}
	for _, bad := range []string{"id,nickname\nac-1,x\n", "name,email\nAsha,a@example.in\n", ""} {
		if _, err := ReadImportContacts(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// FuzzReadImportContacts: any contacts file is read without a panic; each
// row is a bad line or has valid UTF-8 fields.
func FuzzReadImportContacts(f *testing.F) {
	f.Add("id,registrar,name,city,cc,email,auth_info\nac-1,alpha,Asha,Pune,IN,a@example.in,Contact-pw-1-strong\n")
	f.Add("id\tname\nx\t\"y\n")
	f.Add("id,street\n\"a,\"\"b\"\"\",\xff\n")
	f.Fuzz(func(t *testing.T, s string) {
		rows, err := ReadImportContacts(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, r := range rows {
			if r.Err != nil {
				continue
			}
			all := fmt.Sprint(r.Create.ID, r.Create.Email, r.Create.AuthInfo, r.Registrar)
			for _, p := range r.Create.Postal {
				all += fmt.Sprint(p)
			}
			if !utf8.ValidString(all) {
				t.Fatalf("row %d has invalid UTF-8: %q", r.Line, all)
			}
		}
	})
}
