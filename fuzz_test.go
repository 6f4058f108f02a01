package akshara

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"

	"github.com/akshara-idn/akshara/internal/longtest"
)

// randomLabel draws a label from a language's repertoire plus a few
// characters that interact with normalization and the rules.
func randomLabel(rng *rand.Rand, pool []rune) string {
	n := 1 + rng.Intn(12)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteRune(pool[rng.Intn(len(pool))])
	}
	return b.String()
}

// perLanguage spreads a random-label budget set for the first 18 languages
// over all of them, so that the per-language tests take the same time as
// languages are added (26 since issue 13).
func perLanguage(n int) int { return n * 18 / len(Tags()) }

func pool(l *Language) []rune {
	var p []rune
	for _, m := range l.Repertoire() {
		p = append(p, m.Rune)
	}
	return append(p, '-', '1', 'a', 0x0958, 0x0931, 0x0929, 0x0934, 0x0933, 0x0951, 0x0964, 0x200D, 0x0300)
}

// TestQuickNFC holds the verdict-only path's NFC test to x/text/norm: when
// quickNFC says a string is NFC, it is. The diagnostics' quickNFCRunes
// gives quickNFC's answer, and diag.decode says NFC only where quickNFC
// does.
func TestQuickNFC(t *testing.T) {
	for _, tag := range Tags() {
		l := mustLang(t, tag)
		rng := rand.New(rand.NewSource(1))
		p := pool(l)
		d := &diag{lang: l}
		quick := 0
		for i := 0; i < perLanguage(longtest.Pick(20000, 200000)); i++ {
			s := randomLabel(rng, p)
			if l.quickNFCRunes(s, []rune(s)) != l.quickNFC(s) {
				t.Fatalf("%s: quickNFCRunes(%s) is not quickNFC", tag, hexOf(s))
			}
			if _, quick := d.decode(s); quick && !l.quickNFC(s) {
				t.Fatalf("%s: decode(%s) says NFC, quickNFC does not", tag, hexOf(s))
			}
			if l.quickNFC(s) {
				quick++
				if !norm.NFC.IsNormalString(s) {
					t.Fatalf("%s: quickNFC(%q %s) is true but the string is not NFC", tag, s, hexOf(s))
				}
			}
		}
		if quick == 0 {
			t.Errorf("%s: quickNFC never answered true", tag)
		}
	}
}

// TestALabelLength holds the allocation-free A-label length to
// golang.org/x/net/idna's Punycode encoder.
func TestALabelLength(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	p := pool(mustLang(t, "hi"))
	p = append(p, 0x10FFFF, 0xFFFD, 0x1F600, 'z', '0')
	for i := 0; i < longtest.Pick(20000, 100000); i++ {
		s := randomLabel(rng, p)
		if i%2 == 0 {
			s += randomLabel(rng, p) + randomLabel(rng, p) + randomLabel(rng, p)
		}
		checkALabelLength(t, s)
	}
}

func checkALabelLength(t *testing.T, s string) {
	rs := []rune(s)
	if isASCII(s) || len(rs) > MaxALabelLength {
		return
	}
	nBasic := 0
	for _, r := range rs {
		if r < 0x80 {
			nBasic++
		}
	}
	a, err := idna.Punycode.ToASCII(s)
	if err != nil {
		return
	}
	if got := aLabelLength(rs, nBasic, len(rs)); got != len(a) {
		t.Fatalf("%q: aLabelLength %d, idna %d (%s)", s, got, len(a), a)
	}
	if got := string(appendALabel(nil, rs, nBasic)); got != a {
		t.Fatalf("%q: A-label %s, idna %s", s, got, a)
	}
}

func FuzzALabelLength(f *testing.F) {
	for _, s := range []string{"किताब", "a-क", "भारत", "1क2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if utf8.ValidString(s) && !strings.Contains(s, ".") {
			checkALabelLength(t, s)
		}
	})
}

