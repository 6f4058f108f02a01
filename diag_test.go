package akshara

import (
	"math"
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
// allocation of the size class its box was cut for (a larger box would
// take the next class for every invalid label).
func TestResultBoxSize(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{{"briefBox", unsafe.Sizeof(briefBox{}), 176}, {"resultBox4", unsafe.Sizeof(resultBox4{}), 240}, {"resultBox7", unsafe.Sizeof(resultBox7{}), 288}} {
		if c.got > c.want {
			t.Errorf("%s has %d bytes, more than %d", c.name, c.got, c.want)
		}
	}
}

// TestMessageSlots: two errors whose keys share a slot of the message
// cache each get their own message, whichever the slot holds.
func TestMessageSlots(t *testing.T) {
	l := mustLang(t, "hi")
	type labelErr struct {
		e     rawError
		runes []rune
	}
	key := func(x labelErr) msgKey {
		return msgKey{code: x.e.code, prev: x.e.prev, r: x.e.r, p: x.runes[0], p2: -1, p3: -1, cur: x.runes[1]}
	}
	// Syllable errors at position 1 after a consonant: 128*128 keys, more
	// than the slots.
	seen := map[uint]labelErr{}
	var a, b labelErr
	for p := l.block; p < l.block+128 && a.runes == nil; p++ {
		for r := l.block; r < l.block+128; r++ {
			x := labelErr{rawError{code: Syllable, pos: 1, r: r, prev: C}, []rune{p, r}}
			k := key(x)
			if y, ok := seen[k.slot()]; ok && key(y) != k {
				a, b = y, x
				break
			}
			seen[k.slot()] = x
		}
	}
	if a.runes == nil {
		t.Fatal("no two keys share a slot")
	}
	for i := 0; i < 3; i++ {
		for _, x := range []labelErr{a, b} {
			if got, want := l.cachedMessage(x.e, x.runes), l.message(x.e, x.runes); got != want {
				t.Fatalf("round %d: %q, want %q", i, got, want)
			}
		}
	}
}

// TestMessageSlotSpread: the message keys of the Hindi benchmark's labels
// spread over the slots about as a random hash would (a hash of only
// some fields, or of its low bits, put 685 keys in 411 slots: every
// other lookup went to the locked map).
func TestMessageSlotSpread(t *testing.T) {
	l := mustLang(t, "hi")
	mix, _ := benchLabels(t)
	for _, s := range mix {
		l.Check(s)
	}
	l.msgs.mu.RLock()
	defer l.msgs.mu.RUnlock()
	used := map[uint]bool{}
	for k := range l.msgs.m {
		used[k.slot()] = true
	}
	// n keys in s slots fill s*(1-exp(-n/s)) of them (630 for 685); the
	// map may also hold other tests' keys
	keys := len(l.msgs.m)
	if want := msgSlots * (1 - math.Exp(-float64(keys)/msgSlots)); keys < 500 || float64(len(used)) < 0.95*want {
		t.Errorf("%d message keys in %d slots, want about %.0f", keys, len(used), want)
	}
}
