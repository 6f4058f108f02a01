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
// panic, a parsed name is valid UTF-8 without spaces or control
// characters, and every answer is UTF-8 ending in the last-update line.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{kitab, kitabA, kittabA + ".", "domain example.in", "help", "", ".", "..", "a.b.c", "x.nozone", "\xff.भारत", "a\x00b.in", "xn--zz-.in", " domain  ", strings.Repeat("क", 100) + ".भारत"} {
		f.Add([]byte(s))
	}
	e := newEnv(f, registrytest.SQLiteService(f), whois.Options{RateLimit: -1})
	f.Fuzz(func(t *testing.T, line []byte) {
		q, err := whois.ParseQuery(line)
		if err != nil {
			return
		}
		if !utf8.ValidString(q.Name) || strings.ContainsAny(q.Name, " \t\r\n\x00") || q.Help && q.Name != "" {
			t.Fatalf("%q: parsed as %+v", line, q)
		}
		out, result := e.srv.Answer(context.Background(), q)
		if !utf8.Valid(out) || !strings.HasSuffix(string(out), "<<<\r\n") || result == "" || result == "INTERNAL" {
			t.Fatalf("%q: %s %q", line, result, out)
		}
	})
}
