package registry_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

func TestParseMoney(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want registry.Money
		ok   bool
	}{
		{"1000", 100000, true},
		{"1000.50", 100050, true},
		{"1000.5", 100050, true},
		{"0.05", 5, true},
		{" 12.30 ", 1230, true},
		{"-12.30", -1230, true},
		{"0", 0, true},
		{"9999999999999.99", 999999999999999, true},
		{"10000000000000", 0, false}, // 14 digits
		{"1000.505", 0, false},
		{"1000.", 0, false},
		{".5", 0, false},
		{"1e3", 0, false},
		{"1,000", 0, false},
		{"+5", 0, false},
		{"", 0, false},
		{"-", 0, false},
		{"१००", 0, false}, // Devanagari digits are not read as amounts
		{"NaN", 0, false},
	} {
		got, err := registry.ParseMoney(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseMoney(%q) = %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && registry.CodeOf(err) != registry.CodeBadAmount {
			t.Errorf("ParseMoney(%q): code %s, want %s", tt.in, registry.CodeOf(err), registry.CodeBadAmount)
		}
	}
	for _, tt := range []struct {
		m    registry.Money
		want string
	}{{0, "0.00"}, {5, "0.05"}, {-5, "-0.05"}, {100050, "1000.50"}, {-123456, "-1234.56"}} {
		if got := tt.m.String(); got != tt.want {
			t.Errorf("Money(%d).String() = %q, want %q", tt.m, got, tt.want)
		}
	}
}

// FuzzParseMoney: never a panic; whatever is read writes back as the
// same amount, and agrees with reading the digits as a decimal by hand.
func FuzzParseMoney(f *testing.F) {
	for _, s := range []string{"1000", "1000.50", "-0.5", "1.234", "", "9999999999999.99", "00.10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := registry.ParseMoney(s)
		if err != nil {
			return
		}
		back, err := registry.ParseMoney(m.String())
		if err != nil || back != m {
			t.Fatalf("ParseMoney(%q) = %d, written %q, read back %d, %v", s, m, m.String(), back, err)
		}
		w, frac, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(s), "-"), ".")
		for len(frac) < 2 {
			frac += "0"
		}
		n, err := strconv.ParseInt(w+frac, 10, 64)
		if err != nil {
			t.Fatalf("ParseMoney(%q) = %d, but its digits are not a number", s, m)
		}
		if m < 0 {
			n = -n
		}
		if registry.Money(n) != m {
			t.Fatalf("ParseMoney(%q) = %d, want %d", s, m, n)
		}
	})
}

func TestCheckGST(t *testing.T) {
	for _, tt := range []struct {
		gstin, state string
		ok           bool
	}{
		{"", "", true},
		{"", "29", true},
		{"", "07", true},
		{"", "97", true},
		{"", "00", false},
		{"", "40", false},
		{"", "KA", false},
		{"27AAPFU0939F1ZV", "27", true},  // the GST portal's published example
		{"27AAPFU0939F1ZW", "27", false}, // its check character changed
		{gstin("29ABCDE1234F1Z"), "29", true},
		{gstin("29ABCDE1234F1Z"), "", true},
		{gstin("29ABCDE1234F1Z"), "07", false}, // another state's
		{"29ABCDE1234F1Z0", "", gstin("29ABCDE1234F1Z") == "29ABCDE1234F1Z0"},
		{"29abcde1234f1z5", "", false},
		{"29ABCDE1234F1Z", "", false},
		{gstin("99ABCDE1234F1Z"), "", false},
	} {
		if err := registry.CheckGST(tt.gstin, tt.state); (err == nil) != tt.ok {
			t.Errorf("CheckGST(%q, %q) = %v, want ok %v", tt.gstin, tt.state, err, tt.ok)
		}
	}
}

// gstin completes 14 characters with their check character (the GSTN's
// mod-36 algorithm, written here again from its description).
func gstin(s string) string {
	const cs = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	sum := 0
	for i := 0; i < 14; i++ {
		p := strings.IndexByte(cs, s[i]) * (1 + i%2)
		sum += p/36 + p%36
	}
	return s + string(cs[(36-sum%36)%36])
}