// FuzzCheck: no panic on any input; Check is the reference Check byte for
// byte (ref_check_test.go); Valid and Check agree; a valid label's
// A-label decodes back to its U-label and is itself valid.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"किताब", "xn--11b4aya5ed", "क्अ", "कंं", "\xff", "", "-", "क\u0958", "ॐ", "a.b", "XN--", "xn--a-"} {
		f.Add(s, uint8(0))
	}
	// The alphabet family and right-to-left labels (issue 13): the seeds
	// pick ks, sat, sd, ur and mni-Mtei among the sorted tags.
	for _, s := range []string{"بھارت", "123اردو", "کُِر", "ہمه", "ۓ", "ᱥᱟᱱᱛᱟᱲᱤ", "ᱹᱚ", "ꯃꯤꯇꯩꯂꯣꯟ", "ꯀꯟ꯭ꯔ", "xn--mgbbh1a71e"} {
		for which := uint8(0); which < 30; which++ {
			if tag := Tags()[int(which)%len(Tags())]; tag == "ks" || tag == "ur" || tag == "sd" || tag == "sat" || tag == "mni-Mtei" {
				f.Add(s, which)
			}
		}
	}
	tags := Tags()
	f.Fuzz(func(t *testing.T, s string, which uint8) {
		l := mustLang(t, tags[int(which)%len(tags)])
		res := l.Check(s)
		for _, o := range checkOptionSets {
			sameAsReference(t, l, s, o)
		}
		if res.Valid != l.Valid(s) {
			t.Fatalf("%s %q: Check.Valid=%v Valid=%v %v", l.Tag, s, res.Valid, !res.Valid, codesOf(res))
		}
		if res.Valid != (len(res.Errors) == 0) {
			t.Fatalf("%q: valid=%v with %d errors", s, res.Valid, len(res.Errors))
		}
		for _, e := range res.Errors {
			if e.Code == OK || e.Message == "" || e.Pos < 0 {
				t.Fatalf("%q: bad error %+v", s, e)
			}
		}
		if !res.Valid {
			return
		}
		if !norm.NFC.IsNormalString(res.ULabel) {
			t.Fatalf("%q: U-label %q is not NFC", s, res.ULabel)
		}
		if res.ALabel == "" {
			if !isASCII(res.ULabel) {
				t.Fatalf("%q: valid non-ASCII label without A-label", s)
			}
			return
		}
		u, err := idna.Punycode.ToUnicode(res.ALabel)
		if err != nil || u != res.ULabel {
			t.Fatalf("%q: A-label %s decodes to %q (%v), want %q", s, res.ALabel, u, err, res.ULabel)
		}
		back := l.Check(res.ALabel)
		if !back.Valid || back.ULabel != res.ULabel {
			t.Fatalf("%q: its A-label %s is not valid the same way: %v", s, res.ALabel, codesOf(back))
		}
	})
}

// FuzzLanguageFile: the language file parser and compiler never panic.
// The seeds are small (every directive, a few members) so that the fuzzer
// mutates and minimizes quickly.
func FuzzLanguageFile(f *testing.F) {
	f.Add([]byte(`language x-f
name F
native एफ
script Deva
source test
k 2  § 1
cctld भारत
class C § 5
  U+0915  क  DEVANAGARI LETTER KA
  U+0924  त  DEVANAGARI LETTER TA
class V
  U+0905  अ  DEVANAGARI LETTER A
class M
  U+093E  ◌ा  DEVANAGARI VOWEL SIGN AA
class H
  U+094D  ◌्  DEVANAGARI SIGN VIRAMA
class N
  U+093C  ◌़  DEVANAGARI SIGN NUKTA
class S
  U+02BC  ʼ  MODIFIER LETTER APOSTROPHE
nukta-after
  U+0915  क  DEVANAGARI LETTER KA
sign-pairs BD BX
refuse RARE v1.8
  U+0960..U+0961  DEVANAGARI LETTER VOCALIC RR..DEVANAGARI LETTER VOCALIC LL
variants § 6
  त्त = त | 0924 094D 0924 = 0924
example valid  कता § 3
example invalid  ्क  SYLLABLE@0 TOO_SHORT  add. 1
example akshara  क्त
`))
	f.Add([]byte("language x\nname X\nscript Beng\nk 1\nclass Z\n  U+09CE\nclass L\n  U+0995\n"))
	f.Add([]byte("language x\nname X\nscript Arab\nk 0\ngrammar alphabet § a\ndirection rtl § b\nclass C\n  U+0628\n  U+0647\n  U+06C1\nclass M\n  U+064E\nno-mix LETTER_MIX § c\n  ه : ہ\nrefuse VOWEL_MARK x\n  U+064B..U+064D\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := LoadLanguage("fuzz.lang", data)
		if err == nil {
			l.Check("किताब")
			l.Valid("क्अ")
		}
	})
}

