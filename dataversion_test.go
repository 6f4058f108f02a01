package akshara

import (
	"regexp"
	"testing"
)

func TestDataVersions(t *testing.T) {
	v := DataVersions()
	if !regexp.MustCompile(`^` + regexp.QuoteMeta(PolicyDataRelease) + `\+[0-9a-f]{12}$`).MatchString(v.Policy) {
		t.Errorf("Policy = %q, want %s+12 hex digits", v.Policy, PolicyDataRelease)
	}
	if v.Unicode != IDNA2008Version || v.NFC == "" {
		t.Errorf("Unicode = %q, NFC = %q", v.Unicode, v.NFC)
	}
	if len(v.Files) != len(Tags())+2 {
		t.Errorf("%d files hashed, want %d languages, the zones file and the homoglyph table", len(v.Files), len(Tags()))
	}
	if DataVersion() != v.Policy {
		t.Errorf("DataVersion() = %q, want %q", DataVersion(), v.Policy)
	}
}

func TestVersionsOf(t *testing.T) {
	base := map[string][]byte{"languages/hi.lang": []byte("a"), "languages/mr.lang": []byte("b")}
	cases := []struct {
		name  string
		files map[string][]byte
		same  bool
	}{
		{"same content", map[string][]byte{"languages/mr.lang": []byte("b"), "languages/hi.lang": []byte("a")}, true},
		{"other directory, same base names", map[string][]byte{"x/hi.lang": []byte("a"), "y/mr.lang": []byte("b")}, true},
		{"one byte changed", map[string][]byte{"languages/hi.lang": []byte("A"), "languages/mr.lang": []byte("b")}, false},
		{"file renamed", map[string][]byte{"languages/hi.lang": []byte("a"), "languages/ne.lang": []byte("b")}, false},
		{"file added", map[string][]byte{"languages/hi.lang": []byte("a"), "languages/mr.lang": []byte("b"), "languages/ne.lang": nil}, false},
		{"contents swapped", map[string][]byte{"languages/hi.lang": []byte("b"), "languages/mr.lang": []byte("a")}, false},
	}
	want := VersionsOf(base).Policy
	for _, c := range cases {
		got := VersionsOf(c.files).Policy
		if (got == want) != c.same {
			t.Errorf("%s: %q vs %q, same = %v, want %v", c.name, got, want, got == want, c.same)
		}
	}
}
