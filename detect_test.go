package akshara

import (
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		label     string
		with      string // languages that must accept it
		without   string // languages that must not
		errLang   string // for an invalid label: the script whose most permissive language diagnoses it
		allOrNone string // "all": every language; "none": no language
	}{
		{"किताब", "hi sd-Deva mr", "", "", ""},
		{"चाँद", "hi", "sd-Deva", "", ""},            // chandrabindu: not Sindhi
		{"ॻारो", "sd-Deva", "hi mr", "", ""},         // implosive: Sindhi
		{"xn--11b4aya5ed", "hi sd-Deva", "", "", ""}, // A-label
		{"ভারত", "bn mni", "as hi", "", ""},          // Bengali script: Bangla and Manipuri; not Assamese (র is not in its table)
		{"ভাৰত", "as", "bn mni", "", ""},
		{"بھارت", "ur sd ks", "hi", "", ""}, // the Urdu ccTLD: letters Sindhi and Kashmiri share
		{"ڀارت", "sd", "ur ks", "", ""},     // ڀ: Sindhi only
		{"ᱥᱟᱱᱛᱟᱲᱤ", "sat", "hi", "", ""},
		{"ꯃꯤꯇꯩ", "mni-Mtei", "mni", "", ""},
		{"க்அ", "", "", "Taml", "none"}, // invalid everywhere
		{"क्अब", "", "", "Deva", "none"},
		{"123", "", "ur sd ks", "", ""}, // digits only: every left-to-right language; the Bidi rule refuses it in Arabic script
	}
	for _, tt := range tests {
		d, err := Detect(tt.label)
		if err != nil {
			t.Fatal(err)
		}
		has := map[string]bool{}
		for _, l := range d.Langs {
			has[l] = true
		}
		for _, l := range strings.Fields(tt.with) {
			if !has[l] {
				t.Errorf("%s: %s does not accept it (langs %v)", tt.label, l, d.Langs)
			}
		}
		for _, l := range strings.Fields(tt.without) {
			if has[l] {
				t.Errorf("%s: %s accepts it (langs %v)", tt.label, l, d.Langs)
			}
		}
		switch tt.allOrNone {
		case "all":
			if len(d.Langs) != len(Tags()) {
				t.Errorf("%s: accepted by %d of %d languages", tt.label, len(d.Langs), len(Tags()))
			}
		case "none":
			if len(d.Langs) != 0 {
				t.Errorf("%s: accepted by %v", tt.label, d.Langs)
			}
		}
		if d.Valid() != (len(d.Langs) > 0) || d.Result.Valid != d.Valid() {
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
