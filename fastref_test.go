package akshara

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/akshara-idn/akshara/internal/longtest"
)

// refFast is the verdict-only path as it was before fastInfo and
// fastTab (commit 76a91a9), kept to hold the new fast to its verdicts.
// It was the verdict-only path for the common case, in one pass over the
// bytes: it decodes (validating UTF-8), checks NFC with the language's
// tables, walks the grammar table and applies the whole-label rules. It is
// sure of its answer only when normalization cannot change it; otherwise
// (an A-label, a string that may not be NFC, a character outside the block
// that NFC might turn into a repertoire character) it leaves the label to
// run. TestFastPath holds its sure answers to run's.
func (l *Language) refFast(s string) (valid, sure bool) {
	if len(s) == 0 || hasACEPrefix(s) {
		return false, false
	}
	st := uint16(0)
	n, nBasic, halants := 0, 0, 0
	digitsOnly, broken, triggered := true, false, false
	outside := false      // a repertoire letter outside the block was read
	varStarts := 0        // code points that start a variant sequence
	var prevSet [2]uint64 // prevOff -3: the marks that compose with the letter before
	var lastCC uint8
	prevOff := rune(-1)
	for i := 0; i < len(s); n++ {
		var k kind
		if c := s[i]; c < utf8.RuneSelf {
			switch {
			case c >= '0' && c <= '9':
				k = kindDigit
			case c == '-':
				k, digitsOnly = kindHyph, false
			default:
				return false, true // no normalization makes an ASCII letter or sign valid
			}
			triggered = triggered || l.asciiTrigger
			nBasic++
			lastCC, prevOff = 0, -1
			i++
		} else {
			digitsOnly = false
			var r rune
			size := 3
			if c == 0xE0 && i+2 < len(s) && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2]&0xC0 == 0x80 {
				r = rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
			} else if r, size = utf8.DecodeRuneInString(s[i:]); r == utf8.RuneError && size == 1 {
				return false, true // INVALID_UTF8
			}
			if off := r - l.block; off >= 0 && off < 128 && l.kinds[off] != kindNone {
				k = l.kinds[off]
				cc := l.ccc[off]
				if cc != 0 && cc < lastCC {
					return false, false
				}
				if l.maybe[off] {
					if prevOff == -3 {
						// just after a letter outside the block that some
						// repertoire marks compose with: is this one of them?
						if prevSet[off/64]&(1<<(off%64)) != 0 {
							return false, false
						}
					} else if l.mayCompose(off, cc, prevOff, lastCC) {
						return false, false
					}
				}
				lastCC, prevOff = cc, off
				triggered = triggered || l.trigger[off]
				if l.varStart[off] {
					varStarts++
				}
			} else if es, starter := l.starter(r); starter {
				// A repertoire letter outside the block that NFC never
				// changes (the Arabic letters of U+0680..U+06FF, Bodo's
				// U+02BC). A mark right after it may compose with it only
				// if it is one of those the letter composes with (-3,
				// prevSet); -2 says that nothing composes with it; -1
				// sends any mark after it to norm.
				k, outside = es.kind, true
				lastCC, prevOff = 0, -2
				switch {
				case es.wide:
					prevOff = -1
				case es.composer:
					prevOff, prevSet = -3, es.composes
				}
				triggered = triggered || es.trigger
				if es.varStart {
					varStarts++
				}
			} else {
				return false, l.hopelessAt(s, i, size)
			}
			i += size
		}
		if !broken {
			// A broken rule decides the verdict once the rest is known to
			// be NFC, so the loop goes on only to make sure of that.
			t := &l.table[st][k]
			broken = t.code != OK
			st = t.next
		}
		if k == kind(H) {
			halants++
		}
	}
	switch {
	case broken, l.ends[st] != OK, n < MinLength, digitsOnly && n <= 2:
		return false, true
	case halants >= 2 && l.mayHaveTriple(s):
		if _, found := l.identicalConsonants(s); found {
			return false, true
		}
	}
	if l.RTL && s[0] <= '9' && s[0] >= '0' {
		return false, true // BIDI: checkRTL makes the leading digit the only way to break the Bidi rule here
	}
	if nBasic == n {
		return len(s) <= MaxALabelLength, true
	}
	safe := &l.safeLen
	if outside {
		safe = &l.safeLenWide
	}
	if n > int(safe[min(nBasic, MaxALabelLength)]) && aLabelLengthOf(s, nBasic, n) > MaxALabelLength {
		return false, true
	}
	if varStarts > l.varFree && !l.variantLimitOK(s) {
		return false, true
	}
	return !triggered || l.contextsOK(s), true
}

