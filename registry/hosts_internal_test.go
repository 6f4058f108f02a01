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
