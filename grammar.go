package akshara

// The generic grammar of docs/policy.md §3 (policy v1.8 §5.2.d):
//
//	consonant-syllable = *k(C[N]H) C[N] [H|D|B|X|S|BD|BX|M[D|B|X|S|BD|BX]]
//	                   / [CH]Z
//	                   / L[HC[D|H|M[D]]]
//	                   / AC[D|X|M[D|X]]
//	vowel-syllable     = V[D|B|X|S|BD|BX|N|HCM[D|B|X|S|BD|BX]]
//	syllable           = consonant-syllable [Y] / vowel-syllable [Y]
//	label              = (syllable / digit) *([dash] (syllable / digit))
//
// step is that grammar as a state machine over character kinds, written once
// for every language; a language's data sets its parameters (k, the nukta
// bases, the sign pairs it allows, whether a vowel may carry HCM). compile
// explores the reachable states into a transition table, so the verdict-only
// path and the diagnostics follow the same definition. Every refusal carries
// the rule code that names it.
//
// Two extensions are parameters too. A language whose nukta-after lists
// vowel signs (Santali: ा ो, ICANN's Devanagari LGR classes M1) reads
// C[N] M [N] where the consonant syllable has M. The alphabet family
// (grammar alphabet, alphabet.go) is this grammar with only C and M and
// k = 0: a letter and at most one mark.

// kind is a class refined by the language's restrictions: a consonant or
// vowel that accepts a nukta is a kind of its own.
type kind uint8

const (
	kindCn    = kind(numClasses)     // consonant that accepts a nukta
	kindVn    = kind(numClasses + 1) // vowel that accepts a nukta
	kindMn    = kind(numClasses + 2) // vowel sign that accepts a nukta (Santali)
	numKinds  = int(numClasses) + 3
	kindNone  = kind(NoClass)
	kindDigit = kind(Digit)
	kindHyph  = kind(Hyphen)
)

func (k kind) class() Class {
	switch k {
	case kindCn:
		return C
	case kindVn:
		return V
	case kindMn:
		return M
	}
	return Class(k)
}

func (k kind) nuktaBase() bool { return k == kindCn || k == kindVn || k == kindMn }

type node uint8

const (
	nStart   node = iota // nothing read yet
	nDash                // after a hyphen
	nDigit               // after a digit
	nRecover             // after an error: dependent signs are absorbed until a new syllable
	nC                   // consonant (h = halants before it in the cluster)
	nCH                  // consonant + halant (h = halants in the cluster so far)
	nCM                  // consonant syllable + matra
	nSign                // after one sign (D, B, X or S)
	nSign2               // after a permitted pair of signs (BD or BX)
	nY                   // after avagraha
	nZ                   // khanda ta
	nL                   // chillu
	nLH                  // chillu + halant
	nLHC                 // chillu + halant + consonant
	nLHCM                // chillu + halant + consonant + matra
	nLHCH                // chillu + halant + consonant + halant
	nA                   // addak
	nAC                  // addak + consonant
	nACM                 // addak + consonant + matra
	nV                   // independent vowel
	nVN                  // vowel + nukta
	nVH                  // vowel + halant
	nVHC                 // vowel + halant + consonant
	nVHCM                // vowel + halant + consonant + matra
)

// signSet is a set of sign classes (bit per Class).
type signSet uint16

func signs(cs ...Class) signSet {
	var s signSet
	for _, c := range cs {
		s |= 1 << c
	}
	return s
}

func (s signSet) has(c Class) bool { return s&(1<<c) != 0 }

var (
	allSigns = signs(D, B, X, S) // after C, CM, V, VHCM
	dxSigns  = signs(D, X)       // after AC, ACM
	dSigns   = signs(D)          // after LHC, LHCM
)

