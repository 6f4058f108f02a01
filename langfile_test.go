package akshara

import (
	"strings"
	"testing"
)

const header = "language x-t\nname T\nscript Deva\nk 2\n"

// TestLanguageFileErrors: a language file that breaks the policy's
// invariants is refused with the line that breaks them.
func TestLanguageFileErrors(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"no language", "name T\nscript Deva\nk 1\nclass C\n  U+0915\n", `missing "language"`},
		{"no k", "language x\nname T\nscript Deva\nclass C\n  U+0915\n", `missing "k"`},
		{"bad k", "language x\nname T\nscript Deva\nk 12\n", "k: want a number"},
		{"unknown script", "language x\nname T\nscript Xxxx\nk 1\nclass C\n  U+0915\n", "unknown script"},
		{"unknown class", header + "class Q\n  U+0915\n", "unknown class"},
		{"unknown directive", header + "colour blue\n", "unknown directive"},
		{"member outside section", header + "  U+0915\n", "outside a section"},
		{"not PVALID", header + "class C\n  U+0958\n", "not PVALID"},
		{"other script", header + "class C\n  U+0995\n", "not of script Deva"},
		{"glyph mismatch", header + "class C\n  U+0915  ख  DEVANAGARI LETTER KA\n", "is not U+0915"},
		{"two classes", header + "class C\n  U+0915\nclass V\n  U+0915\n", "class C and class V"},
		{"nukta after non-letter", header + "class C\n  U+0915\nclass H\n  U+094D\nnukta-after\n  U+094D\n", "not a consonant, vowel or vowel sign"},
		{"refused and in repertoire", header + "class C\n  U+0915\nrefuse RARE x\n  U+0915\n", "both in the repertoire and refused"},
		{"unknown refuse code", header + "refuse NOPE x\n", "unknown rule code"},
		{"variant outside repertoire", header + "class C\n  U+0915\nvariants\n  क = ख | 0915 = 0916\n", "not in the repertoire"},
		{"variant text and code points disagree", header + "class C\n  U+0915\n  U+0916\nvariants\n  क = क | 0915 = 0916\n", "code points spell"},
		{"bad example", header + "class C\n  U+0915\nexample maybe क\n", "kind \"maybe\""},
		{"invalid example without codes", header + "class C\n  U+0915\nexample invalid क\n", "needs its rule codes"},
		{"range in class", header + "class C\n  U+0915..U+0916\n", "range is not allowed"},
		{"bad pair", header + "sign-pairs DX\n", "want BD or BX"},
		{"not UTF-8", header + "name \xff\n", "not UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadLanguage("t.lang", []byte(tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
