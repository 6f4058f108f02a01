package akshara

import "fmt"

// Code is a stable rule code (docs/policy.md §4). Codes are an API: the library,
// the CLI's JSON and the documentation use exactly these names, and a code is
// never renamed. New codes may be added.
type Code uint8

// The rule codes. Their String form is the stable name.
const (
	OK                  Code = iota // no error; never reported
	Empty                           // EMPTY: empty label
	InvalidUTF8                     // INVALID_UTF8: input is not UTF-8
	BadALabel                       // BAD_ALABEL: xn-- label that does not decode, is not NFC, or does not round-trip
	TooLong                         // TOO_LONG: A-label longer than 63 octets
	TooShort                        // TOO_SHORT: fewer code points than the minimum (3)
	DigitsOnly                      // DIGITS_ONLY: a label of only 1 or 2 ASCII digits
	HyphenStart                     // HYPHEN_START: label begins with a hyphen
	HyphenEnd                       // HYPHEN_END: label ends with a hyphen
	HyphenDouble                    // HYPHEN_DOUBLE: two consecutive hyphens
	Joiner                          // JOINER: ZWJ U+200D or ZWNJ U+200C
	MixedScript                     // MIXED_SCRIPT: a letter, mark or digit of another script
	NativeDigit                     // NATIVE_DIGIT: the script's own digits
	Punctuation                     // PUNCTUATION: danda and other punctuation
	Symbol                          // SYMBOL: abbreviation sign, OM, currency and other signs
	Rare                            // RARE: rare or obsolete letters
	StressMark                      // STRESS_MARK: Vedic and stress signs
	NotInRepertoire                 // NOT_IN_REPERTOIRE: any other code point outside the language table
	Syllable                        // SYLLABLE: the sequence does not parse under the grammar
	ClusterTooLong                  // CLUSTER_TOO_LONG: more than k+1 consonants joined by halants
	IdenticalConsonants             // IDENTICAL_CONSONANTS: three identical consonants joined by halants
	HalantFollower                  // HALANT_FOLLOWER: halant followed by other than hyphen, digit, avagraha or end
	NuktaBase                       // NUKTA_BASE: nukta after a letter the language does not allow it on
	SignCombination                 // SIGN_COMBINATION: two signs (D, B, X, S) the language does not allow together
	Conjunct                        // CONJUNCT: a language-specific cluster restriction
	Addak                           // ADDAK: Punjabi addak placement
	TippiBindi                      // TIPPI_BINDI: Punjabi tippi where bindi belongs or the reverse
	VariantLimit                    // VARIANT_LIMIT: more variants than the language's variant-limit allows
	Bidi                            // BIDI: a right-to-left label that breaks the Bidi rule of RFC 5893 (a digit first)
	VowelMark                       // VOWEL_MARK: an Arabic vowel mark (haraka) where the language refuses it
	LetterMix                       // LETTER_MIX: two letters the language keeps out of one label (homographs)
	numCodes
)

var codeNames = [numCodes]string{
	OK: "OK", Empty: "EMPTY", InvalidUTF8: "INVALID_UTF8", BadALabel: "BAD_ALABEL",
	TooLong: "TOO_LONG", TooShort: "TOO_SHORT", DigitsOnly: "DIGITS_ONLY",
	HyphenStart: "HYPHEN_START", HyphenEnd: "HYPHEN_END", HyphenDouble: "HYPHEN_DOUBLE",
	Joiner: "JOINER", MixedScript: "MIXED_SCRIPT", NativeDigit: "NATIVE_DIGIT",
	Punctuation: "PUNCTUATION", Symbol: "SYMBOL", Rare: "RARE", StressMark: "STRESS_MARK",
	NotInRepertoire: "NOT_IN_REPERTOIRE", Syllable: "SYLLABLE", ClusterTooLong: "CLUSTER_TOO_LONG",
	IdenticalConsonants: "IDENTICAL_CONSONANTS", HalantFollower: "HALANT_FOLLOWER",
	NuktaBase: "NUKTA_BASE", SignCombination: "SIGN_COMBINATION", Conjunct: "CONJUNCT",
	Addak: "ADDAK", TippiBindi: "TIPPI_BINDI", VariantLimit: "VARIANT_LIMIT",
	Bidi: "BIDI", VowelMark: "VOWEL_MARK", LetterMix: "LETTER_MIX",
}