// TestRandomLabels runs many random labels through both paths.
func TestRandomLabels(t *testing.T) {
	for _, tag := range append(Tags(), "testdata/grammar.lang", "testdata/context.lang") {
		var l *Language
		if strings.HasPrefix(tag, "testdata/") {
			l = testLang(t, tag)
		} else {
			l = mustLang(t, tag)
		}
		rng := rand.New(rand.NewSource(3))
		p := pool(l)
		valid := 0
		for i := 0; i < perLanguage(longtest.Pick(10000, 100000)); i++ {
			s := randomLabel(rng, p)
			res := l.Check(s)
			if res.Valid != l.Valid(s) {
				t.Fatalf("%s %q (%s): Check.Valid=%v Valid=%v %v", tag, s, hexOf(s), res.Valid, l.Valid(s), codesOf(res))
			}
			if res.Valid {
				valid++
			}
		}
		if valid == 0 {
			t.Errorf("%s: no random label was valid", tag)
		}
	}
}

// TestALabelBound: a label the verdict-only path declares short enough
// without counting (safeLengths) never has a longer A-label than 63
// octets, for labels in each script's block, including adversarial ones
// that jump across the whole block, right at the declared limit.
func TestALabelBound(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	safe := map[string][MaxALabelLength + 1]uint8{}
	for _, si := range scripts {
		safe[si.code] = safeLengths(si.block)
		if s := safe[si.code][0]; s < 12 {
			t.Errorf("%s: only labels of %d code points are proven safe", si.code, s)
		}
	}
	for _, si := range scripts {
		for i := 0; i < 40000; i++ {
			n := 1 + rng.Intn(40)
			if i%4 == 3 { // right at the declared limit, where the bound is tightest
				n = int(safe[si.code][rng.Intn(8)]) + rng.Intn(2)
			}
			rs := make([]rune, n)
			nBasic := 0
			for j := range rs {
				switch {
				case rng.Intn(8) == 0:
					rs[j] = rune('0' + rng.Intn(10))
					nBasic++
				case i%2 == 0:
					rs[j] = si.block + rune(rng.Intn(128))
				default: // alternate the block's ends: the largest deltas
					rs[j] = si.block + rune(127*(j%2))
				}
			}
			if nBasic == n {
				continue
			}
			exact := aLabelLength(rs, nBasic, n)
			if n <= int(safe[si.code][nBasic]) && exact > MaxALabelLength {
				t.Fatalf("%s %U: %d code points (%d ASCII) are declared safe, but the A-label has %d octets", si.code, rs, n, nBasic, exact)
			}
		}
	}
	// Any code points (safeLenAny): the extremes of Unicode side by side,
	// and random ones.
	for i := 0; i < 40000; i++ {
		n := 1 + rng.Intn(40)
		if i%4 == 3 {
			n = int(safeLenAny[rng.Intn(8)]) + rng.Intn(2)
		}
		rs := make([]rune, n)
		nBasic := 0
		for j := range rs {
			switch {
			case rng.Intn(8) == 0:
				rs[j] = rune('0' + rng.Intn(10))
				nBasic++
			case i%2 == 0:
				rs[j] = 0x80 + rune(rng.Intn(utf8.MaxRune-0x80+1))
			default:
				rs[j] = []rune{0x80, utf8.MaxRune}[j%2]
			}
		}
		if nBasic == n {
			continue
		}
		if exact := aLabelLength(rs, nBasic, n); n <= int(safeLenAny[nBasic]) && exact > MaxALabelLength {
			t.Fatalf("any %U: %d code points (%d ASCII) are declared safe, but the A-label has %d octets", rs, n, nBasic, exact)
		}
	}
	// The languages whose repertoire leaves the block: their whole span.
	for _, tag := range Tags() {
		l := mustLang(t, tag)
		if len(l.extra) == 0 {
			continue
		}
		lo, hi := l.block, l.block+127
		for r := range l.extra {
			lo, hi = min(lo, r), max(hi, r)
		}
		for i := 0; i < 20000; i++ {
			n := 1 + rng.Intn(40)
			if i%4 == 3 {
				n = int(l.safeLenWide[rng.Intn(8)]) + rng.Intn(2)
			}
			rs := make([]rune, n)
			nBasic := 0
			for j := range rs {
				switch {
				case rng.Intn(8) == 0:
					rs[j] = rune('0' + rng.Intn(10))
					nBasic++
				case i%2 == 0:
					rs[j] = lo + rune(rng.Intn(int(hi-lo)+1))
				default:
					rs[j] = []rune{lo, hi}[j%2]
				}
			}
			if nBasic == n {
				continue
			}
			if exact := aLabelLength(rs, nBasic, n); n <= int(l.safeLenWide[nBasic]) && exact > MaxALabelLength {
				t.Fatalf("%s %U: %d code points (%d ASCII) are declared safe, but the A-label has %d octets", tag, rs, n, nBasic, exact)
			}
		}
	}
}

