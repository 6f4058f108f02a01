package akshara

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// The tables of the verdict-only path (fast, check.go), compiled from the
// language's other tables by buildFast so that one load serves each code
// point and one more moves the grammar.

// A fastInfo word describes one code point for fast: its kind, its
// canonical combining class and the flags fast accumulates. Zero means
// "not a repertoire character fast can read from the table".
const (
	fiKind     = 0x1F    // bits 0-4: the kind (never kindNone in a non-zero word)
	fiMaybe    = 1 << 5  // NFC may compose it with the character before (maybe)
	fiCCCShift = 8       // bits 8-15: the canonical combining class
	fiHalant   = 1 << 16 // a halant: fast's count of them is bits 16-23 of its sum
	fiVarStart = 1 << 24 // it starts a variant sequence: the count is bits 24-31

	// fiCounted are the fields fast adds up; each count is read only for
	// labels of at most MaxALabelLength code points, so 8 bits hold it.
	fiCounted = fiHalant | fiVarStart

	// fast ors prev>>fiPrevShift & w over the label (pairs): a bit of
	// bits 48-63 of the previous word meets the same bit of bits 32-47
	// of this one.
	//
	// The not-after and only-after rules (a one-item trigger, one-item
	// contexts before it) are decided there: fiRuleT<<i says that the
	// code point is the trigger of the i-th of them, fiRuleBad<<i that a
	// trigger after this code point (or after the start: fastStart)
	// breaks it. A rule whose trigger is a sequence (vowel-conjuncts'
	// "V H") can be broken only where two code points match its first two
	// items: fiTrig2 meets fiTrig1, and contextsOK decides. The flags
	// fiTrigger, fiOutside and fiNonDigit meet fiAny, which every word
	// and fastStart have: pairs holds them if any code point has them.
	fiPrevShift = 16
	fiRuleT     = 1 << 32 // bits 32-38: the trigger of decided rule 0..6
	fiRules     = 7       // decided rules; any further ones are left to contextsOK
	fiRulesT    = (1<<fiRules - 1) * fiRuleT
	fiTrig2     = 1 << 39 // it may be the second item of a sequence trigger
	fiTrigger   = 1 << 40 // it may be the trigger of a rule whose trigger is one item
	fiOutside   = 1 << 41 // a repertoire letter outside the block (safeLenWide)
	fiNonDigit  = 1 << 42 // not an ASCII digit (the digits-only rule)
	fiRuleBad   = fiRuleT << fiPrevShift
	fiTrig1     = fiTrig2 << fiPrevShift
	fiAny       = (fiTrigger | fiOutside | fiNonDigit) << fiPrevShift

	// A character NFC may compose with the one before it (maybe: Bengali
	// া after ে, an Arabic hamza above after an alef) has one of fiSlots
	// slots: fiComposeCur<<j in its word, fiComposePrev<<j in the words of
	// the code points after which mayCompose would say "perhaps" (the
	// letters it composes with; for a mark also any mark, ASCII and the
	// start). Its word has no fiMaybe, so it stays on fast's straight
	// line; a pair found there (pairs&fiCompose) makes fast unsure.
	fiSlots       = 5
	fiComposeCur  = 1 << 43 // bits 43-47
	fiComposePrev = fiComposeCur << fiPrevShift
	fiCompose     = (1<<fiSlots - 1) * fiComposeCur
)

// The values of fastPunct.
const (
	punctNone     = iota // not hopeless: fast is unsure
	punctHopeless        // no normalization makes it a repertoire character
	punctStarter         // an extraStarter: fastRest reads it
)

// fastStride is the width of a row of fastTab: numKinds rounded up to a
// power of two, so that a state's row starts at state<<fastShift.
const (
	fastShift  = 5
	fastStride = 1 << fastShift

	// fastStates is the most states (the dead one included) of a grammar
	// whose table is also held in fastSmall, an array in the Language
	// itself that fast's straight line indexes without a bounds check.
	// The grammars of the languages have 5 to 37.
	fastStates = 64
	fastMask   = fastStates<<fastShift - 1
)

// A row of fastTab holds every kind: the build fails if it could not.
var _ [fastStride - numKinds]struct{}