// codeSummaries explain each rule in words a registrant can read.
var codeSummaries = [numCodes]string{
	OK:                  "no error",
	Empty:               "the label is empty",
	InvalidUTF8:         "the input is not valid UTF-8 text",
	BadALabel:           "the xn-- label is not a valid A-label",
	TooLong:             "the label is too long: its A-label (xn--…) must be at most 63 characters",
	TooShort:            "the label is too short",
	DigitsOnly:          "a label of only one or two digits is not allowed",
	HyphenStart:         "a label cannot begin with a hyphen",
	HyphenEnd:           "a label cannot end with a hyphen",
	HyphenDouble:        "a label cannot contain two hyphens in a row",
	Joiner:              "zero width joiner and non-joiner are not allowed",
	MixedScript:         "a label cannot mix scripts",
	NativeDigit:         "digits must be the ASCII digits 0-9, not the script's own digits",
	Punctuation:         "punctuation is not allowed",
	Symbol:              "symbols and abbreviation signs are not allowed",
	Rare:                "rare and obsolete letters are not allowed",
	StressMark:          "Vedic and stress signs are not allowed",
	NotInRepertoire:     "the character is not in the language's table",
	Syllable:            "the characters do not form a valid syllable (akshara)",
	ClusterTooLong:      "too many consonants joined by halants in one syllable",
	IdenticalConsonants: "three identical consonants cannot be joined by halants",
	HalantFollower:      "a halant may be followed only by a hyphen, a digit, an avagraha or the end of the label",
	NuktaBase:           "the nukta is not allowed on this letter",
	SignCombination:     "these two signs cannot be combined",
	Conjunct:            "this conjunct is not allowed in the language",
	Addak:               "the addak is misplaced",
	TippiBindi:          "tippi and bindi are used in the wrong place",
	VariantLimit:        "the label has more variants than the language allows (more than three syllables with variants, or in the Arabic-script languages more than 1,024 variant labels)",
	Bidi:                "a right-to-left label must begin with a letter and follow the Bidi rule for domain names",
	VowelMark:           "vowel marks (harakat) are not allowed in this language's labels",
	LetterMix:           "these two letters cannot be used in the same label",
}

// Codes returns every rule code, in a stable order (OK excluded).
func Codes() []Code {
	cs := make([]Code, 0, numCodes-1)
	for c := Empty; c < numCodes; c++ {
		cs = append(cs, c)
	}
	return cs
}

// String returns the stable name of the code, such as "SYLLABLE".
func (c Code) String() string {
	if c < numCodes {
		return codeNames[c]
	}
	return fmt.Sprintf("Code(%d)", uint8(c))
}

// Summary explains the rule in one sentence fit to show a registrant.
func (c Code) Summary() string {
	if c < numCodes {
		return codeSummaries[c]
	}
	return ""
}

// MarshalText encodes the code as its stable name.
func (c Code) MarshalText() ([]byte, error) {
	if c >= numCodes {
		return nil, fmt.Errorf("akshara: invalid code %d", uint8(c))
	}
	return []byte(codeNames[c]), nil
}

// UnmarshalText decodes a stable name.
func (c *Code) UnmarshalText(b []byte) error {
	code, ok := ParseCode(string(b))
	if !ok {
		return fmt.Errorf("akshara: unknown rule code %q", b)
	}
	*c = code
	return nil
}

// ParseCode returns the code with the given stable name.
func ParseCode(name string) (Code, bool) {
	for c := OK; c < numCodes; c++ {
		if codeNames[c] == name {
			return c, true
		}
	}
	return OK, false
}