// TestFastPath holds the one-pass verdict to the careful pipeline: whenever
// fast is sure, run agrees.
func TestFastPath(t *testing.T) {
	for _, tag := range Tags() {
		l := mustLang(t, tag)
		rng := rand.New(rand.NewSource(5))
		p := append(pool(l), 0xFF, 0xE0) // stray bytes make invalid UTF-8
		sure, n := 0, perLanguage(longtest.Pick(20000, 200000))
		for i := 0; i < n; i++ {
			var s string
			if i%50 == 0 {
				s = string([]byte{byte(rng.Intn(256)), 0xE0, 0xA4, byte(0x80 + rng.Intn(64))})
			} else {
				s = randomLabel(rng, p)
			}
			v, ok := l.fast(s)
			if !ok {
				continue
			}
			sure++
			if want := l.run(s, nil, MinLength); v != want {
				t.Fatalf("%s %q (%s): fast says %v, run says %v (%v)", tag, s, hexOf(s), v, want, codesOf(l.Check(s)))
			}
		}
		if sure < n/2 {
			t.Errorf("%s: fast was sure of only %d of %d labels", tag, sure, n)
		}
	}
}

// TestDiv checks the reciprocal division of the Punycode encoder against
// the hardware's for every divisor, near every multiple at the ends of its
// range and at random points.
func TestDiv(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	for d := uint32(1); d <= 64; d++ {
		check := func(x uint32) {
			if got := div(x, d); got != x/d {
				t.Fatalf("div(%d, %d) = %d, want %d", x, d, got, x/d)
			}
		}
		for x := uint32(0); x < 1<<16; x++ {
			check(x)
		}
		for k := uint32(1<<27)/d - 1<<12; k <= uint32(1<<27-1)/d; k++ {
			for _, x := range []uint32{k*d - 1, k * d, k*d + d - 1} {
				if x < 1<<27 {
					check(x)
				}
			}
		}
		for i := 0; i < 100000; i++ {
			check(uint32(rng.Int63n(1 << 27)))
		}
	}
}