// gstate is a grammar state. It is small and comparable, so compile can
// intern the reachable ones.
type gstate struct {
	n     node
	h     uint8   // halants in the current cluster
	base  bool    // the letter just read accepts a nukta
	nukta bool    // the consonant has its nukta
	sign  Class   // nSign, nSign2: the sign just read
	allow signSet // nCM, nVHCM, nACM, nLHCM, nSign: signs the syllable may still take
}

// grammarParams are the language's parameters of the generic grammar.
type grammarParams struct {
	k             int
	pairs         signSet // second signs allowed after B (D and/or X): BD, BX
	vowelConjunct bool    // V H C M exists (Bangla, Assamese)
	matraNukta    bool    // a vowel sign may take the nukta (Santali: ा़ ो़)
}

// move is one transition: the next state, the rule broken (OK if none),
// and whether the character starts a new syllable.
type move struct {
	next  gstate
	code  Code
	start bool
}

func ok(n gstate) move              { return move{next: n} }
func fail(code Code, n gstate) move { return move{next: n, code: code} }

// step reads one character of kind k in state s.
func (g *grammarParams) step(s gstate, k kind) move {
	cl := k.class()
	switch s.n {
	case nC:
		switch cl {
		case N:
			next := gstate{n: nC, h: s.h, nukta: true}
			if s.nukta {
				return fail(Syllable, next)
			}
			if !s.base {
				return fail(NuktaBase, next)
			}
			return ok(next)
		case H:
			h := s.h + 1
			if int(h) > g.k+1 {
				h = uint8(g.k + 1)
			}
			return ok(gstate{n: nCH, h: h})
		case M:
			return ok(gstate{n: nCM, allow: allSigns, base: k.nuktaBase()})
		case D, B, X, S:
			return g.sign(cl, allSigns)
		case Y:
			return ok(gstate{n: nY})
		}
	case nCH:
		switch cl {
		case C:
			if int(s.h) > g.k {
				return fail(ClusterTooLong, gstate{n: nC, h: s.h, base: k.nuktaBase()})
			}
			return ok(gstate{n: nC, h: s.h, base: k.nuktaBase()})
		case Z:
			if s.h == 1 {
				return ok(gstate{n: nZ})
			}
			return fail(Syllable, gstate{n: nRecover})
		case Y:
			return ok(gstate{n: nY})
		case Digit, Hyphen:
			return g.begin(s, k)
		}
		return g.recoverAt(HalantFollower, k)
	case nCM, nVHCM, nACM, nLHCM:
		switch cl {
		case N:
			// Only a language whose nukta may follow a vowel sign
			// (nukta-after lists one) reads M N; elsewhere N after M
			// stays a SYLLABLE error.
			if g.matraNukta && s.n == nCM {
				next := gstate{n: nCM, allow: s.allow, nukta: true}
				if s.nukta {
					return g.recoverAt(Syllable, k)
				}
				if !s.base {
					return fail(NuktaBase, next)
				}
				return ok(next)
			}
		case D, B, X, S:
			if s.allow.has(cl) {
				return g.sign(cl, s.allow)
			}
		case Y:
			return ok(gstate{n: nY})
		}
	case nSign:
		switch {
		case s.sign == B && (cl == D || cl == X) && g.pairs.has(cl):
			return ok(gstate{n: nSign2, sign: cl})
		case cl == D || cl == B || cl == X || cl == S:
			return g.recoverAt(SignCombination, k)
		case cl == Y:
			return ok(gstate{n: nY})
		}
	case nSign2:
		switch cl {
		case D, B, X, S:
			return g.recoverAt(SignCombination, k)
		case Y:
			return ok(gstate{n: nY})
		}
	case nZ, nVN:
		if cl == Y {
			return ok(gstate{n: nY})
		}
	case nL:
		switch cl {
		case H:
			return ok(gstate{n: nLH})
		case Y:
			return ok(gstate{n: nY})
		}
	case nLH:
		if cl == C {
			return ok(gstate{n: nLHC, base: k.nuktaBase()})
		}
		return g.recoverAt(Syllable, k)
	case nLHC:
		switch cl {
		case D:
			return g.sign(D, dSigns)
		case H:
			return ok(gstate{n: nLHCH})
		case M:
			return ok(gstate{n: nLHCM, allow: dSigns})
		case Y:
			return ok(gstate{n: nY})
		}
	case nLHCH:
		switch cl {
		case Y:
			return ok(gstate{n: nY})
		case Digit, Hyphen:
			return g.begin(s, k)
		}
		return g.recoverAt(HalantFollower, k)
	case nA:
		if cl == C {
			return ok(gstate{n: nAC, base: k.nuktaBase()})
		}
		return g.recoverAt(Addak, k)
	case nAC:
		switch cl {
		case D, X:
			return g.sign(cl, dxSigns)
		case M:
			return ok(gstate{n: nACM, allow: dxSigns})
		case Y:
			return ok(gstate{n: nY})
		}
	case nV:
		switch cl {
		case D, B, X, S:
			return g.sign(cl, allSigns)
		case N:
			if !s.base {
				return fail(NuktaBase, gstate{n: nVN})
			}
			return ok(gstate{n: nVN})
		case H:
			if g.vowelConjunct {
				return ok(gstate{n: nVH})
			}
		case Y:
			return ok(gstate{n: nY})
		}
	case nVH:
		if cl == C {
			return ok(gstate{n: nVHC})
		}
		return g.recoverAt(Syllable, k)
	case nVHC:
		if cl == M {
			return ok(gstate{n: nVHCM, allow: allSigns})
		}
		return g.recoverAt(Syllable, k)
	}
	return g.begin(s, k)
}

