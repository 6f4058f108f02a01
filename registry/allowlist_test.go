package registry_test

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

func TestParseAllowList(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string // FormatAllowList, or the error code
	}{
		{nil, ""},
		{[]string{" 192.0.2.9/24 ", "192.0.2.0/24", "10.0.0.1"}, "10.0.0.1/32 192.0.2.0/24"},
		{[]string{"2001:DB8::1/32", "::ffff:192.0.2.1"}, "192.0.2.1/32 2001:db8::/32"},
		{[]string{"::ffff:192.0.2.0/120"}, "192.0.2.0/24"},
		{[]string{"0.0.0.0/0"}, registry.CodeBadName},
		{[]string{"::/0"}, registry.CodeBadName},
		{[]string{"192.0.2.0/33"}, registry.CodeBadName},
		{[]string{"fe80::1%eth0"}, registry.CodeBadName},
		{[]string{"example.com"}, registry.CodeBadName},
	} {
		ps, err := registry.ParseAllowList(c.in)
		got := registry.FormatAllowList(ps)
		if err != nil {
			got = registry.CodeOf(err)
		}
		if got != c.want {
			t.Errorf("ParseAllowList(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	many := make([]string, registry.MaxAllowPrefixes+1)
	for i := range many {
		many[i] = netip.AddrFrom4([4]byte{10, 0, byte(i), 0}).String() + "/24"
	}
	if _, err := registry.ParseAllowList(many); registry.CodeOf(err) != registry.CodeBadName {
		t.Errorf("%d prefixes: %v", len(many), err)
	}
}

func TestParseLifetime(t *testing.T) {
	for in, want := range map[string]time.Duration{"90d": 90 * 24 * time.Hour, "never": 0, "0": 0, "2160h": 2160 * time.Hour, " 1d ": 24 * time.Hour} {
		if d, err := registry.ParseLifetime(in); err != nil || d != want {
			t.Errorf("ParseLifetime(%q) = %v, %v; want %v", in, d, err, want)
		}
		if d, _ := registry.ParseLifetime(in); d > 0 {
			if back, _ := registry.ParseLifetime(registry.FormatLifetime(d)); back != d {
				t.Errorf("FormatLifetime(%v) = %q reads back %v", d, registry.FormatLifetime(d), back)
			}
		}
	}
	for _, in := range []string{"", "soon", "-3d", "d", "99999d", "3x"} {
		if _, err := registry.ParseLifetime(in); registry.CodeOf(err) != registry.CodeBadName {
			t.Errorf("ParseLifetime(%q): %v, want BAD_NAME", in, err)
		}
	}
}

// FuzzParseAllowList: no input panics; what is accepted is canonical
// (formatted and read back, the same) and never every address.
func FuzzParseAllowList(f *testing.F) {
	for _, s := range []string{"192.0.2.0/24 2001:db8::/32", "::ffff:1.2.3.4/128", "0.0.0.0/0", "1.2.3.4%x", "a/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := registry.ParseAllowList(strings.Fields(s))
		if err != nil {
			return
		}
		text := registry.FormatAllowList(ps)
		again := registry.ReadAllowList(text)
		if registry.FormatAllowList(again) != text || len(again) != len(ps) {
			t.Fatalf("%q: %q reads back as %q", s, text, registry.FormatAllowList(again))
		}
		for _, p := range ps {
			if p.Bits() == 0 || p != p.Masked() {
				t.Fatalf("%q: %v", s, p)
			}
		}
	})
}

// FuzzParseLifetime: no input panics; an accepted positive lifetime reads
// back from its formatted text.
func FuzzParseLifetime(f *testing.F) {
	for _, s := range []string{"90d", "never", "1h30m", "-1d", "9999999999d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := registry.ParseLifetime(s)
		if err != nil || d <= 0 {
			return // a negative duration is refused where it is set (checkLifetime)
		}
		if back, err := registry.ParseLifetime(registry.FormatLifetime(d)); err != nil || back != d {
			t.Fatalf("%q: %v formats as %q, reads back %v, %v", s, d, registry.FormatLifetime(d), back, err)
		}
	})
}

// BenchmarkAddrAllowed: the check of every API request of a registrar
// with an allow-list (8 prefixes, the address in the last).
func BenchmarkAddrAllowed(b *testing.B) {
	var in []string
	for i := 0; i < 8; i++ {
		in = append(in, netip.AddrFrom4([4]byte{198, 51, byte(i), 0}).String()+"/24")
	}
	ps, err := registry.ParseAllowList(in)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if !registry.AddrAllowed(ps, "198.51.7.200") {
			b.Fatal("not allowed")
		}
	}
}
