package akshara

import (
	"strings"
	"testing"

	"golang.org/x/net/idna"
)

func TestInputForms(t *testing.T) {
	hi := mustLang(t, "hi")
	tests := []struct {
		name, in   string
		want       string // errors
		ulabel     string
		alabel     string
		normalized bool
	}{
		{"U-label", "किताब", "", "किताब", "xn--11b4aya5ed", false},
		{"A-label", "xn--11b4aya5ed", "", "किताब", "xn--11b4aya5ed", false},
		{"A-label upper case", "XN--11B4AYA5ED", "", "किताब", "xn--11b4aya5ed", false},
		{"A-label mixed case", "Xn--11b4Aya5ed", "", "किताब", "xn--11b4aya5ed", false},
		{"ccTLD", "xn--h2brj9c", "", "भारत", "xn--h2brj9c", false},
		{"A-label of an invalid label", "xn--h2brj9c6k", "PUNCTUATION@4", "भारत।", "", false},
		{"empty A-label", "xn--", "BAD_ALABEL@0", "", "", false},
		{"bad Punycode", "xn--a-", "BAD_ALABEL@0", "", "", false},
		{"A-label decoding to ASCII", "xn--abc-", "BAD_ALABEL@0", "", "", false},
		{"non-NFC A-label", "xn--11b1l", "BAD_ALABEL@0", "", "", false}, // क + ़ + ़? see below
		{"non-ASCII after xn--", "xn--किताब", "BAD_ALABEL@0", "", "", false},
		{"precomposed nukta letter is normalized", "\u0958लम", "", "\u0915\u093Cलम", "xn--11b4cl3b", true},
		{"NFC makes ऱ from र + nukta", "\u0930\u093Cहा", "NOT_IN_REPERTOIRE@0", "\u0931हा", "", true},
		{"NFC makes ऩ from न + nukta", "\u0928\u093Cया", "NOT_IN_REPERTOIRE@0", "\u0929या", "", true},
		{"empty", "", "EMPTY@0", "", "", false},
		{"invalid UTF-8", "क\xffख", "INVALID_UTF8@1", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "non-NFC A-label" {
				// Build an A-label whose decoding is not NFC: क + U+093C
				// written as U+0958 cannot be encoded by NFC-normalizing
				// tools, so encode the raw code points.
				a, err := idna.Punycode.ToASCII("\u0958\u0932\u092E")
				if err != nil {
					t.Fatal(err)
				}
				tt.in = a
			}
			res := hi.Check(tt.in)
			if got := strings.Join(codesOf(res), " "); got != tt.want {
				t.Errorf("errors [%s], want [%s]; %+v", got, tt.want, res)
			}
			if res.ULabel != tt.ulabel || res.ALabel != tt.alabel || res.Normalized != tt.normalized {
				t.Errorf("ulabel %q alabel %q normalized %v, want %q %q %v", res.ULabel, res.ALabel, res.Normalized, tt.ulabel, tt.alabel, tt.normalized)
			}
			if hi.Valid(tt.in) != res.Valid {
				t.Errorf("Valid disagrees with Check")
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	hi := mustLang(t, "hi")
	runVectors(t, hi, []vector{
		{"क\u200Dष", "JOINER@1"},
		{"क\u200Cष", "JOINER@1"},
		{"कabc", "MIXED_SCRIPT@1"},
		{"Aकर", "MIXED_SCRIPT@0"},
		{"करর", "MIXED_SCRIPT@2"}, // Bengali RA
		{"क১২", "MIXED_SCRIPT@1"}, // Bengali digits
		{"क२३", "NATIVE_DIGIT@1"},
		{"भारत।", "PUNCTUATION@4"},
		{"कर॥", "PUNCTUATION@2"},
		{"क.ख", "PUNCTUATION@1"},
		{"क_ख", "PUNCTUATION@1"},
		{"ॐकार", "SYMBOL@0"},
		{"क॰ख", "SYMBOL@1"},
		{"क$ख", "SYMBOL@1"},
		{"ॠषि", "RARE@0"},
		{"कॄप", "RARE@1"},
		{"ऌकर", "RARE@0"},
		{"क॑रम", "STRESS_MARK@1"},
		{"क\u1CD0रम", "STRESS_MARK@1"},
		{"ळकर", "NOT_IN_REPERTOIRE@0"},
		{"ॻकर", "NOT_IN_REPERTOIRE@0"},
		{"क खर", "NOT_IN_REPERTOIRE@1"},
		{"कʼर", "NOT_IN_REPERTOIRE@1"},
		{"क\u00ADर", "NOT_IN_REPERTOIRE@1"},
		// independent errors are all reported; a run of one rule is one error
		{"aक।ळ", "MIXED_SCRIPT@0 PUNCTUATION@2 NOT_IN_REPERTOIRE@3"},
		{"कabcर", "MIXED_SCRIPT@1"},
		{"िक्अ।", "SYLLABLE@0 HALANT_FOLLOWER@3 PUNCTUATION@4"},
	})
}

func TestTooLong(t *testing.T) {
	hi := mustLang(t, "hi")
	long := strings.Repeat("क", 60)
	res := hi.Check(long)
	if got := strings.Join(codesOf(res), " "); got != "TOO_LONG@0" {
		t.Fatalf("%d ka: %s", 60, got)
	}
	// the longest valid run of one letter: find it with x/net/idna
	for n := 1; n < 64; n++ {
		s := strings.Repeat("क", n)
		a, _ := idna.Punycode.ToASCII(s)
		if got, want := hi.Valid(s), n >= 3 && len(a) <= 63; got != want {
			t.Errorf("%d ka (A-label %d octets): valid %v, want %v", n, len(a), got, want)
		}
	}
	ascii := strings.Repeat("1", 64)
	if got := strings.Join(codesOf(hi.Check(ascii)), " "); got != "TOO_LONG@0" {
		t.Errorf("64 digits: %s", got)
	}
	alabel, _ := idna.Punycode.ToASCII(strings.Repeat("कि", 30))
	if got := strings.Join(codesOf(hi.Check(alabel)), " "); !strings.Contains(got, "TOO_LONG@0") {
		t.Errorf("%d-octet A-label: %s", len(alabel), got)
	}
}

func TestMinLengthOption(t *testing.T) {
	hi := mustLang(t, "hi")
	if r := hi.CheckOptions("कर", Options{MinLength: 2}); !r.Valid {
		t.Errorf("कर with MinLength 2: %v", codesOf(r))
	}
	if r := hi.CheckOptions("करता", Options{MinLength: 5}); r.Valid {
		t.Errorf("करता with MinLength 5 is valid")
	}
}

func TestSyllables(t *testing.T) {
	hi := mustLang(t, "hi")
	for _, tt := range []struct{ in, want string }{
		{"यन्त्रकार", "य न्त्र का र"},
		{"हिंदी", "हिं दी"},
		{"क्-क", "क् क"},
		{"कर2024-भारत", "क र 2024 भा र त"},
		{"आँख", "आँ ख"},
		{"क्ऽक", "क्ऽ क"},
		{"िक", "ि क"},
	} {
		if got := strings.Join(hi.Check(tt.in).Syllables, " "); got != tt.want {
			t.Errorf("%s: syllables %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLookup(t *testing.T) {
	if _, err := Lookup("xx"); err == nil || !strings.Contains(err.Error(), "unknown language") {
		t.Errorf("Lookup(xx): %v", err)
	}
	for _, tag := range []string{"hi", "HI", "sd-deva", "sd-Deva"} {
		if _, err := Lookup(tag); err != nil {
			t.Errorf("Lookup(%s): %v", tag, err)
		}
	}
	if r, err := Check("किताब", "hi"); err != nil || !r.Valid {
		t.Errorf("Check: %v %v", r, err)
	}
}

func TestBrief(t *testing.T) {
	hi := mustLang(t, "hi")
	for _, label := range []string{"किताब", "क्अब", "aक।ळ", "-्", "कुत्त्ता"} {
		full, brief := hi.Check(label), hi.CheckOptions(label, Options{Brief: true})
		if strings.Join(codesOf(full), " ") != strings.Join(codesOf(brief), " ") || full.Valid != brief.Valid {
			t.Errorf("%s: brief %v, full %v", label, codesOf(brief), codesOf(full))
		}
		for _, e := range brief.Errors {
			if e.Message != "" {
				t.Errorf("%s: brief has a message", label)
			}
		}
		if brief.ALabel != "" || len(brief.Syllables) != 0 {
			t.Errorf("%s: brief has A-label or syllables", label)
		}
	}
}
