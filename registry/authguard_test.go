package registry_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/akshara-idn/akshara/registry"
)

// TestAuthInfoStrength is the rule of a strong authInfo (docs/registry.md
// "A strong authInfo"): what registrar toolkits generate is taken; what
// cannot be strong is refused WEAK_AUTH_INFO, the syntax BAD_NAME.
func TestAuthInfoStrength(t *testing.T) {
	for _, tc := range []struct {
		pw   string
		code string // "" taken
	}{
		// taken: three kinds and 16 characters, or 128 bits by the estimate
		{"k3P9-vX2q-Lm7T-wR4z", ""},
		{"Xk9mQ2vLp7Rt4wZs", ""},                        // 16 letters and digits, both cases
		{"2fooBAR!xQ7wK4pL", ""},                        // the tests' authInfo
		{"9f86d081884c7d659a2feaa0c55ad015", ""},        // 32 hex digits: 2 kinds, 165 bits by the estimate
		{"3e4c1a7b-0d2f-4f8e-9b6a-5c7d8e9f0a1b", ""},    // a UUID: 3 kinds
		{"qUJ7mN1vZ0xR4sT8wY2aBg==", ""},                // openssl rand -base64 16
		{"xkcdqwmvbrtplzsnfhgjdyuaoeic", ""},            // 28 lowercase letters: 131.6 bits
		{"732950288419716939937510582097494459230", ""}, // 39 digits: 129.6 bits
		{"with Space ok 123", ""},
		{"किताब-Kitab-2030-भारत", ""}, // non-ASCII is a kind
		// refused: weak
		{"", registry.CodeWeakAuthInfo},
		{"2fooBAR", registry.CodeWeakAuthInfo},                                // RFC 5731's example
		{"2fooBAR!", registry.CodeWeakAuthInfo},                               // the tests' before
		{"Auth-Info-0001", registry.CodeWeakAuthInfo},                         // 14 characters of 4 kinds
		{"Xk9mQ2vLp7Rt4wZ", registry.CodeWeakAuthInfo},                        // 15
		{"password12345678", registry.CodeWeakAuthInfo},                       // 2 kinds, 82.7 bits
		{"73295028841971693993751058209749445923", registry.CodeWeakAuthInfo}, // 38 digits: 126.3 bits
		{"Aa1!Aa1!Aa1!Aa1!", ""},                                              // a quarter each: taken
		{"AAAAAa1!Aa1!Aa1!", registry.CodeWeakAuthInfo},                       // 'A' 7 of 16
		{strings.Repeat("ab", 40), registry.CodeWeakAuthInfo},                 // half each
		// refused: syntax
		{"tab\there-Kq7w-Zp3x", registry.CodeBadName},
		{"line\nbreak-Kq7w-Zp3x", registry.CodeBadName},
		{strings.Repeat("Ab1-", 64) + "x", registry.CodeBadName}, // 257
	} {
		err := registry.CheckAuthInfo(tc.pw)
		if registry.CodeOf(err) != tc.code && !(tc.code == "" && err == nil) {
			t.Errorf("CheckAuthInfo(%q) = %v, want %q", tc.pw, err, tc.code)
		}
	}
	if err := registry.CheckAuthInfo(strings.Repeat("Ab1-", 64)); err != nil {
		t.Errorf("256 characters: %v", err)
	}
}

// FuzzCheckAuthInfo: never a panic; what is taken has 16 to 256
// characters, no tab or line break, and no character in more than a
// quarter of it; a refusal is WEAK_AUTH_INFO or BAD_NAME.
func FuzzCheckAuthInfo(f *testing.F) {
	for _, s := range []string{"k3P9-vX2q-Lm7T-wR4z", "2fooBAR", "9f86d081884c7d659a2feaa0c55ad015", "\xff\xfe", "किताब-Kitab-2030-भारत"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pw string) {
		err := registry.CheckAuthInfo(pw)
		if err != nil {
			if c := registry.CodeOf(err); c != registry.CodeWeakAuthInfo && c != registry.CodeBadName {
				t.Fatalf("%q: %v", pw, err)
			}
			return
		}
		n := utf8.RuneCountInString(pw)
		if n < registry.MinAuthInfo || n > 256 || strings.ContainsAny(pw, "\t\r\n") {
			t.Fatalf("%q (%d characters) taken", pw, n)
		}
		for _, c := range pw {
			if 4*strings.Count(pw, string(c)) > n {
				t.Fatalf("%q taken with %q in more than a quarter", pw, c)
			}
		}
	})
}

func ExampleCheckAuthInfo() {
	for _, pw := range []string{"2fooBAR", "k3P9-vX2q-Lm7T-wR4z", "9f86d081884c7d659a2feaa0c55ad015"} {
		if err := registry.CheckAuthInfo(pw); err != nil {
			fmt.Printf("%s: %s\n", pw, registry.CodeOf(err))
		} else {
			fmt.Printf("%s: taken\n", pw)
		}
	}
	// Output:
	// 2fooBAR: WEAK_AUTH_INFO
	// k3P9-vX2q-Lm7T-wR4z: taken
	// 9f86d081884c7d659a2feaa0c55ad015: taken
}
