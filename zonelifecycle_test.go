package akshara

import (
	"bytes"
	"strings"
	"testing"
)

// TestZoneLifecycle: the zones file's lifecycle lines (docs/lifecycle.md),
// their defaults and their errors.
func TestZoneLifecycle(t *testing.T) {
	zones, err := ParseZones("t", []byte("zone a\n  languages hi\nzone b\n  languages hi\n  lifecycle period=2-5 default-period=2 months=on auto-renew=off add-grace=0d redemption=40d pending-delete=1d\n"))
	if err != nil {
		t.Fatal(err)
	}
	if zones[0].Lifecycle != DefaultLifecycle() {
		t.Errorf("a zone without lifecycle lines: %+v, want the defaults", zones[0].Lifecycle)
	}
	want := ZoneLifecycle{MinYears: 2, MaxYears: 5, DefaultYears: 2, Months: true, AutoRenew: false, AddGrace: 0,
		RenewGrace: 5 * Day, AutoRenewGrace: 45 * Day, Redemption: 40 * Day, PendingDelete: 1 * Day}
	if zones[1].Lifecycle != want {
		t.Errorf("zone b: %+v, want %+v", zones[1].Lifecycle, want)
	}
	for _, bad := range []string{"period=0-10", "period=1-11", "period=5-2", "add-grace=5", "add-grace=-1d", "auto-renew=maybe", "nonsense=1", "redemption", "default-period=7 period=1-5"} {
		if _, err := ParseZones("t", []byte("zone a\n  languages hi\n  lifecycle "+bad+"\n")); err == nil || !strings.Contains(err.Error(), "lifecycle") {
			t.Errorf("lifecycle %s: error %v", bad, err)
		}
	}
	// the embedded file: the .IN profile in every zone
	specs, err := DefaultZones()
	if err != nil {
		t.Fatal(err)
	}
	for _, z := range specs {
		if lc := z.Lifecycle; lc.AddGrace != 0 || lc.Redemption != 30*Day || lc.PendingDelete != 5*Day || lc.MaxYears != 10 || lc.DefaultYears != 1 {
			t.Errorf("zone %s: %+v, want the .IN profile", z.Name, lc)
		}
	}
}

// TestDataVersionIgnoresLifecycle: the registration policy is not policy
// data: editing a lifecycle line leaves DataVersion as it is; editing a
// zone's languages does not.
func TestDataVersionIgnoresLifecycle(t *testing.T) {
	edited := bytes.Replace(zonesFile, []byte("redemption=30d"), []byte("redemption=40d"), 1)
	if bytes.Equal(edited, zonesFile) {
		t.Fatal("no lifecycle line to edit")
	}
	if !bytes.Equal(withoutLifecycle(edited), withoutLifecycle(zonesFile)) {
		t.Error("a lifecycle edit changes the hashed zones file")
	}
	contacts := bytes.Replace(zonesFile, []byte("admin=required"), []byte("admin=optional"), 1)
	if bytes.Equal(contacts, zonesFile) || !bytes.Equal(withoutLifecycle(contacts), withoutLifecycle(zonesFile)) {
		t.Error("a contacts edit changes the hashed zones file (or there is no contacts line)")
	}
	langs := bytes.Replace(zonesFile, []byte("languages sa\n"), []byte("languages sa hi\n"), 1)
	if bytes.Equal(withoutLifecycle(langs), withoutLifecycle(zonesFile)) {
		t.Error("a languages edit does not change the hashed zones file")
	}
}
