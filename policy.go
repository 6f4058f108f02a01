package akshara

import "strings"

// Policy is a language's policy as its file states it: the classes and
// their members, the refused code points with their rule codes, the
// restriction rules, the variant table and the examples, each with its
// reference in the source document. It is for tools that show or export the
// policy (the policy pages, the RFC 7940 export); the engine itself runs on
// the compiled tables. The returned value is a copy the caller may keep.
type Policy struct {
	Tag, Name, Native, Script, Source string
	Digest                            string // SHA-256 of the language file, hex: the data's version
	K                                 int
	KRef                              Ref
	CcTLD                             string
	CcTLDRef                          Ref
	Classes                           []PolicyClass
	NuktaAfter                        []PolicyChar // letters the nukta may follow
	NuktaRef                          Ref
	SignPairs                         []string // two-sign combinations allowed, such as "BD"
	Refused                           []PolicyRefusal
	Variants                          [][]string
	VariantsRef                       Ref
	NullVariants                      []rune // code points a variant may drop (RFC 7940 null variants)
	NullVariantsRef                   Ref
	VariantLimit                      string // what VARIANT_LIMIT counts: "aksharas" or "labels"
	VariantLimitMax                   int
	VariantLimitRef                   Ref
	VowelConjuncts                    []string // permitted vowel + halant + consonant + matra sequences
	VowelConjunctRef                  Ref
	Rules                             []PolicyRule
	Examples                          []Example
	Grammar                           string // "syllable" (the generic grammar) or "alphabet" (letters with one mark)
	GrammarRef                        Ref
	RTL                               bool // "direction rtl": the Bidi rule of RFC 5893 applies
	DirectionRef                      Ref
	ClassWords                        map[Class]string // "class-word": how messages name a class
}

// PolicyClass is one class of the repertoire.
type PolicyClass struct {
	Class Class
	Ref   Ref
	Chars []PolicyChar
}

// PolicyChar is a code point, or a range Lo..Hi, with the name the file
// gives it (the Unicode name; for a range, "FIRST..LAST").
type PolicyChar struct {
	Lo, Hi rune
	Name   string
}

// PolicyRefusal is a list of code points refused with one rule code.
type PolicyRefusal struct {
	Code  Code
	Ref   Ref
	Chars []PolicyChar
}

// PolicyRule is one context rule (languages/README.md): Kind is "only-in",
// "not-after", "only-after" or "no-mix"; Text is the rule as written in the file,
// "TRIGGER : CONTEXT | CONTEXT"; Trigger and Contexts are its two sides.
type PolicyRule struct {
	Kind     string
	Code     Code
	Ref      Ref
	Text     string
	Trigger  string
	Contexts []string
}

func policyChars(ms []member) []PolicyChar {
	out := make([]PolicyChar, len(ms))
	for i, m := range ms {
		out[i] = PolicyChar{Lo: m.lo, Hi: m.hi, Name: m.name}
	}
	return out
}

// Policy returns the language's policy as its file states it.
func (l *Language) Policy() *Policy {
	sp := l.spec
	p := &Policy{
		Tag: l.Tag, Name: l.Name, Native: l.Native, Script: l.Script, Source: l.Source, Digest: sp.digest,
		K: sp.k, KRef: sp.kRef, CcTLD: sp.cctld, CcTLDRef: sp.cctldRef,
		NuktaAfter: policyChars(sp.nuktaAfter), NuktaRef: sp.nuktaRef,
		SignPairs:    append([]string(nil), sp.signPairs...),
		Variants:     l.VariantRows(),
		VariantsRef:  sp.variantsRef,
		NullVariants: l.NullVariants(), NullVariantsRef: sp.nullRef, VariantLimitRef: sp.varLimitRef,
		VowelConjuncts: append([]string(nil), sp.vowelConjuncts...), VowelConjunctRef: sp.vowelConjunctRef,
		Examples: l.Examples(),
		Grammar:  "syllable", GrammarRef: sp.grammarRef, RTL: sp.rtl, DirectionRef: sp.directionRef,
	}
	if l.Alphabet {
		p.Grammar = "alphabet"
	}
	p.VariantLimit, p.VariantLimitMax = l.VariantLimit()
	if len(sp.classWords) > 0 {
		p.ClassWords = map[Class]string{}
		for c, w := range sp.classWords {
			p.ClassWords[c] = w
		}
	}
	for _, c := range sp.classes {
		p.Classes = append(p.Classes, PolicyClass{Class: c.class, Ref: c.ref, Chars: policyChars(c.members)})
	}
	for _, r := range sp.refuse {
		p.Refused = append(p.Refused, PolicyRefusal{Code: r.code, Ref: r.ref, Chars: policyChars(r.members)})
	}
	kinds := map[ruleKind]string{}
	for name, k := range ruleKindNames {
		kinds[k] = name
	}
	for _, cr := range sp.contexts {
		lhs, rhs, _ := strings.Cut(cr.text, ":")
		pr := PolicyRule{Kind: kinds[cr.kind], Code: cr.code, Ref: cr.ref, Text: strings.TrimSpace(cr.text), Trigger: strings.TrimSpace(lhs)}
		for _, c := range strings.Split(rhs, "|") {
			pr.Contexts = append(pr.Contexts, strings.TrimSpace(c))
		}
		p.Rules = append(p.Rules, pr)
	}
	return p
}
