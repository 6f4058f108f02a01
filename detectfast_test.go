package akshara

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestValidMask holds Detector.Valid to Valid in every language: random
// labels from each language's repertoire (with the characters that
// interact with normalization), its examples and word-like labels.
func TestValidMask(t *testing.T) {
	testValidMask(t)
}

// TestValidMaskFull: with the product automata full after a few states,
// Detector walks each language and still agrees with Valid.
func TestValidMaskFull(t *testing.T) {
	byScript.once.Do(loadScripts)
	for _, sl := range byScript.scripts {
		sl.productOnce.Do(func() { sl.product = newProduct(sl.langs) })
		old := sl.product
		p := newProduct(sl.langs)
		p.max = 3
		sl.product = p
		defer func() { sl.product = old }()
	}
	testValidMask(t)
}

func testValidMask(t *testing.T) {
	d, err := NewDetector()
	if err != nil {
		t.Fatal(err)
	}
	langs := d.Languages()
	rng := rand.New(rand.NewSource(9))
	walked := 0
	for _, tag := range Tags() {
		l := mustLang(t, tag)
		labels := wordLike(l, 300)
		for _, ex := range l.Examples() {
			labels = append(labels, ex.Text)
		}
		// three identical consonants joined by halants, with and without
		// a nukta, and two
		var cs, hs, ns []rune
		for _, m := range l.Repertoire() {
			switch m.Class {
			case C:
				cs = append(cs, m.Rune)
			case H:
				hs = append(hs, m.Rune)
			case N:
				ns = append(ns, m.Rune)
			}
		}
		for _, h := range hs {
			for i, c := range cs {
				x := string(c) + string(h)
				labels = append(labels, x+x+string(c), x+x+string(c)+string(cs[(i+1)%len(cs)]), string(cs[(i+1)%len(cs)])+x+string(c))
				for _, nk := range ns {
					y := string(c) + string(nk) + string(h)
					labels = append(labels, y+y+string(c)+string(nk), y+x+string(c))
				}
			}
		}
		p := pool(l)
		for i := 0; i < 5000; i++ {
			labels = append(labels, randomLabel(rng, p))
		}
		for _, s := range labels {
			m, perm := d.Valid(s)
			sl, _ := candidates(s)
			if _, ok := sl.validMask(s); ok {
				walked++
			}
			if perm != sl.permissive {
				t.Fatalf("%q: permissive %v, want %v", s, perm, sl.permissive)
			}
			for i, x := range langs {
				if got, want := m&(1<<i) != 0, x.Valid(s); got != want {
					t.Fatalf("%q (%s) in %s: Detector says %v, Valid %v", s, hexOf(s), x.Tag, got, want)
				}
			}
		}
	}
	if walked < 25000 {
		t.Errorf("only %d labels took the shared walk", walked)
	}
}

// TestDetectorConcurrent: goroutines that build a fresh product automaton
// at once get the answers of Valid (go test -race checks the lock-free
// reads).
func TestDetectorConcurrent(t *testing.T) {
	d, err := NewDetector()
	if err != nil {
		t.Fatal(err)
	}
	sl := byScript.scripts["Deva"]
	sl.productOnce.Do(func() {})
	old := sl.product
	sl.product = newProduct(sl.langs)
	defer func() { sl.product = old }()
	var labels []string
	for _, tag := range []string{"hi", "mr", "ne", "sa"} {
		labels = append(labels, wordLike(mustLang(t, tag), 200)...)
	}
	want := make([]Mask, len(labels))
	for i, s := range labels {
		for j, l := range d.Languages() {
			if l.Valid(s) {
				want[i] |= 1 << j
			}
		}
	}
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func() {
			for k := range labels {
				i := (k*7 + g*13) % len(labels)
				if m, _ := d.Valid(labels[i]); m != want[i] {
					done <- fmt.Errorf("%q: mask %b, want %b", labels[i], m, want[i])
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
