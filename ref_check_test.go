package akshara

// The reference Check: a verbatim copy of the diagnostics path of Check as
// it is on main without issue 16's work (main at 0333376, after issues 9,
// 10, 11 and 13: run and scan with a *diag, diag's methods and message).
// TestCheckMatchesReference and FuzzCheck hold the new Check to it byte for
// byte. The shared helpers it calls (the grammar table, context rules,
// classifyOther, show, the A-label encoder) are the production ones. When
// the pipeline's diagnostics change on purpose, change them here too.

import (
	"sort"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"
)

// refCheck is CheckOptions without issue 16.
func (l *Language) refCheck(label string, o Options) *Result {
	minLen := o.MinLength
	if minLen <= 0 {
		minLen = MinLength
	}
	d := &refDiag{lang: l, brief: o.Brief, res: Result{Input: label, Lang: l.Tag, Errors: []*Error{}}}
	d.segments = d.segBuf[:0]
	d.res.Valid = l.refRun(label, d, minLen)
	d.finish()
	return &d.res
}

type refDiag struct {
	lang     *Language
	brief    bool // Options.Brief: codes and positions only
	res      Result
	raw      []rawError
	segments []segment
	segBuf   [16]segment // backing store for short labels' segments
}

func (d *refDiag) add(code Code, pos int, r rune, prev Class) {
	if d == nil {
		return
	}
	d.raw = append(d.raw, rawError{code: code, pos: pos, r: r, prev: prev})
}

func (d *refDiag) addGrammar(code Code, pos int, r rune, prev Class) {
	d.add(code, pos, r, prev)
	d.raw[len(d.raw)-1].grammar = true
}

func (d *refDiag) contexts(u string) {
	if len(d.lang.contexts) == 0 {
		return
	}
	rs := []rune(u)
	d.lang.checkContexts(rs, func(cr *contextRule, p int) bool {
		prev := NoClass
		if p > 0 {
			prev = d.lang.classOf(rs[p-1])
		}
		d.raw = append(d.raw, rawError{code: cr.code, pos: p, r: rs[p], prev: prev, rule: cr})
		return true
	})
}

func (d *refDiag) variantLimit(u string) {
	l := d.lang
	if len(l.varIndex.rows) == 0 {
		return
	}
	rs := []rune(u)
	if !l.varLimitLabels {
		if count, pos := l.variantAksharas(rs); count > l.varLimit {
			d.addMessage(VariantLimit, pos, itoa(count)+" aksharas of the label have variants (homographs in the "+l.Name+" variant table); at most "+itoa(l.varLimit)+" may")
		}
		return
	}
	// The labels the table generates: the product of the spans' row sizes.
	n := 1
	for _, sp := range l.varIndex.spans(rs, nil) {
		if n *= len(l.varIndex.rows[sp.row]); n > l.varLimit {
			d.addMessage(VariantLimit, sp.start, "the label has more than "+itoa(l.varLimit)+" variant labels (homographs in the "+l.Name+" variant table), the most a label may have")
			return
		}
	}
}

func (d *refDiag) addMessage(code Code, pos int, msg string) {
	if d == nil {
		return
	}
	d.raw = append(d.raw, rawError{code: code, pos: pos, r: -1, msg: msg})
}

func (d *refDiag) refuse(r rune, pos, off int) {
	code := d.lang.classifyOther(r)
	if n := len(d.raw); n > 0 {
		last := &d.raw[n-1]
		if last.code == code && last.r >= 0 && last.pos+last.run == pos {
			last.run++
			return
		}
	}
	d.raw = append(d.raw, rawError{code: code, pos: pos, r: r, run: 1})
	d.boundary(off, false, false)
}

func (d *refDiag) boundary(off int, hyphen, digit bool) {
	d.segments = append(d.segments, segment{off, hyphen, digit})
}