// buildFast compiles the tables fast reads: fastInfo for the block and the
// 128 code points after it (the extraStarters there), fastASCII for the
// digits and the hyphen, and fastTab, the grammar table flattened with the
// next state premultiplied by fastStride and every transition that breaks
// a rule sent to a dead state that never leaves (so that fast needs no
// "broken" flag). fastEnd[state] says whether a label may end there.
func (l *Language) buildFast() {
	for off := 0; off < 128; off++ {
		k := l.kinds[off]
		if k == kindNone {
			continue
		}
		w := uint64(k) | uint64(l.ccc[off])<<fiCCCShift | fiNonDigit | fiAny
		if l.maybe[off] {
			w |= fiMaybe
		}
		if k == kind(H) {
			w |= fiHalant
		}
		if l.varStart[off] {
			w |= fiVarStart
		}
		l.fastInfo[off] = w | l.triggerBits(l.block+rune(off))
	}
	// The slots of the "maybe" characters: those that compose with, or
	// need norm after, the same code points share one.
	var slots []int // a character of each slot
	var ccc0 [2]uint64
	for p := 0; p < 128; p++ {
		if l.ccc[p] == 0 {
			ccc0[p/64] |= 1 << (p % 64)
		}
	}
	signature := func(m int) string {
		comp := l.composes[m]
		comp[0] &= ccc0[0]
		comp[1] &= ccc0[1]
		var ext []rune
		for r, es := range l.extraStarters {
			if es.composer && !es.wide && es.composes[m/64]&(1<<(m%64)) != 0 {
				ext = append(ext, r)
			}
		}
		sort.Slice(ext, func(i, j int) bool { return ext[i] < ext[j] })
		return fmt.Sprint(l.ccc[m] != 0, comp, ext)
	}
	slotOf := map[string]int{}
	for off := 0; off < 128; off++ {
		w := l.fastInfo[off]
		if w&fiMaybe == 0 {
			continue
		}
		sig := signature(off)
		j, ok := slotOf[sig]
		if !ok {
			if len(slots) == fiSlots {
				continue // fastRest asks mayComposeAfter
			}
			j = len(slots)
			slotOf[sig] = j
			slots = append(slots, off)
		}
		l.fastInfo[off] = w&^fiMaybe | fiComposeCur<<j
	}
	// composeBits returns the fiComposePrev bits of a code point before a
	// slot's character: whether mayComposeAfter may say true after it.
	// prev is its block offset (-1 for ASCII and the start), lastCC its
	// combining class; es is set for an extraStarter.
	composeBits := func(prev int, lastCC uint8, es *extraStarter) uint64 {
		var w uint64
		for j, m := range slots {
			mark := l.ccc[m] != 0
			var may bool
			switch {
			case es != nil && es.wide:
				may = mark // prev -1
			case es != nil && es.composer:
				may = es.composes[m/64]&(1<<(m%64)) != 0 // prev -3
			case es != nil:
				may = false // prev -2
			case prev < 0 || lastCC != 0:
				may = mark
			default:
				may = l.composes[m][prev/64]&(1<<(prev%64)) != 0
			}
			if may {
				w |= fiComposePrev << j
			}
		}
		return w
	}
	for p := 0; p < 128; p++ {
		if l.fastInfo[p] != 0 {
			l.fastInfo[p] |= composeBits(p, l.ccc[p], nil)
		}
	}
	for r, es := range l.extraStarters {
		es.fast = extraInfo(es) | l.triggerBits(r) | composeBits(0, 0, &es)
		l.extraStarters[r] = es
		if o := r - l.block - 128; o >= 0 && o < 128 {
			l.nextStarters[o].fast = es.fast
			l.fastInfo[128+o] = es.fast
		}
	}
	// what fast says of a code point outside the repertoire: the block,
	// the code points after it and U+2000..U+207F (the joiners)
	for o := range l.fastHopeless {
		l.fastHopeless[o] = l.fastInfo[o] == 0 && l.hopeless(string(l.block+rune(o)))
	}
	for u := range l.fastPunct {
		r := 0x2000 + rune(u)
		if _, ok := l.extraStarters[r]; ok {
			l.fastPunct[u] = punctStarter
		} else if l.hopeless(string(r)) {
			l.fastPunct[u] = punctHopeless
		}
	}
	l.fastNoMixOnly = true
	decided := 0
	for _, cr := range l.contexts {
		switch {
		case (cr.kind == ruleNotAfter || cr.kind == ruleOnlyAfter) && decided < fiRules:
			decided++
		case cr.kind == ruleNoMix && runeItems(cr.trigger) && runeItems(cr.contexts...):
			nm := noMix{trigger: string(cr.trigger[0].r)}
			for _, c := range cr.contexts {
				nm.contexts = append(nm.contexts, string(c[0].r))
			}
			l.fastNoMix = append(l.fastNoMix, nm)
		default:
			l.fastNoMixOnly = false
		}
	}
	ascii := composeBits(-1, 0, nil)
	for c := '0'; c <= '9'; c++ {
		l.fastASCII[c] = uint64(kindDigit) | fiAny | l.triggerBits(c) | ascii
	}
	l.fastASCII['-'] = uint64(kindHyph) | fiNonDigit | fiAny | l.triggerBits('-') | ascii
	l.fastStart = fiAny | l.triggerBits(-1) | ascii
	// fastTab numbers the states so that those inside a cluster of two
	// halants or more (gstate.h >= 2) come after the others: the largest
	// state a label visits says whether it may hold three consonants
	// joined by halants (fastTriple), before any search for them.
	dead := len(l.table)
	num := make([]uint32, len(l.table))
	next := uint32(0)
	for pass := 0; pass < 2; pass++ {
		for st, gs := range l.states {
			if (gs.h >= 2) == (pass == 1) {
				num[st] = next
				next++
			}
			if pass == 0 && st == len(l.states)-1 {
				l.fastTriple = next << fastShift
			}
		}
	}
	l.fastTab = make([]uint32, (dead+1)*fastStride)
	l.fastEnds = make([]bool, dead+1)
	l.fastSegTab = make([]uint32, len(l.fastTab))
	for st, row := range l.table {
		for k, t := range row {
			to := uint32(dead)
			if t.code == OK {
				to = num[t.next]
			}
			at := num[st]<<fastShift + uint32(k)
			l.fastTab[at] = to << fastShift
			l.fastSegTab[at] = to << fastShift
			if t.start {
				l.fastSegTab[at] |= 1
			}
		}
		l.fastEnds[num[st]] = l.ends[st] == OK
	}
	for k := 0; k < fastStride; k++ {
		l.fastTab[dead<<fastShift+k] = uint32(dead) << fastShift
		l.fastSegTab[dead<<fastShift+k] = uint32(dead) << fastShift
	}
	if l.fastIsSmall = len(l.fastTab) <= len(l.fastSmall); l.fastIsSmall {
		for i, t := range l.fastTab {
			l.fastSmall[i] = uint16(t)
		}
	}
}

