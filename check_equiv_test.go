package akshara

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// equivLabels is the committed sample the new Check is held to the
// reference on: the Hindi benchmark mix (for Hindi), the language's examples, the
// fuzz seeds, random labels from the language's repertoire (with the
// characters that interact with normalization and the rules), A-labels of
// the valid ones, and a few labels built to reach every rule.
func equivLabels(t testing.TB, l *Language) []string {
	var labels []string
	if l.Tag == "hi" {
		labels, _ = benchLabels(t)
	}
	for _, ex := range l.Examples() {
		labels = append(labels, ex.Text)
	}
	labels = append(labels, "किताब", "xn--11b4aya5ed", "क्अ", "कंं", "\xff", "", "-", "क\u0958", "ॐ", "a.b", "XN--", "xn--a-",
		"abc", "123", "12", "1-2", "a\xffb", "xn--", "xn--abc", "XN--11B4AYA5ED", strings.Repeat("क", 64), strings.Repeat("a", 64),
		"क\u200Dख", "\u0915\u093C", "\u0958", "क़ि", "\u0930\u094D\u200D", "ஸ்ரீ", "க்ஷ", "\u0D7A", "ੰ", "ੱ")
	rng := rand.New(rand.NewSource(16))
	p := pool(l)
	for i := 0; i < 1200; i++ {
		s := randomLabel(rng, p)
		if i%10 == 0 {
			s += randomLabel(rng, p) + randomLabel(rng, p) + randomLabel(rng, p) + randomLabel(rng, p)
		}
		labels = append(labels, s)
	}
	return labels
}

// checkOptionSets are the options the equivalence runs under.
var checkOptionSets = []Options{{}, {Brief: true}, {MinLength: 5}, {MinLength: 1}, {MinLength: 2, Brief: true}}

func sameAsReference(t testing.TB, l *Language, s string, o Options) bool {
	t.Helper()
	got, err := json.Marshal(l.CheckOptions(s, o))
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(l.refCheck(s, o))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s %q %+v:\n got %s\nwant %s", l.Tag, s, o, got, want)
		return false
	}
	return true
}

// TestCheckMatchesReference holds Check to the reference (the Check of
// before issue 16, ref_check_test.go) byte for byte in JSON, on the
// committed sample for every language and option set, and on the A-labels
// of the valid labels. With AKSHARA_CORPORA set to a directory of word
// lists (TAG.txt, one word a line, as in the project's shared corpora), it
// also runs over every word of every language's list.
func TestCheckMatchesReference(t *testing.T) {
	for _, tag := range Tags() {
		l := mustLang(t, tag)
		labels := equivLabels(t, l)
		if testing.Short() {
			labels = labels[len(labels)-500:]
		}
		fails := 0
		for _, s := range labels {
			for _, o := range checkOptionSets {
				if !sameAsReference(t, l, s, o) {
					fails++
				}
			}
			if res := l.Check(s); res.Valid && res.ALabel != "" {
				sameAsReference(t, l, res.ALabel, Options{})
				sameAsReference(t, l, strings.ToUpper(res.ALabel), Options{})
			}
			if fails > 10 {
				t.Fatalf("%s: too many differences", tag)
			}
		}
	}
	dir := os.Getenv("AKSHARA_CORPORA")
	if dir == "" {
		return
	}
	for _, tag := range Tags() {
		l := mustLang(t, tag)
		f, err := os.Open(filepath.Join(dir, tag+".txt"))
		if err != nil {
			t.Logf("%s: no corpus: %v", tag, err)
			continue
		}
		sc := bufio.NewScanner(f)
		n, fails := 0, 0
		for sc.Scan() {
			n++
			if !sameAsReference(t, l, sc.Text(), Options{}) {
				if fails++; fails > 10 {
					t.Fatalf("%s: too many differences", tag)
				}
			}
		}
		f.Close()
		t.Logf("%s: %d corpus words compared", tag, n)
	}
}

// TestCheckConcurrent: Check from several goroutines at once (the
// message cache, its map and its slots) gives each the reference's answer;
// go test -race checks the sharing.
func TestCheckConcurrent(t *testing.T) {
	l := mustLang(t, "hi")
	labels, _ := benchLabels(t)
	labels = labels[:1500]
	want := make([]string, len(labels))
	for i, s := range labels {
		b, _ := json.Marshal(l.refCheck(s, Options{}))
		want[i] = string(b)
	}
	l.msgs.mu.Lock()
	l.msgs.m = nil // start with an empty message cache
	l.msgs.slots.Store(nil)
	l.msgs.mu.Unlock()
	errs := make(chan string, 4)
	for g := 0; g < 4; g++ {
		go func() {
			for k := range labels {
				i := (k*7 + g*31) % len(labels)
				b, _ := json.Marshal(l.Check(labels[i]))
				if string(b) != want[i] {
					errs <- string(b) + " != " + want[i]
					return
				}
			}
			errs <- ""
		}()
	}
	for g := 0; g < 4; g++ {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}
