package registry

import (
	"strconv"
	"strings"
)

// Money is an amount of Indian rupees in paise (1 rupee = 100 paise):
// an integer, never a float, so that every sum of a ledger is exact.
type Money int64

// Currency is the currency of every account and price (ISO 4217).
const Currency = "INR"

// maxMoney bounds what ParseMoney accepts: ₹10^13 (a hundred thousand
// crore), far above any balance, and far from int64's edge so that sums
// of many amounts cannot overflow.
const maxMoney = Money(1e15)

// ParseMoney reads an amount in rupees as a person writes it: "1000",
// "1000.5", "1000.50", with an optional leading minus ("-12.30", for an
// adjustment). No exponent, no thousands separators, at most two digits
// after the point: the amount is read exactly, digit by digit.
func ParseMoney(s string) (Money, error) {
	in := s
	s = strings.TrimSpace(s)
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	whole, frac, dot := strings.Cut(s, ".")
	bad := func() (Money, error) {
		return 0, Errorf(CodeBadAmount, "%q is not an amount in rupees (such as 1000 or 1000.50: digits, and at most two after the point)", in)
	}
	if whole == "" || len(frac) > 2 || (dot && frac == "") {
		return bad()
	}
	for _, part := range []string{whole, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return bad()
			}
		}
	}
	if len(whole) > 13 {
		return 0, Errorf(CodeBadAmount, "%q is more than the registry keeps (at most ₹%s)", in, maxMoney.String())
	}
	r, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return bad()
	}
	p := int64(0)
	if frac != "" {
		p, _ = strconv.ParseInt(frac, 10, 64)
		if len(frac) == 1 {
			p *= 10
		}
	}
	m := Money(r*100 + p)
	if m > maxMoney {
		return 0, Errorf(CodeBadAmount, "%q is more than the registry keeps (at most ₹%s)", in, maxMoney.String())
	}
	if neg {
		m = -m
	}
	return m, nil
}

// String writes m in rupees with two decimals: "1000.50", "-0.05".
func (m Money) String() string {
	sign := ""
	v := int64(m)
	if v < 0 {
		sign, v = "-", -v
	}
	p := v % 100
	out := sign + strconv.FormatInt(v/100, 10) + "."
	if p < 10 {
		out += "0"
	}
	return out + strconv.FormatInt(p, 10)
}

// MarshalText writes m as String does (JSON carries amounts as strings,
// so that no client reads them into a float).
func (m Money) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads m as ParseMoney does.
func (m *Money) UnmarshalText(b []byte) error {
	v, err := ParseMoney(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}