// triggerBits returns the bits of the context rules (fiTrigger, fiTrig1,
// fiTrig2, fiRuleT, fiRuleBad) for the repertoire character (or digit, or
// hyphen) r; r < 0 stands for the start of the label, which only a rule's
// "^" matches (fastStart).
func (l *Language) triggerBits(r rune) uint64 {
	rs := []rune{r}
	if r < 0 {
		rs = nil // matches(it, nil, -1) is true for ^ alone
	}
	p := 0
	if r < 0 {
		p = -1
	}
	var w uint64
	decided := 0
	for _, cr := range l.contexts {
		if (cr.kind == ruleNotAfter || cr.kind == ruleOnlyAfter) && decided < fiRules {
			if p == 0 && l.matches(cr.trigger[0], rs, p) {
				w |= fiRuleT << decided
			}
			found := false
			for _, c := range cr.contexts {
				found = found || l.matches(c[0], rs, p)
			}
			if found == (cr.kind == ruleNotAfter) {
				w |= fiRuleBad << decided
			}
			decided++
			continue
		}
		if p < 0 {
			continue
		}
		switch {
		case len(cr.trigger) == 1 && l.matches(cr.trigger[0], rs, 0):
			w |= fiTrigger
		case len(cr.trigger) > 1 && l.matches(cr.trigger[0], rs, 0):
			w |= fiTrig1
		}
		if len(cr.trigger) > 1 && l.matches(cr.trigger[1], rs, 0) {
			w |= fiTrig2
		}
	}
	return w
}

// extraInfo is the fastInfo word of an extraStarter, but for its trigger
// bits (triggerBits).
func extraInfo(es extraStarter) uint64 {
	w := uint64(es.kind) | fiOutside | fiNonDigit | fiAny
	if es.kind == kind(H) {
		w |= fiHalant
	}
	if es.varStart {
		w |= fiVarStart
	}
	return w
}

// noMix is a no-mix rule of single code points, as UTF-8.
type noMix struct {
	trigger  string
	contexts []string
}

// runeItems reports whether every item of the sequences is one code point.
func runeItems(seqs ...[]item) bool {
	for _, seq := range seqs {
		for _, it := range seq {
			if it.kind != itemRune {
				return false
			}
		}
	}
	return true
}

// mixes reports whether the NFC label s breaks one of the no-mix rules of
// fastNoMix: it holds the trigger and one of the contexts.
func (l *Language) mixes(s string) bool {
	for _, nm := range l.fastNoMix {
		if !strings.Contains(s, nm.trigger) {
			continue
		}
		for _, c := range nm.contexts {
			if strings.Contains(s, c) {
				return true
			}
		}
	}
	return false
}

// fastALabelLength is aLabelLengthOf for fast: the length of the A-label
// of the NFC label s of n code points, nBasic of them ASCII. When every
// other code point has an ordinal (labelOrds), the encoder visits them by value
// without sorting them (blockSets: fast asks only for labels too long for
// safeLen, where comparing each code point with every other, as
// blockLabel does, would cost more); otherwise it asks aLabelLengthOf.
// TestFastALabelLength holds the two to each other.
func (l *Language) fastALabelLength(s string, nBasic, n int) int {
	if n > MaxALabelLength {
		return MaxALabelLength + n
	}
	var bs blockSets
	for i, p := 0, 0; i < len(s); p++ {
		if s[i] < utf8.RuneSelf {
			bs.add(p, 0)
			i++
			continue
		}
		r, size := decodeValid(s, i)
		ord := uint8(0)
		if o := uint(r - l.block); o < uint(len(l.labelOrds.ord)) {
			ord = l.labelOrds.ord[o]
		}
		if ord == 0 {
			return aLabelLengthOf(s, nBasic, n)
		}
		bs.add(p, rune(ord))
		i += size
	}
	var ins punyInserts
	k := bs.inserts(&ins, l.labelOrds.base)
	l.labelOrds.values(ins[:k])
	return encodeInserts(nil, prefixLen(nBasic), nBasic, ins[:k])
}