// TestQuickNFCMaybe holds quickNFC to x/text/norm on every sequence of two
// characters of the pool followed by a character that may compose with
// what precedes it (the cases mayCompose decides), in every language.
func TestQuickNFCMaybe(t *testing.T) {
	for _, tag := range Tags() {
		l := mustLang(t, tag)
		p := pool(l)
		var maybe []rune
		for _, r := range p {
			if off := r - l.block; off >= 0 && off < 128 && l.maybe[off] {
				maybe = append(maybe, r)
			}
		}
		d := &diag{lang: l}
		quick := 0
		for _, z := range maybe {
			for _, x := range p {
				for _, y := range append([]rune{-1}, p...) {
					s := string(x) + string(z)
					if y >= 0 {
						s = string(x) + string(y) + string(z)
					}
					if l.quickNFCRunes(s, []rune(s)) != l.quickNFC(s) {
						t.Fatalf("%s: quickNFCRunes(%s) is not quickNFC", tag, hexOf(s))
					}
					if _, q := d.decode(s); q && !l.quickNFC(s) {
						t.Fatalf("%s: decode(%s) says NFC, quickNFC does not", tag, hexOf(s))
					}
					if l.quickNFC(s) {
						quick++
						if !norm.NFC.IsNormalString(s) {
							t.Fatalf("%s: quickNFC(%s) is true but the string is not NFC", tag, hexOf(s))
						}
					}
				}
			}
		}
		if len(maybe) > 0 && quick == 0 {
			t.Errorf("%s: quickNFC never answered true", tag)
		}
	}
}

// TestTriplePrefilter: mayHaveTriple is true for every label in which
// identicalConsonants finds three identical consonants, in every
// language: random labels of the repertoire, and labels built to have
// such runs (with nuktas, and near misses). identicalRunes, the
// diagnostics' reading of the same rule, agrees with identicalConsonants.
func TestTriplePrefilter(t *testing.T) {
	for _, tag := range Tags() {
		l := mustLang(t, tag)
		var labels []string
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
				x, y := string(c)+string(h), string(cs[(i+1)%len(cs)])
				labels = append(labels, x+x+string(c), y+x+x+string(c)+y, x+y+string(h)+x+string(c), "1"+x+x+string(c))
				for _, nk := range ns {
					z := string(c) + string(nk) + string(h)
					labels = append(labels, z+z+string(c)+string(nk), z+x+string(c), x+z+string(c)+string(nk))
				}
			}
		}
		rng := rand.New(rand.NewSource(11))
		p := pool(l)
		for i := 0; i < 20000; i++ {
			labels = append(labels, randomLabel(rng, p))
		}
		found := 0
		for _, s := range labels {
			if !utf8.ValidString(s) || !norm.NFC.IsNormalString(s) {
				continue
			}
			pos, ok := l.identicalConsonants(s)
			if rpos, rok := l.identicalRunes([]rune(s)); rpos != pos || rok != ok {
				t.Fatalf("%s: identicalRunes(%s) = %d, %v; identicalConsonants: %d, %v", tag, hexOf(s), rpos, rok, pos, ok)
			}
			if ok {
				found++
				if !l.mayHaveTriple(s) {
					t.Fatalf("%s: %s has three identical consonants, mayHaveTriple says no", tag, hexOf(s))
				}
			}
		}
		if len(hs) > 0 && found == 0 {
			t.Errorf("%s: no label with three identical consonants", tag)
		}
	}
}

