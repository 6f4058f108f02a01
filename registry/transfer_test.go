package registry_test

import (
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

func TestTransferProhibitedBy(t *testing.T) {
	for _, tt := range []struct {
		statuses []string
		want     string
	}{
		{nil, ""},
		{[]string{"ok"}, ""},
		{[]string{"clientHold", "clientUpdateProhibited"}, ""},
		{[]string{"clientHold", "clientTransferProhibited"}, "clientTransferProhibited"},
		{[]string{"serverTransferProhibited"}, "serverTransferProhibited"},
		{[]string{"pendingDelete", "redemptionPeriod"}, "pendingDelete"},
		{[]string{"pendingRestore"}, "pendingRestore"},
		{[]string{"pendingTransfer"}, "pendingTransfer"},
	} {
		if got := registry.TransferProhibitedBy(tt.statuses); got != tt.want {
			t.Errorf("TransferProhibitedBy(%q) = %q, want %q", tt.statuses, got, tt.want)
		}
	}
}

// TestTransferCodes: the transfer codes answer what RFC 5730 §3 says.
func TestTransferCodes(t *testing.T) {
	for code, epp := range map[string]int{
		registry.CodeBadAuthInfo:        2202,
		registry.CodePendingTransfer:    2300,
		registry.CodeNotPendingTransfer: 2301,
		registry.CodeStatusProhibits:    2304,
		registry.CodeNotEligible:        2106,
		registry.CodePeriodRange:        2004,
		registry.CodeForbidden:          2201,
	} {
		if i := registry.InfoOf(code); i.EPP != epp || len(i.Reason) > 32 || i.HTTP < 400 {
			t.Errorf("%s: %+v, want EPP %d", code, i, epp)
		}
	}
}

func TestCheckAuthInfo(t *testing.T) {
	for pw, ok := range map[string]bool{"": false, "short": false, "2fooBAR!xQ7wK4pL": true, "with Space ok 123": true, "with space ok": false, "tab\there": false, string(make([]byte, 257)): false} {
		if err := registry.CheckAuthInfo(pw); (err == nil) != ok {
			t.Errorf("CheckAuthInfo(%q): %v", pw, err)
		}
	}
	h, err := registry.HashAuthInfo("2fooBAR!xQ7wK4pL")
	if err != nil || !registry.VerifyEPPPassword(h, "2fooBAR!xQ7wK4pL") || registry.VerifyEPPPassword(h, "2fooBAR?") {
		t.Errorf("HashAuthInfo: %s, %v", h, err)
	}
}
