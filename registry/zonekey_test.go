package registry

import "testing"

// parseName finds a zone written exactly as one of its keys without
// normalizing it (Service.exact). That must find what the normalized
// lookup finds, for every input: a key that normalizing would change (a
// zone stored with capitals or not in NFC) must not be found as written.
func TestParseNameExactZone(t *testing.T) {
	s := &Service{zones: map[string]*Zone{}, exact: map[string]*Zone{}}
	zones := []*Zone{
		{Name: "भारत", ALabel: "xn--h2brj9c"},
		{Name: "in", ALabel: "in"},
		{Name: "Caps", ALabel: "Caps"},        // not lower case: found by no input
		{Name: "cafe\u0301", ALabel: "xn--x"}, // not NFC: found by no U-label input
	}
	for _, z := range zones {
		s.index(z)
	}
	inputs := []string{"भारत", "xn--h2brj9c", "XN--H2BRJ9C", "in", "IN", "In", "Caps", "caps", "CAPS",
		"cafe\u0301", "café", "xn--x", "XN--X", "other", "भार"}
	for _, in := range inputs {
		want := s.zones[zoneKey(in)]
		n, err := s.parseName("label." + in)
		switch {
		case want == nil && err == nil:
			t.Errorf("zone %q: found %q, want no zone", in, n.zone.Name)
		case want != nil && err != nil:
			t.Errorf("zone %q: %v, want %q", in, err, want.Name)
		case want != nil && n.zone != want:
			t.Errorf("zone %q: found %q, want %q", in, n.zone.Name, want.Name)
		}
	}
	if len(s.exact) == 0 || s.exact["Caps"] != nil || s.exact["cafe\u0301"] != nil {
		t.Errorf("exact keys: %v", s.exact)
	}
}
