package epp_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/epp"
)

// TestReservedSessions (issue 38): a flood of unauthenticated connections
// from many addresses (loopback aliases 127.0.1.1–127.0.1.15, two each:
// under the per-address cap) holds only the slots that are not reserved;
// a registrar logged in before it keeps working, logs in again from its
// known address, and another registrar logs in from an address of its
// allow-list, while an unknown address is refused. With no reserved
// slots (the server before issue 38) the same flood locks the
// registrars' new logins out: the test tells the two apart.
func TestReservedSessions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		reserved int
		flood    int  // the flood's connections admitted
		in       bool // the registrars' new logins get in
	}{
		{"reserved", 4, 12 - 4 - 1, true},
		{"none", -1, 12 - 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, epp.Options{MaxSessions: 12, ReservedSessions: tt.reserved, MaxSessionsPerAddr: 2, LoginTimeout: time.Minute})
			if err := e.svc.SetRegistrarAllowList(t.Context(), "other", []string{"127.0.9.0/24"}); err != nil {
				t.Fatal(err)
			}
			a, first := e.dialFrom(t, "127.0.0.1")
			if !strings.Contains(first, "<greeting>") {
				t.Fatal(first)
			}
			a.login("acme", "secret12")
			admitted := 0
			for i := 1; i <= 15; i++ {
				for j := 0; j < 2; j++ {
					_, first := e.dialFrom(t, fmt.Sprintf("127.0.1.%d", i))
					switch {
					case strings.Contains(first, "<greeting>"):
						admitted++
					case code(first) != 2502:
						t.Fatalf("flood connection from 127.0.1.%d: %s", i, first)
					}
				}
			}
			if admitted != tt.flood {
				t.Errorf("%d flood connections admitted, want %d", admitted, tt.flood)
			}
			if r := a.do(domainCmd("check", kitab)); code(r) != 1000 {
				t.Errorf("the logged-in session during the flood: %s", r)
			}
			for _, who := range []struct{ addr, clID, pw string }{
				{"127.0.0.1", "acme", "secret12"},  // logged in from there before
				{"127.0.9.9", "other", "secret34"}, // in its allow-list
			} {
				c, first := e.dialFrom(t, who.addr)
				got := strings.Contains(first, "<greeting>")
				if got != tt.in {
					t.Errorf("%s from %s during the flood: %s", who.clID, who.addr, first)
				}
				if got {
					c.login(who.clID, who.pw)
				} else if !strings.Contains(first, `<result code="2502">`) {
					t.Errorf("%s refused without 2502: %s", who.clID, first)
				}
			}
			if tt.in {
				_, first := e.dialFrom(t, "127.0.2.1")
				if code(first) != 2502 || !strings.Contains(first, "held for the addresses registrars use") {
					t.Errorf("an unknown address while only reserved slots are free: %s", first)
				}
			}
		})
	}
}
