package akshara

import (
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		label, langs, errLang string
	}{
		{"किताब", "hi sd-Deva", ""},            // both Devanagari languages accept it
		{"चाँद", "hi", ""},                     // chandrabindu: not Sindhi
		{"ॻारो", "sd-Deva", ""},                // implosive: Sindhi only
		{"xn--11b4aya5ed", "hi sd-Deva", ""},   // A-label
		{"क्अब", "", "Deva"},                   // invalid everywhere: errors under the most permissive
		{"123", strings.Join(Tags(), " "), ""}, // digits only: every language
	}
	for _, tt := range tests {
		d, err := Detect(tt.label)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(d.Langs, " "); got != tt.langs {
			t.Errorf("%s: langs %q, want %q", tt.label, got, tt.langs)
		}
		if d.Valid() != (tt.langs != "") || d.Result.Valid != d.Valid() {
			t.Errorf("%s: valid %v, result valid %v", tt.label, d.Valid(), d.Result.Valid)
		}
		if tt.errLang != "" {
			// the most permissive language of the script: largest repertoire, then k
			var want *Language
			langs, _ := Languages()
			for _, l := range langs {
				if l.Script == tt.errLang && (want == nil || len(l.Repertoire()) > len(want.Repertoire()) ||
					(len(l.Repertoire()) == len(want.Repertoire()) && l.K > want.K)) {
					want = l
				}
			}
			if d.Result.Lang != want.Tag {
				t.Errorf("%s: errors under %s, want %s", tt.label, d.Result.Lang, want.Tag)
			}
		}
		got, _, _ := DetectValid(nil, tt.label)
		if len(got) != len(d.Langs) {
			t.Errorf("%s: DetectValid found %d languages, Detect %d", tt.label, len(got), len(d.Langs))
		}
	}
}
