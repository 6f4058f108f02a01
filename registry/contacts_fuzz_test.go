package registry

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzContactData feeds contact fields to the contact checks: no panic,
// and whatever they accept is what RFC 5733's schema and the registry's
// policy allow (a line of at most 255 characters without controls or bidi
// overrides, ASCII in the int form, a two-letter upper-case country, an
// E.164 number, one address).
func FuzzContactData(f *testing.F) {
	f.Add("int", "Rahul Sharma", "Lucknow", "in", "+91.5222345678", "rahul@example.in", "rs-1")
	f.Add("loc", "राहुल शर्मा \u0958ादिर", "लखनऊ", "IN", "", "r@example.in", "ab\u200dcd")
	f.Add("loc", "\u202eevil", "x\ny", "XX", "0522", "a at b", "x")
	f.Fuzz(func(t *testing.T, typ, name, city, cc, voice, email, id string) {
		d := ContactData{Postal: []PostalInfo{{Type: typ, Name: name, City: city, CC: cc}}, Email: email}
		if voice != "" {
			d.Voice = &Phone{Number: voice}
		}
		if err := checkContactData(&d); err == nil {
			p := d.Postal[0]
			for _, l := range []string{p.Name, p.City} {
				if !utf8.ValidString(l) || utf8.RuneCountInString(l) > 255 || strings.TrimSpace(l) == "" ||
					strings.ContainsFunc(l, func(r rune) bool { return r < 0x20 || (r >= 0x202a && r <= 0x202e) || (p.Type == "int" && r >= 0x80) }) {
					t.Fatalf("accepted the line %q", l)
				}
			}
			if len(p.CC) != 2 || strings.ToUpper(p.CC) != p.CC || (p.Type != "int" && p.Type != "loc") {
				t.Fatalf("accepted %+v", p)
			}
			if d.Voice != nil && !e164.MatchString(d.Voice.Number) || !strings.Contains(d.Email, "@") {
				t.Fatalf("accepted %+v", d)
			}
		}
		if err := contactID(id); err == nil {
			if n := utf8.RuneCountInString(id); n < 3 || n > 16 || strings.ContainsFunc(id, func(r rune) bool { return r >= 0x80 || r <= ' ' }) {
				t.Fatalf("accepted the id %q", id)
			}
		} else if code := CodeOf(err); code != CodeBadContact && code != CodeContactPolicy {
			t.Fatalf("contactID(%q): %v", id, err)
		}
	})
}
