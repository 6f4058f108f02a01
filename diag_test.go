package akshara

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// TestDecode holds diag.decode to utf8.ValidString and []rune: the
// malformed sequences its inlined three-byte path must refuse (overlong,
// surrogates, truncated, stray continuation bytes), and random bytes.
func TestDecode(t *testing.T) {
	labels := []string{"", "a", "क", "किताब", "\uFFFD", "\U0001F600क", "\xe0\xa4", "\xe0\xa4\x15", "\xe0\x80\x80", "\xe0\x9f\xbf",
		"\xed\xa0\x80", "\xed\xbf\xbf", "\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbf", "\xa4\x95", "क\xff", "\xc0\x80", "\xf4\x90\x80\x80", "\xe0\xa4\x95\xe0"}
	// longer than the diag's own room (runeIn): decoded on the heap
	labels = append(labels, strings.Repeat("क", 22), strings.Repeat("कa", 40), strings.Repeat("a", 65), strings.Repeat("क", 30)+"\xff")
	rng := rand.New(rand.NewSource(5))
	for i := 0; i < 20000; i++ {
		b := make([]byte, 1+rng.Intn(10))
		for j := range b {
			switch rng.Intn(4) {
			case 0:
				b[j] = byte(rng.Intn(256))
			case 1:
				b[j] = 0xE0 + byte(rng.Intn(16))
			default:
				b[j] = 0x80 + byte(rng.Intn(64))
			}
		}
		labels = append(labels, string(b))
	}
	d := &diag{lang: mustLang(t, "hi")}
	for _, s := range labels {
		ok, _ := d.decode(s)
		if ok != utf8.ValidString(s) {
			t.Fatalf("decode(%q) = %v, ValidString %v", s, ok, !ok)
		}
		if ok && !slices.Equal(d.codePoints(), []rune(s)) {
			t.Fatalf("decode(%q) = %U, want %U", s, d.codePoints(), []rune(s))
		}
	}
}

// TestOtherCode: the table of refusal codes is classifyOther's answer for
// ASCII and the block, in every language.
func TestOtherCode(t *testing.T) {
	for _, tag := range Tags() {
		l := mustLang(t, tag)
		for r := rune(0); r < 128; r++ {
			for _, c := range []rune{r, l.block + r} {
				if got, want := l.otherCode(c), l.classifyOther(c); got != want {
					t.Fatalf("%s: otherCode(%U) = %v, classifyOther %v", tag, c, got, want)
				}
			}
		}
	}
}

// TestResultBoxSize: the Result of a label with one error stays one
// allocation of the 288-byte size class (a larger box would take the
// next class, 320 bytes, for every invalid label).
func TestResultBoxSize(t *testing.T) {
	if n := unsafe.Sizeof(resultBox{}); n > 288 {
		t.Errorf("resultBox has %d bytes, more than 288", n)
	}
}

// TestMessageSlots: two errors whose keys share a slot of the message
// cache each get their own message, whichever the slot holds.
func TestMessageSlots(t *testing.T) {
	l := mustLang(t, "hi")
	key := func(e rawError, runes []rune) msgKey {
		k := msgKey{code: e.code, prev: e.prev, r: e.r, p: runes[e.pos-1], p2: -1, p3: -1, cur: runes[e.pos]}
		return k
	}
	runes := []rune("कख")
	base := rawError{code: Syllable, pos: 1, r: runes[1], prev: C}
	var other rawError
	var otherRunes []rune
	found := false
	for r := l.block; r < l.block+128 && !found; r++ {
		e := base
		e.r = r
		rs := []rune{runes[0], r}
		if k1, k2 := key(base, runes), key(e, rs); k1 != k2 && k1.slot() == k2.slot() {
			other, otherRunes, found = e, rs, true
		}
	}
	if !found {
		t.Skip("no two keys of the block share a slot")
	}
	for i := 0; i < 3; i++ {
		if got, want := l.cachedMessage(base, runes), l.message(base, runes); got != want {
			t.Fatalf("round %d: %q, want %q", i, got, want)
		}
		if got, want := l.cachedMessage(other, otherRunes), l.message(other, otherRunes); got != want {
			t.Fatalf("round %d: %q, want %q", i, got, want)
		}
	}
}