func (d *refDiag) finish() {
	u := d.res.ULabel
	d.res.Syllables = make([]string, 0, len(d.segments)+1)
	if u != "" && !d.brief {
		if len(d.segments) == 0 || d.segments[0].off != 0 {
			d.segments = append([]segment{{off: 0}}, d.segments...)
		}
		for i, s := range d.segments {
			end := len(u)
			if i+1 < len(d.segments) {
				end = d.segments[i+1].off
			}
			if s.hyphen || end <= s.off {
				continue
			}
			text := u[s.off:end]
			if s.digit && i > 0 && d.segments[i-1].digit && len(d.res.Syllables) > 0 {
				d.res.Syllables[len(d.res.Syllables)-1] += text
				continue
			}
			d.res.Syllables = append(d.res.Syllables, text)
		}
	}
	var runes []rune
	if len(d.raw) > 0 && !d.brief {
		runes = []rune(u)
	}
	ruled := map[int]bool{}
	for _, e := range d.raw {
		if e.rule != nil {
			ruled[e.pos] = true
		}
	}
	sort.SliceStable(d.raw, func(i, j int) bool { return d.raw[i].pos < d.raw[j].pos })
	type key struct {
		code Code
		pos  int
	}
	seen := map[key]bool{}
	for _, e := range d.raw {
		if e.grammar && ruled[e.pos] {
			continue // the language's own rule names this fault
		}
		if seen[key{e.code, e.pos}] {
			continue // two rules name the same fault
		}
		seen[key{e.code, e.pos}] = true
		msg := e.msg
		if d.brief {
			msg = ""
		} else if msg == "" {
			msg = d.lang.refMessage(e, runes)
		}
		d.res.Errors = append(d.res.Errors, &Error{Code: e.code, Pos: e.pos, Message: msg})
	}
	d.res.Valid = len(d.res.Errors) == 0
	if d.res.Valid && !isASCII(u) && !d.brief {
		// x/net/idna's encoder, not the package's own: the reference must
		// not share the code it checks
		a, err := idna.Punycode.ToASCII(u)
		if err != nil {
			a = "idna: " + err.Error() // never equal to an A-label
		}
		d.res.ALabel = a
	}
}

func (l *Language) refRun(s string, d *refDiag, minLen int) bool {
	if s == "" {
		d.add(Empty, 0, -1, NoClass)
		return false
	}
	if !utf8.ValidString(s) {
		if d != nil {
			pos := 0
			for i, r := range s {
				if r == utf8.RuneError {
					if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
						d.add(InvalidUTF8, pos, rune(s[i]), NoClass)
						break
					}
				}
				pos++
			}
		}
		return false
	}
	u := s
	if hasACEPrefix(s) {
		dec, why := decodeALabel(s)
		if why != "" {
			if d != nil {
				d.res.ULabel = ""
				d.addMessage(BadALabel, 0, why)
			}
			return false
		}
		if len(s) > MaxALabelLength {
			d.addMessage(TooLong, 0, "the A-label has "+itoa(len(s))+" characters; at most 63 are allowed")
			if d == nil {
				return false
			}
		}
		u = dec
	}
	normalized := false
	if !l.quickNFC(u) && (d != nil || !l.hopeless(u)) && !norm.NFC.IsNormalString(u) {
		u = norm.NFC.String(u)
		normalized = true
	}
	if d != nil {
		d.res.ULabel = u
		d.res.Normalized = normalized
	}
	valid := l.refScan(u, d, minLen)
	if d != nil {
		d.contexts(u)
		d.variantLimit(u)
		if bad, digitFirst := l.bidiFault(u); bad && (digitFirst || len(d.raw) == 0) {
			d.add(Bidi, 0, -1, NoClass)
		}
		return valid && len(d.raw) == 0
	}
	if bad, _ := l.bidiFault(u); bad {
		return false
	}
	return valid && l.contextsOK(u) && l.variantLimitOK(u)
}

func (l *Language) refScan(u string, d *refDiag, minLen int) bool {
	st := uint16(0)
	n, nBasic, halants := 0, 0, 0
	allDigits := true
	inBlock := true // every non-ASCII code point is in the script's block
	prev := NoClass
	for i := 0; i < len(u); {
		var r rune
		var k kind
		size := 1
		if c := u[i]; c < utf8.RuneSelf {
			r = rune(c)
			switch {
			case c >= '0' && c <= '9':
				k = kindDigit
			case c == '-':
				k = kindHyph
			}
			nBasic++
		} else {
			r, size = decodeValid(u, i)
			if off := r - l.block; off >= 0 && off < 128 {
				k = l.kinds[off]
			} else {
				inBlock = false
				if ek, ok := l.extra[r]; ok {
					k = ek
				}
			}
		}
		if k != kindDigit {
			allDigits = false
		}
		if k == kindNone {
			if d == nil {
				return false
			}
			d.refuse(r, n, i)
			st = 1 // nRecover
		} else {
			t := &l.table[st][k]
			if t.code != OK {
				if d == nil {
					return false
				}
				d.addGrammar(t.code, n, r, prev)
			}
			if d != nil && t.start {
				d.boundary(i, k == kindHyph, k == kindDigit)
			}
			st = t.next
			if k == kind(H) {
				halants++
			}
		}
		prev = k.class()
		n++
		i += size
	}
	if code := l.ends[st]; code != OK {
		if d == nil {
			return false
		}
		d.addGrammar(code, n-1, -1, prev)
	}
	if n < minLen {
		if d == nil {
			return false
		}
		d.addMessage(TooShort, 0, "the label has "+itoa(n)+plural(n, " character", " characters")+"; at least "+itoa(minLen)+" are required")
	}
	if allDigits && n <= 2 {
		if d == nil {
			return false
		}
		d.addMessage(DigitsOnly, 0, DigitsOnly.Summary())
	}
	if halants >= 2 {
		if pos, ok := l.identicalConsonants(u); ok {
			if d == nil {
				return false
			}
			d.add(IdenticalConsonants, pos, -1, NoClass)
		}
	}
	if nBasic < n && (!inBlock || n > int(l.safeLen[min(nBasic, MaxALabelLength)])) {
		if alen := aLabelLengthOf(u, nBasic, n); alen > MaxALabelLength {
			if d == nil {
				return false
			}
			d.addMessage(TooLong, 0, "the A-label would have "+itoa(alen)+" characters; at most 63 are allowed")
		}
	} else if nBasic == n && len(u) > MaxALabelLength {
		if d == nil {
			return false
		}
		d.addMessage(TooLong, 0, "the label has "+itoa(len(u))+" characters; at most 63 are allowed")
	}
	return true
}

