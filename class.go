package akshara

// Class is a character class of the generic grammar (docs/policy.md §3).
type Class uint8

// The grammar's classes. A language that lacks a class has no code point in it.
const (
	NoClass Class = iota // not in the language's repertoire
	C                    // consonant
	V                    // independent vowel
	M                    // matra (dependent vowel sign)
	D                    // anusvara, bindi, tippi
	B                    // chandrabindu
	X                    // visarga, aytham
	H                    // halant, virama
	N                    // nukta
	Y                    // avagraha
	A                    // addak (Gurmukhi U+0A71)
	L                    // chillu (Malayalam)
	Z                    // khanda ta (U+09CE)
	S                    // modifier letter apostrophe U+02BC
	Digit                // ASCII digit 0-9
	Hyphen               // ASCII hyphen-minus
	numClasses
)

var classNames = [numClasses]string{
	NoClass: "-", C: "C", V: "V", M: "M", D: "D", B: "B", X: "X", H: "H", N: "N",
	Y: "Y", A: "A", L: "L", Z: "Z", S: "S", Digit: "digit", Hyphen: "hyphen",
}

// classWords name a class in messages.
var classWords = [numClasses]string{
	NoClass: "a character outside the language table", C: "a consonant", V: "an independent vowel",
	M: "a vowel sign (matra)", D: "an anusvara", B: "a chandrabindu", X: "a visarga",
	H: "a halant (virama)", N: "a nukta", Y: "an avagraha", A: "an addak", L: "a chillu",
	Z: "a khanda ta", S: "a modifier letter apostrophe", Digit: "a digit", Hyphen: "a hyphen",
}

func (c Class) String() string {
	if c < numClasses {
		return classNames[c]
	}
	return "?"
}

// letterClasses are the classes a language file may declare.
var letterClasses = []Class{C, V, M, D, B, X, H, N, Y, A, L, Z, S}

func parseClass(s string) (Class, bool) {
	for _, c := range letterClasses {
		if classNames[c] == s {
			return c, true
		}
	}
	return NoClass, false
}