// TestBlockInserts holds the encoder's orders without sorting
// (blockLabel.inserts, insertsLong) to the sorted one (keyInserts) on
// random labels of up to 63 code points at offsets 1..127 of a block and
// ASCII, with many repeated values and values next to each other (where a
// comparison off by one shows), the ordinals standing for the block's
// offsets or, every other label, for increasing code points with gaps
// (labelOrds of an Arabic-script repertoire).
func TestBlockInserts(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	const block = 0x900
	byOffset := labelOrds{byOffset: true, base: block}
	gappy := labelOrds{}
	for o := range byOffset.val {
		byOffset.val[o] = block + rune(o)
	}
	gappy.val[0] = 0x600
	for o := 1; o < len(gappy.val); o++ {
		gappy.val[o] = gappy.val[o-1] + 1 + rune(rng.Intn(3))
	}
	for i := 0; i < longtest.Pick(20000, 200000); i++ {
		ords := &byOffset
		if i%4 >= 2 {
			ords = &gappy
		}
		n := 1 + rng.Intn(MaxALabelLength)
		if i%2 == 0 {
			n = 1 + rng.Intn(8)
		}
		lo, span := 1+rng.Intn(127), 1+rng.Intn(8)
		if i%3 == 0 {
			lo, span = 1, 127
		}
		rs := make([]rune, n)
		var bl blockLabel
		bl.n = n
		for p := range rs {
			if rng.Intn(6) == 0 {
				rs[p] = rune('0' + rng.Intn(10))
				bl.nBasic++
				continue
			}
			off := rune(min(lo+rng.Intn(span), 127))
			rs[p] = ords.val[off]
			if !bl.add(p, off) {
				t.Fatalf("add(%d, %d) refused", p, off)
			}
		}
		var ascii [MaxALabelLength]byte
		var want, got punyInserts
		k, _ := runeInserts(rs, &want, &ascii)
		gk := bl.insertsLong(&got, ords.base)
		ords.values(got[:gk])
		if gk != k || got != want {
			t.Fatalf("%U: insertsLong %d %x, keyInserts %d %x", rs, gk, got[:gk], k, want[:k])
		}
		if n <= 8 {
			var short [8]uint32
			gk := bl.inserts(&short, ords.base)
			ords.values(short[:gk])
			if gk != k || short != [8]uint32(want[:8]) {
				t.Fatalf("%U: inserts %d %x, keyInserts %d %x", rs, gk, short[:gk], k, want[:k])
			}
		}
	}
	var bl blockLabel
	for _, off := range []rune{0, 128, -1} {
		if bl.add(0, off) {
			t.Errorf("add(0, %d) accepted an offset the encoder cannot take", off)
		}
	}
}

// TestLabelOrds holds every language's labelOrds to what segment and the
// encoder assume: the ordinals keep the code points' order and val gives
// each one's code point back; byOffset languages number by block offset;
// a repertoire of at most 127 code points in fastInfo's range has an
// ordinal for each (else its labels would all be encoded from the string,
// as the Arabic-script ones were, by sorting).
func TestLabelOrds(t *testing.T) {
	for _, tag := range Tags() {
		l := mustLang(t, tag)
		lo := &l.labelOrds
		inRep := 0
		for o := 0; o < 256; o++ {
			if l.classOf(l.block+rune(o)) != NoClass {
				inRep++
			}
		}
		prev := uint8(0)
		for o := 0; o < 256; o++ {
			r := l.block + rune(o)
			if l.classOf(r) != NoClass && lo.ord[o] == 0 && inRep <= 127 {
				t.Errorf("%s: %U in the repertoire has no ordinal", tag, r)
			}
			ord := lo.ord[o]
			if ord == 0 {
				continue
			}
			if ord <= prev || ord > 127 {
				t.Errorf("%s: %U has ordinal %d after %d", tag, r, ord, prev)
			}
			prev = ord
			if lo.val[ord] != r {
				t.Errorf("%s: ordinal %d of %U gives %U back", tag, ord, r, lo.val[ord])
			}
			if lo.byOffset && int(ord) != o {
				t.Errorf("%s: by offset, %U has ordinal %d", tag, r, ord)
			}
		}
	}
}

// TestAdaptBound: no delta an encoder can see (below 2^27) gives a bias
// above maxBias, which indexes digitSteps; and smallDigits holds every
// small delta's digits as putDigits writes them.
func TestAdaptBound(t *testing.T) {
	for h := uint32(1); h <= MaxALabelLength+1; h++ {
		for _, delta := range []uint32{1<<27 - 1, 1 << 26, 455 * 2, 700 * 456} {
			for _, dl := range []uint32{delta / punyDamp, delta / 2} {
				if b := adapt(dl, h); b > 177 || b > maxBias {
					t.Fatalf("adapt(%d, %d) = %d", dl, h, b)
				}
			}
		}
	}
	for bias := range uint32(smallBiases) {
		for delta := range uint32(smallDeltas) {
			var buf [8]byte
			n := putDigits(buf[:], 0, delta, bias)
			c := smallDigits[bias][delta]
			if got := string([]byte{byte(c), byte(c >> 8)}[:1+min(int(c>>8), 1)]); got != string(buf[:n]) {
				t.Fatalf("bias %d delta %d: smallDigits %q, putDigits %q", bias, delta, got, buf[:n])
			}
		}
	}
}