// sign reads a sign D, B, X or S; allow is what the syllable permits.
func (g *grammarParams) sign(cl Class, allow signSet) move {
	if !allow.has(cl) {
		return g.recoverAt(Syllable, kind(cl))
	}
	return ok(gstate{n: nSign, sign: cl})
}

// recoverAt reports code at the current character and resumes: a character
// that can begin a syllable begins one, anything else is absorbed.
func (g *grammarParams) recoverAt(code Code, k kind) move {
	m := g.begin(gstate{n: nRecover}, k)
	m.code = code
	return m
}

// begin reads a character that must start a new unit (syllable, digit or
// hyphen) after state s.
func (g *grammarParams) begin(s gstate, k kind) move {
	switch cl := k.class(); cl {
	case C:
		return move{next: gstate{n: nC, base: k.nuktaBase()}, start: true}
	case V:
		return move{next: gstate{n: nV, base: k.nuktaBase()}, start: true}
	case L:
		return move{next: gstate{n: nL}, start: true}
	case Z:
		return move{next: gstate{n: nZ}, start: true}
	case A:
		// Where an addak may stand is the language's own rule (a not-after
		// rule in the language file); the grammar only says AC...
		return move{next: gstate{n: nA}, start: true}
	case Digit:
		return move{next: gstate{n: nDigit}, start: true}
	case Hyphen:
		switch s.n {
		case nStart:
			return move{next: gstate{n: nDash}, code: HyphenStart, start: true}
		case nDash:
			return move{next: gstate{n: nDash}, code: HyphenDouble, start: true}
		}
		return move{next: gstate{n: nDash}, start: true}
	}
	// A dependent sign (M, D, B, X, H, N, Y, S) cannot begin a syllable.
	if s.n == nRecover {
		return move{next: gstate{n: nRecover}}
	}
	return move{next: gstate{n: nRecover}, code: Syllable, start: true}
}

// endCode is the rule broken when the label ends in state s.
func endCode(s gstate) Code {
	switch s.n {
	case nStart:
		return Empty
	case nDash:
		return HyphenEnd
	case nVH, nVHC, nLH:
		return Syllable
	case nA:
		return Addak
	}
	return OK
}