// fastInputs returns the labels TestFastMatchesRef and FuzzFast's seeds
// try in a language: the language file's examples, word-like labels,
// random labels of its repertoire and neighbours, and mutations of the
// words that break their UTF-8, their NFC or their length.
func fastInputs(l *Language, rng *rand.Rand, random int) []string {
	var in []string
	for _, ex := range l.Examples() {
		in = append(in, ex.Text)
	}
	words := wordLike(l, 300)
	in = append(in, words...)
	p := append(pool(l), 0x02BC, 0x0654, 0x06C1, 0x06D2, 0x0600, 0x0680, 0x06FF, l.block+127, l.block+128, l.block+255, l.block+256, l.block-1)
	for i := 0; i < random; i++ {
		in = append(in, randomLabel(rng, p))
	}
	b := l.block
	overlong := []string{
		// the block's first code points written in three bytes when they
		// take two (and two bytes for ASCII), surrogates, stray bytes
		string([]byte{0xE0, byte(0x80 | b>>6&0x3F), byte(0x80 | b&0x3F)}),
		"\xC0\xAD", "\xC1\xB0", "\xED\xA0\x80", "\xE0\xA4", "\xE0", "\xF0\x9F\x98\x80", "\x80", "\xFF",
	}
	for _, w := range words {
		rs := []rune(w)
		j := rng.Intn(len(w) + 1)
		in = append(in,
			w[:j]+overlong[rng.Intn(len(overlong))]+w[j:], // a byte sequence spliced in
			w[:len(w)-1], // a truncated last code point
			w+"-"+w+w+"-"+w+w+w+w+w,         // long: past the safe length, past 63
			strings.Repeat(w, 1+64/len(rs)), // more than 63 code points
			string(rs[len(rs)-1])+w,         // a mark first
			w+string(p[rng.Intn(len(p))]),   // one more code point
			"1"+w, w+"9", "-"+w,
		)
		if len(rs) > 2 {
			k := rng.Intn(len(rs) - 1)
			rs[k], rs[k+1] = rs[k+1], rs[k] // swapped: marks out of order
			in = append(in, string(rs))
		}
	}
	// every code point of fastInfo's range and of U+2000..U+207F, inside
	// a word and after a vowel sign NFC may compose
	for o := rune(0); o < 256; o++ {
		w := words[rng.Intn(len(words))]
		in = append(in, w+string(b+o)+w, string(b+o)+w, w+string(b+o))
	}
	for r := rune(0x2000); r < 0x2080; r++ {
		w := words[rng.Intn(len(words))]
		in = append(in, w+string(r)+w, w+string(r))
	}
	// three identical consonants joined by halants, with and without a
	// nukta, alone and inside words (IDENTICAL_CONSONANTS, mayHaveTriple)
	var cons, halants, nuktas []rune
	for _, m := range l.Repertoire() {
		switch m.Class {
		case C:
			cons = append(cons, m.Rune)
		case H:
			halants = append(halants, m.Rune)
		case N:
			nuktas = append(nuktas, m.Rune)
		}
	}
	for _, h := range halants {
		for _, c := range cons {
			hs, cs := string(h), string(c)
			w := words[rng.Intn(len(words))]
			in = append(in, cs+hs+cs+hs+cs, cs+hs+cs+hs+cs+hs+cs, w+cs+hs+cs+hs+cs+w,
				cs+hs+cs+hs+string(cons[rng.Intn(len(cons))]), cs+hs+cs+w+cs+hs+cs)
			for _, nk := range nuktas {
				cn := cs + string(nk)
				in = append(in, cn+hs+cn+hs+cn, w+cn+hs+cn+hs+cn, cn+hs+cs+hs+cn, cs+hs+cn+hs+cs+hs+cs)
			}
		}
	}
	// the context rules' own sequences, and vowel + halant + consonant +
	// vowel sign at random (vowel-conjuncts, fiTrig1 and fiTrig2)
	for _, cr := range l.contexts {
		for _, seq := range append([][]item{cr.trigger}, cr.contexts...) {
			var b strings.Builder
			for _, it := range seq {
				if it.kind == itemRune {
					b.WriteRune(it.r)
				}
			}
			w := words[rng.Intn(len(words))]
			in = append(in, b.String(), w+b.String(), b.String()+w, w+b.String()+w, "-"+b.String(), "1"+b.String(), w+"-"+b.String(), w+"1"+b.String(), w+"-"+b.String()+w, w+"12"+b.String()+w)
		}
	}
	var vowels, signs []rune
	for _, m := range l.Repertoire() {
		switch m.Class {
		case V:
			vowels = append(vowels, m.Rune)
		case M:
			signs = append(signs, m.Rune)
		}
	}
	for i := 0; i < 200 && len(vowels) > 0 && len(halants) > 0 && len(cons) > 0; i++ {
		s := string(vowels[rng.Intn(len(vowels))]) + string(halants[rng.Intn(len(halants))]) + string(cons[rng.Intn(len(cons))])
		if len(signs) > 0 {
			s += string(signs[rng.Intn(len(signs))])
		}
		w := words[rng.Intn(len(words))]
		in = append(in, s, w+s, s+w)
	}
	return in
}

