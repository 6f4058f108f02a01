package httpapi

import (
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
)

// query2 must answer as url.ParseQuery(raw).Get over queries built of
// the pieces that make them differ: repeated keys, escaped keys, bad
// escapes, semicolons, '+', empty pairs, pairs without '=', and a query
// past maxQueryScan parameters.
func TestQuery2(t *testing.T) {
	pieces := []string{"name", "lang", "na%6De", "l%61ng", "nam", "name+", "lang%", "name%zz", "x",
		"=", "&", "&&", ";", "+", "%", "%2", "%41", "%E0%A4%95", "क", "a", "hi", "en", ".भारत", "%3D", "%26", "", "name=", "lang="}
	rng := rand.New(rand.NewPCG(1, 2))
	n := 0
	check := func(raw string) {
		t.Helper()
		q, _ := url.ParseQuery(raw)
		name, lang := query2(raw, "name", "lang")
		if name != q.Get("name") || lang != q.Get("lang") {
			t.Fatalf("query2(%q) = %q, %q; url.ParseQuery: %q, %q", raw, name, lang, q.Get("name"), q.Get("lang"))
		}
		n++
	}
	for i := 0; i < 50000; i++ {
		var b strings.Builder
		for j := rng.IntN(12); j >= 0; j-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		check(b.String())
	}
	check("name=" + url.QueryEscape("किताब.भारत") + "&lang=hi")
	check("lang=hi&name=a&name=b&lang=en")
	check(strings.Repeat("x=1&", maxQueryScan) + "name=a&lang=hi")
	check(strings.Repeat("x=1&", 20000) + "name=a&lang=hi") // past url's limit: nothing
	if n < 50000 {
		t.Fatal("too few queries compared")
	}
}
