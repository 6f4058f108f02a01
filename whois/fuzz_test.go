package whois_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/whois"
)

// FuzzQuery parses query lines and answers those that parse: never a
// panic; a parsed name is valid UTF-8, not empty, without spaces or
// control characters; a query written back (its keyword, a space, its
// name and, but for a contact id, a final dot) parses to itself; and every answer is UTF-8 ending in the
// last-update line, never an internal error. The seeds have every kind
// of query: domains, hosts (bare and with keywords) and contacts.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{kitab, kitabA, kittabA + ".", "domain example.in", "help", "", ".", "..", "a.b.c", "x.nozone", "\xff.भारत", "a\x00b.in", "xn--zz-.in", " domain  ", strings.Repeat("क", 100) + ".भारत",
		nsKitab, nsKitabA + ".", "nameserver " + nsKitab, "NAMESERVER\t" + nsKitabA, "host ns1.example.net.", "host ns9.example.net", "host example", "host .", "host ..", "nameserver",
		"contact adm-1", "contact rs-1", "Contact\tnobody-9", "contact x.", "contact ?", "contact", "contact  ", "domain\thelp", "domain " + nsKitab, "host " + kitab, "contact " + kitab} {
		f.Add([]byte(s))
	}
	e := newEnv(f, registrytest.SQLiteService(f), whois.Options{RateLimit: -1})
	keyword := map[whois.Kind]string{whois.KindDomain: "domain ", whois.KindHost: "host ", whois.KindContact: "contact "}
	f.Fuzz(func(t *testing.T, line []byte) {
		q, err := whois.ParseQuery(line)
		if err != nil {
			return
		}
		if !utf8.ValidString(q.Name) || strings.ContainsAny(q.Name, " \t\r\n\x00") || q.Help && (q.Name != "" || q.Kind != whois.KindName) || !q.Help && q.Name == "" ||
			q.Kind < whois.KindName || q.Kind > whois.KindContact {
			t.Fatalf("%q: parsed as %+v", line, q)
		}
		if !q.Help {
			back := keyword[q.Kind] + q.Name
			if q.Kind != whois.KindContact {
				back += "." // one final dot is dropped: "a.." is "a."
			}
			again, err := whois.ParseQuery([]byte(back))
			if err != nil || again != q {
				t.Fatalf("%q: parsed as %+v; written back, as %+v, %v", line, q, again, err)
			}
		}
		out, result := e.srv.Answer(context.Background(), q)
		if !utf8.Valid(out) || !strings.HasSuffix(string(out), "<<<\r\n") || result == "" || result == "INTERNAL" {
			t.Fatalf("%q: %s %q", line, result, out)
		}
	})
}