// TestFastMatchesRef holds fast to the former verdict-only loop (refFast)
// in every language, answer for answer (the verdict and whether it is
// sure), and Valid to the pipeline.
func TestFastMatchesRef(t *testing.T) {
	for _, tag := range Tags() {
		l := mustLang(t, tag)
		rng := rand.New(rand.NewSource(11))
		in := fastInputs(l, rng, perLanguage(longtest.Pick(20000, 200000)))
		sure, valid := 0, 0
		for _, s := range in {
			v, ok := l.fast(s)
			rv, rok := l.refFast(s)
			if v != rv || ok != rok {
				t.Fatalf("%s %q (%s): fast says (%v, %v), the former loop (%v, %v)", tag, s, hexOf(s), v, ok, rv, rok)
			}
			if got, want := l.Valid(s), l.run(s, nil, MinLength); got != want {
				t.Fatalf("%s %q (%s): Valid says %v, run %v", tag, s, hexOf(s), got, want)
			}
			if ok {
				sure++
			}
			if v && ok {
				valid++
			}
		}
		// both answers must be exercised, or the comparison proves little
		if sure < len(in)/2 || valid < 300 {
			t.Errorf("%s: fast was sure of %d and found %d valid of %d labels", tag, sure, valid, len(in))
		}
	}
}

// FuzzFast: fast answers as the former loop (refFast) does, and Valid as
// the pipeline, in every language.
func FuzzFast(f *testing.F) {
	tags := Tags()
	rng := rand.New(rand.NewSource(12))
	for i, tag := range tags {
		in := fastInputs(mustLang(f, tag), rng, 0)
		for j := 0; j < 20; j++ {
			f.Add(in[rng.Intn(len(in))], uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, s string, which uint8) {
		l := mustLang(t, tags[int(which)%len(tags)])
		v, ok := l.fast(s)
		if rv, rok := l.refFast(s); v != rv || ok != rok {
			t.Fatalf("%s %q (%s): fast says (%v, %v), the former loop (%v, %v)", l.Tag, s, hexOf(s), v, ok, rv, rok)
		}
		if got, want := l.Valid(s), l.run(s, nil, MinLength); got != want {
			t.Fatalf("%s %q (%s): Valid says %v, run %v", l.Tag, s, hexOf(s), got, want)
		}
	})
}

// TestFastALabelLength holds fast's A-label length to aLabelLengthOf (held
// to x/net/idna by TestALabelLength) in every language, on labels of its
// repertoire, digits and hyphens up to 63 code points long.
func TestFastALabelLength(t *testing.T) {
	for _, tag := range Tags() {
		l := mustLang(t, tag)
		rng := rand.New(rand.NewSource(13))
		p := append(pool(l), '7', '-', 'q', 0x0600, 0x06FF)
		words := wordLike(l, 100)
		for i := 0; i < perLanguage(longtest.Pick(5000, 50000)); i++ {
			var s string
			switch i % 3 {
			case 0:
				s = randomLabel(rng, p) + randomLabel(rng, p) + randomLabel(rng, p) + randomLabel(rng, p)
			case 1:
				for len([]rune(s)) < 20+rng.Intn(44) {
					s += words[rng.Intn(len(words))]
					if rng.Intn(4) == 0 {
						s += string(p[rng.Intn(len(p))])
					}
				}
			default:
				s = randomLabel(rng, p)
			}
			rs := []rune(s)
			if !utf8.ValidString(s) || len(rs) > MaxALabelLength {
				continue
			}
			nBasic := 0
			for _, r := range rs {
				if r < utf8.RuneSelf {
					nBasic++
				}
			}
			if nBasic == len(rs) {
				continue
			}
			if got, want := l.fastALabelLength(s, nBasic, len(rs)), aLabelLengthOf(s, nBasic, len(rs)); got != want {
				t.Fatalf("%s %q (%s): fastALabelLength %d, aLabelLengthOf %d", tag, s, hexOf(s), got, want)
			}
		}
	}
}

// BenchmarkValidRef compares Valid with the former verdict-only loop
// (refFast, run when it is unsure) and the decode loop, per language, over
// the labels of BenchmarkLanguages ($AKSHARA_CORPORA for real word lists).
func BenchmarkValidRef(b *testing.B) {
	for _, tag := range Tags() {
		l := mustLang(b, tag)
		labels := languageLabels(b, l)
		b.Run(tag+"/decode", func(b *testing.B) { benchEach(b, labels, decodeLoop) })
		b.Run(tag+"/former", func(b *testing.B) {
			benchEach(b, labels, func(s string) bool {
				if v, sure := l.refFast(s); sure {
					return v
				}
				return l.run(s, nil, MinLength)
			})
		})
		b.Run(tag+"/Valid", func(b *testing.B) { benchEach(b, labels, l.Valid) })
	}
}

// TestVariantIndexBlock: the block's table of variant sequences is the
// map's, code point for code point, in every language.
func TestVariantIndexBlock(t *testing.T) {
	for _, tag := range Tags() {
		l := mustLang(t, tag)
		vi := &l.varIndex
		if vi.byOff == nil || vi.block != l.block {
			t.Fatalf("%s: the variant index has no table for the block", tag)
		}
		for o, seqs := range vi.byOff {
			want := vi.byFirst[l.block+rune(o)]
			if len(seqs) != len(want) || (len(seqs) > 0 && &seqs[0] != &want[0]) {
				t.Errorf("%s: U+%04X: %d sequences in the table, %d in the map", tag, l.block+rune(o), len(seqs), len(want))
			}
		}
	}
}
