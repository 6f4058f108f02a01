package registry

import (
	"context"
	"net/netip"
	"sort"
	"strings"
)

// Address allow-lists (issue 38; docs/operations.md "Address
// allow-lists"): a registrar may log in over EPP and use the HTTP API
// only from the networks the operator lists for it; an empty list allows
// every address (as before there were lists).

// CodeAddressNotAllowed refuses a registrar's login or request from an
// address outside its allow-list: HTTP 403, EPP 2501 (authentication
// error, the server closes the connection: no login from there will do).
const CodeAddressNotAllowed = "ADDRESS_NOT_ALLOWED"

func init() {
	DefineCode(CodeAddressNotAllowed, CodeInfo{HTTP: 403, EPP: 2501, Reason: "address not allowed"})
}

// MaxAllowPrefixes bounds a registrar's allow-list.
const MaxAllowPrefixes = 64

// AllowListStore is implemented by stores that keep registrars' address
// allow-lists (the SQL stores do). A registrar's list is read with it
// (Registrar.AllowFrom) by RegistrarByToken and EPPCredentials.
type AllowListStore interface {
	// SetAllowList replaces a registrar's allow-list (nil: every address);
	// ErrNotFound if there is no such registrar.
	SetAllowList(ctx context.Context, registrar string, prefixes []netip.Prefix) error
	// AllowLists returns the allow-lists of the registrars that have one,
	// by registrar name.
	AllowLists(ctx context.Context) (map[string][]netip.Prefix, error)
}

// ParseAllowList reads CIDR prefixes ("192.0.2.0/24", "2001:db8::/32") or
// addresses (a /32 or /128), in canonical form (the address masked),
// sorted, each once. It refuses more than MaxAllowPrefixes and a prefix
// that covers every address (0.0.0.0/0, ::/0: that is the empty list).
func ParseAllowList(in []string) ([]netip.Prefix, error) {
	seen := map[netip.Prefix]bool{}
	var out []netip.Prefix
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		var p netip.Prefix
		if strings.Contains(s, "/") {
			var err error
			if p, err = netip.ParsePrefix(s); err != nil {
				return nil, Errorf(CodeBadName, "%q is not a CIDR prefix such as 192.0.2.0/24 or 2001:db8::/32", s)
			}
		} else {
			a, err := netip.ParseAddr(s)
			if err != nil || a.Zone() != "" {
				return nil, Errorf(CodeBadName, "%q is not an address or a CIDR prefix", s)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if p.Addr().Is4In6() {
			p = netip.PrefixFrom(p.Addr().Unmap(), max(p.Bits()-96, 0))
		}
		p = p.Masked()
		if p.Bits() == 0 {
			return nil, Errorf(CodeBadName, "%s allows every address: clear the list instead", s)
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	if len(out) > MaxAllowPrefixes {
		return nil, Errorf(CodeBadName, "an allow-list has at most %d prefixes (this one %d)", MaxAllowPrefixes, len(out))
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if c := a.Addr().Compare(b.Addr()); c != 0 {
			return c < 0
		}
		return a.Bits() < b.Bits()
	})
	return out, nil
}

// FormatAllowList writes prefixes as the store keeps them: separated by
// spaces ("" for none).
func FormatAllowList(ps []netip.Prefix) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, " ")
}

// ReadAllowList reads what FormatAllowList wrote; a prefix it cannot read
// is left out (the store holds only what ParseAllowList gave).
func ReadAllowList(s string) []netip.Prefix {
	var out []netip.Prefix
	for _, f := range strings.Fields(s) {
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// AddrAllowed reports whether the address addr (an IP, as httpapi.ClientAddr
// or a connection's host gives it) is in one of prefixes; an empty list
// allows every address, and an address that cannot be read none.
func AddrAllowed(prefixes []netip.Prefix, addr string) bool {
	if len(prefixes) == 0 {
		return true
	}
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	a = a.WithZone("").Unmap()
	for _, p := range prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// CheckClientAddr returns nil if registrar r may use the registry from
// addr (its allow-list is empty or holds addr), else
// ADDRESS_NOT_ALLOWED.
func CheckClientAddr(r *Registrar, addr string) error {
	if AddrAllowed(r.AllowFrom, addr) {
		return nil
	}
	if addr == "" {
		addr = "an unknown address"
	}
	return Errorf(CodeAddressNotAllowed, "registrar %s does not use the registry from %s: its address allow-list does not hold it (ask the registry operator)", r.Name, addr)
}

func (s *Service) allowStore() (AllowListStore, error) {
	as, ok := s.store.(AllowListStore)
	if !ok {
		return nil, Errorf(CodeInternal, "the store keeps no address allow-lists")
	}
	return as, nil
}

// SetRegistrarAllowList replaces a registrar's address allow-list (CIDR
// prefixes or addresses, ParseAllowList; none: every address). It is
// recorded in the audit log (action registrar-allow), whatever the
// outcome; it applies to each login and API request after it, in every
// process serving the store.
func (s *Service) SetRegistrarAllowList(ctx context.Context, registrar string, prefixes []string) error {
	err := checkInput(registrar)
	var ps []netip.Prefix
	if err == nil {
		ps, err = ParseAllowList(prefixes)
	}
	var as AllowListStore
	if err == nil {
		as, err = s.allowStore()
	}
	if err == nil {
		err = as.SetAllowList(ctx, registrar, ps)
	}
	s.audit(ctx, AuditEntry{Registrar: registrar, Action: "registrar-allow", Name: registrar, Result: resultOf(err)})
	return err
}

// AllowLists returns the allow-lists of the registrars that have one, by
// registrar name.
func (s *Service) AllowLists(ctx context.Context) (map[string][]netip.Prefix, error) {
	as, err := s.allowStore()
	if err != nil {
		return nil, err
	}
	return as.AllowLists(ctx)
}