func (l *Language) refMessage(e rawError, runes []rune) string {
	at := func(i int) rune {
		if i >= 0 && i < len(runes) {
			return runes[i]
		}
		return -1
	}
	what := "the end of the label"
	if e.r >= 0 {
		what = show(e.r)
	}
	after := "the start of the label"
	if p := at(e.pos - 1); p >= 0 && e.pos > 0 {
		after = l.classWord(e.prev) + " " + show(p)
		if e.prev == NoClass {
			after = show(p)
		}
	}
	if e.rule != nil {
		return l.contextMessage(e, what, after)
	}
	switch e.code {
	case Syllable:
		if e.r < 0 {
			return "the label ends in the middle of a syllable, after " + after
		}
		cl := l.class[e.r]
		why := "it cannot stand here"
		switch cl {
		case M:
			why = "a vowel sign (matra) must follow a consonant, and a syllable takes only one"
			if l.Alphabet {
				why = "a mark must follow a letter, and a letter takes only one"
			}
		case H:
			why = "a halant must follow a consonant"
		case D, B, X, S:
			why = "this sign must follow " + l.signPredecessors(e.r)
		case N:
			why = "a nukta must follow a consonant"
		case Y:
			why = "an avagraha must follow a syllable, once"
		case C:
			why = "the syllable before it is incomplete"
		}
		if e.prev == C && cl != M {
			// The consonant ends a syllable shape that does not take this
			// character: say which, rather than "must follow a consonant".
			if c := l.consonantContext(runes, e.pos); c != "" {
				why = c
			} else if cl != C {
				why = "the syllable that this consonant ends cannot take it"
			}
		}
		if e.pos == 0 {
			return what + " cannot begin a label: " + why
		}
		return what + " cannot follow " + after + ": " + why
	case NuktaBase:
		return "the nukta cannot follow " + after + ": " + l.Name + " allows the nukta only after " + l.nuktaBases()
	case HalantFollower:
		return what + " cannot follow a halant: a syllable that ends in a halant may be followed only by " + l.halantFollowers()
	case ClusterTooLong:
		return what + " makes a cluster of more than " + itoa(l.K+1) + " consonants joined by halants, the most " + l.Name + " allows"
	case IdenticalConsonants:
		return show(at(e.pos)) + " is the third identical consonant joined by halants: at most two may be joined" + l.identicalExample(at(e.pos))
	case SignCombination:
		return what + " cannot follow " + after + ": " + l.signRule()
	case HyphenStart, HyphenEnd, HyphenDouble, Empty:
		return e.code.Summary()
	case Addak:
		return what + " cannot follow " + after + ": " + Addak.Summary()
	case Bidi:
		if len(runes) > 0 && runes[0] >= '0' && runes[0] <= '9' {
			return "the label begins with a digit: a right-to-left (" + l.Name + ") label must begin with a letter (the Bidi rule, RFC 5893)"
		}
		return "the label breaks the Bidi rule for right-to-left labels (RFC 5893)"
	}
	// Refusals of single characters (docs/policy.md §4).
	more := ""
	if e.run > 1 {
		more = " and the " + itoa(e.run-1) + " characters after it"
		if e.run == 2 { // issue 15: "the character after it", not "the 1 characters"
			more = " and the character after it"
		}
	}
	switch e.code {
	case MixedScript:
		return what + more + ": " + e.code.Summary() + "; " + article(l.Name) + " " + l.Name + " label uses only " + l.scriptName() + " letters, ASCII digits and hyphens"
	case NotInRepertoire:
		return what + more + " is not in the " + l.Name + " language table"
	case InvalidUTF8:
		return "byte 0x" + hex(e.r) + " at position " + itoa(e.pos) + " is not valid UTF-8"
	}
	return what + more + ": " + e.code.Summary()
}
