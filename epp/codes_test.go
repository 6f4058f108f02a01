package epp

import (
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

// TestEveryCodeHasAMessage: each EPP result code of the one code table
// (registry codes and the front ends' own) has the RFC's text here, and
// is one of RFC 5730's (epp-1.0.xsd resultCodeType is a closed list).
func TestEveryCodeHasAMessage(t *testing.T) {
	for _, c := range registry.Codes() {
		code := registry.InfoOf(c).EPP
		if messages[code] == "" {
			t.Errorf("%s: EPP result code %d has no message in epp/response.go", c, code)
		}
	}
	for code := range messages {
		if code < 1000 || code > 2502 {
			t.Errorf("%d is not an RFC 5730 result code", code)
		}
	}
}
