package registry

import "testing"

// TestZoneMaxNameServers: a stored zone takes the zones file's
// max-nameservers (not stored in the database), and a zone without one
// has the registry's default.
func TestZoneMaxNameServers(t *testing.T) {
	z := &Zone{Name: "in"}
	if got := z.MaxNS(); got != DefaultMaxNameServers {
		t.Errorf("MaxNS without a setting = %d, want %d", got, DefaultMaxNameServers)
	}
	zoneSettings(z, []Zone{{Name: "भारत", MaxNameServers: 9}, {Name: "in", MaxNameServers: 4}})
	if got := z.MaxNS(); got != 4 {
		t.Errorf("MaxNS after the file's setting = %d, want 4", got)
	}
	c, err := (&Service{}).delegationChange(z, Delegation{AddNS: []string{"a.example.com", "b.example.com", "c.example.com", "d.example.com", "e.example.com"}})
	if CodeOf(err) != CodeLimit {
		t.Errorf("five name servers in a zone of four: %+v, %v; want LIMIT", c, err)
	}
}

// TestTwoScripts: a label of one script (Common and Inherited characters,
// digits and hyphens go with any) has no second script; Latin with
// Devanagari, Devanagari with Bengali, Cyrillic with Latin have one.
func TestTwoScripts(t *testing.T) {
	for _, tc := range []struct {
		label  string
		second bool
	}{
		{"ns1", false}, {"münchen", false}, {"किताब", false}, {"किताब-2", false}, {"дом", false},
		{"例え", false}, {"ns例え", false}, {"한국어", false}, // Japanese, Korean (UTS 39 Highly Restrictive)
		{"exampleक", true}, {"किকি", true}, {"pаypal", true}, // a Cyrillic а among Latin letters
		{"한え", true}, // Hangul with Hiragana
		{"", false}, {"1-2", false},
	} {
		if _, s2 := twoScripts(tc.label); (s2 != "") != tc.second {
			t.Errorf("twoScripts(%q) second %q, want second script %v", tc.label, s2, tc.second)
		}
	}
}
