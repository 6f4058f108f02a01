package registry

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"
)

// Host objects (RFC 5732) and the name servers of domains (docs/delegation.md).

// Error codes of delegation.
const (
	// CodeAssociated: an object is in use by another (a host named as a
	// domain's name server, a domain with hosts under it).
	CodeAssociated = "ASSOCIATED"
	// CodeHostPolicy: a host the registry's policy refuses (glue outside
	// a zone of the registry, under another registrar's domain, a status a
	// registrar may not set).
	CodeHostPolicy = "HOST_POLICY"
	// CodeLimit: more name servers, addresses or DS records than allowed.
	CodeLimit = "LIMIT"
	// CodeBadAddress: an IP address that does not parse.
	CodeBadAddress = "BAD_ADDRESS"
	// CodeAddressRange: an address that is not a public unicast address.
	CodeAddressRange = "ADDRESS_RANGE"
	// CodeStale: the object changed between the read and the write of an
	// update (the service tries again; seen only if it keeps changing).
	CodeStale = "STALE"
)

func init() {
	DefineCode(CodeAssociated, CodeInfo{HTTP: 409, EPP: 2305, Reason: "in use"})
	DefineCode(CodeHostPolicy, CodeInfo{HTTP: 422, EPP: 2306, Reason: "host policy"})
	DefineCode(CodeLimit, CodeInfo{HTTP: 422, EPP: 2306, Reason: "over the limit"})
	DefineCode(CodeBadAddress, CodeInfo{HTTP: 400, EPP: 2005, Reason: "bad address"})
	DefineCode(CodeAddressRange, CodeInfo{HTTP: 422, EPP: 2004, Reason: "address not public"})
	DefineCode(CodeStatusProhibits, CodeInfo{HTTP: 409, EPP: 2304, Reason: "status prohibits"})
	DefineCode(CodeStale, CodeInfo{HTTP: 409, EPP: 2400, Reason: "changed meanwhile"})
}

// Limits of delegation.
const (
	// DefaultMaxNameServers is a zone's limit of name servers per domain
	// when the zones file sets none (max-nameservers).
	DefaultMaxNameServers = 13
	// MaxHostAddrs is the most addresses one host has.
	MaxHostAddrs = 13
)

// The client statuses of a host a registrar may set.
const (
	HostDeleteProhibited = "clientDeleteProhibited"
	HostUpdateProhibited = "clientUpdateProhibited"
)

// Host is a name server object.
type Host struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`   // A-label form, lower case, no final dot
	ULabel    string    `json:"ulabel"` // U-label form
	Addrs     []string  `json:"addrs"`  // glue, canonical text form, sorted
	Statuses  []string  `json:"statuses"`
	Registrar string    `json:"registrar"`
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
	Linked    bool      `json:"linked"` // a domain names it as a name server
	// SuperZone and SuperLabel name the superordinate domain of a host
	// inside a zone of the registry (U-labels); empty for a host outside.
	SuperZone  string `json:"-"`
	SuperLabel string `json:"-"`
	// Version counts the host's updates (UpdateHost writes only over the
	// version it read).
	Version int64 `json:"-"`
}

// DelegationStore keeps hosts, the name servers of domains and their DS
// records. Each method is one transaction.
type DelegationStore interface {
	// CreateHost inserts h for the registrar: ErrExists if the name is
	// taken; CodeHostPolicy if h.SuperZone is set and that domain is not
	// registered to the registrar.
	CreateHost(ctx context.Context, h *Host, registrarID int64) (*Host, error)
	// Host returns a host by name (A-label form), or ErrNotFound.
	Host(ctx context.Context, name string) (*Host, error)
	// UpdateHost replaces the name, addresses, statuses and superordinate
	// domain of the host name with h's, if registrarID sponsors it
	// (ErrForbidden if not) and it is still at h.Version (CodeStale if it
	// changed meanwhile); ErrExists if h.Name is another host's.
	UpdateHost(ctx context.Context, name string, h *Host, registrarID int64) error
	// DeleteHost deletes a host the registrar sponsors; CodeAssociated
	// while a domain names it.
	DeleteHost(ctx context.Context, name string, registrarID int64) error
	// ChangeDelegation applies c to the domain label.zone, if registrarID
	// sponsors it: CodeLimit (nothing changed) if the result has more
	// name servers or DS records than c allows; ErrNotFound for a name
	// server that is no host.
	ChangeDelegation(ctx context.Context, zone, label string, registrarID int64, c *DelegationChange) error
	// Delegation returns a domain's name servers (A-label form, sorted)
	// and DS records.
	Delegation(ctx context.Context, domainID int64) ([]string, []DS, error)
	// ZonePage returns up to limit of the zone's domains in the byte
	// order of their A-labels (Go's string order), after the A-label
	// after ("" for the first page); each with its name servers (none for
	// a domain without), DS records and the glue hosts under it. The
	// export reads a zone by pages, never the whole of it at once.
	ZonePage(ctx context.Context, zone, after string, limit int) ([]ZoneDelegation, error)
}

// ZoneDelegation is one domain's delegation.
type ZoneDelegation struct {
	Name     string   // A-label form
	NS       []string // host names, A-label form
	DS       []DS
	Statuses []string   // the domain's stored statuses (Domain.Statuses)
	Glue     []ZoneGlue // the hosts under the domain that have addresses
	// NSUnder are those of NS that are hosts under a domain of the
	// registry, in any zone (zoneexport.go, ZoneNSHost).
	NSUnder []ZoneNSHost
}

// ZoneGlue is a host under a domain, with its addresses.
type ZoneGlue struct {
	Name  string   // A-label form
	Addrs []string // canonical text form
	// NamedBy holds the distinct stored statuses of the zone's domains
	// that name the host: its glue is published if one of them is.
	NamedBy [][]string
	Domain  int // the store's own use (the index in its page)
}

// DelegationChange is a change of a domain's name servers and DS records.
// Removals are applied first.
type DelegationChange struct {
	AddNS, RemNS []string // host names, A-label form
	AddDS, RemDS []DS
	RemAllDS     bool
	MaxNS, MaxDS int
}

func (c *DelegationChange) empty() bool {
	return len(c.AddNS) == 0 && len(c.RemNS) == 0 && len(c.AddDS) == 0 && len(c.RemDS) == 0 && !c.RemAllDS
}

func (s *Service) delegationStore() (DelegationStore, error) {
	d, ok := s.store.(DelegationStore)
	if !ok {
		return nil, Errorf(CodeInternal, "the store keeps no hosts")
	}
	return d, nil
}

// hostName is a canonical host name.
type hostName struct {
	alabel, ulabel string
	zone           *Zone  // the registry's zone it is in, or nil
	label          string // the superordinate domain's label (U-label), with zone
}

var hostIDNA = idna.New(idna.ValidateForRegistration())

// canonHost canonicalizes a host name: in a zone of the registry, its
// domain label is judged by the zone's policy as a domain's is, and the
// labels below it are LDH or valid in the domain's language; outside, the
// name must be a valid IDNA2008 name (RFC 5891).
func (s *Service) canonHost(input string) (hostName, error) {
	if err := checkInput(input); err != nil {
		return hostName{}, err
	}
	n := strings.TrimSuffix(input, ".")
	labels := strings.Split(n, ".")
	if len(labels) < 2 {
		return hostName{}, Errorf(CodeBadName, "%q is not a host name (it has one label)", input)
	}
	for _, l := range labels {
		if l == "" {
			return hostName{}, Errorf(CodeBadName, "%q has an empty label", input)
		}
	}
	last := labels[len(labels)-1]
	z := s.exact[last]
	if z == nil {
		z = s.zones[zoneKey(last)]
	}
	if z == nil {
		if strings.Trim(last, "0123456789") == "" {
			return hostName{}, Errorf(CodeBadName, "%q is not a host name: its last label is all digits (RFC 1123 §2.1)", input)
		}
		a, err := hostIDNA.ToASCII(strings.ToLower(norm.NFC.String(n)))
		if err != nil {
			return hostName{}, Errorf(CodeBadName, "%q is not a valid host name: %v", input, err)
		}
		if len(a) > 253 {
			return hostName{}, Errorf(CodeBadName, "%q is longer than 253 octets in A-label form", input)
		}
		u, err := hostIDNA.ToUnicode(a)
		if err != nil {
			u = a
		}
		for _, l := range strings.Split(u, ".") {
			if s1, s2 := twoScripts(l); s2 != "" {
				return hostName{}, Errorf(CodeBadName, "%q is not a host name this registry takes: its label %s mixes scripts (%s and %s)", input, l, s1, s2)
			}
		}
		return hostName{alabel: a, ulabel: u}, nil
	}
	if len(labels) < 3 {
		return hostName{}, Errorf(CodeHostPolicy, "%q: a host in zone %s is below a domain (such as ns1.example.%s)", input, z.Name, z.Name)
	}
	dl := labels[len(labels)-2]
	nm := name{input: input, label: dl, zone: z}
	dc, err := s.judge(&nm, "")
	if err != nil {
		return hostName{}, err
	}
	if len(dc.errs) > 0 {
		return hostName{}, &Error{Code: CodeInvalid, Message: fmt.Sprintf("the domain label %s of host %s is not a valid label of zone %s", dl, input, z.Name), Errors: dc.errs}
	}
	sub := *z
	sub.MinLength, sub.MaxLength = 1, 63
	au := make([]string, 0, len(labels))
	uu := make([]string, 0, len(labels))
	for _, l := range labels[:len(labels)-2] {
		if isASCII(l) && !hasACEPrefix(l) {
			c := checkLDH(l, &sub)
			if len(c.errs) > 0 {
				return hostName{}, &Error{Code: CodeInvalid, Message: fmt.Sprintf("the label %s of host %s is not a valid LDH label", l, input), Errors: c.errs}
			}
			au, uu = append(au, c.alabel), append(uu, c.label)
			continue
		}
		lang := dc.lang
		if lang == LDH {
			lang = ""
		}
		sn := name{input: input, label: l, zone: &sub}
		c, err := s.judge(&sn, lang)
		if err != nil {
			return hostName{}, err
		}
		if len(c.errs) > 0 {
			return hostName{}, &Error{Code: CodeInvalid, Message: fmt.Sprintf("the label %s of host %s is not a valid label of zone %s", l, input, z.Name), Errors: c.errs}
		}
		au, uu = append(au, c.alabel), append(uu, c.label)
	}
	au = append(au, dc.alabel, z.ALabel)
	uu = append(uu, dc.label, z.Name)
	h := hostName{alabel: strings.Join(au, "."), ulabel: strings.Join(uu, "."), zone: z, label: dc.label}
	if len(h.alabel) > 253 {
		return hostName{}, Errorf(CodeBadName, "%q is longer than 253 octets in A-label form", input)
	}
	return h, nil
}

// Addr is an address as a registrar gives it: v6 says which family the
// registrar meant (EPP's ip attribute); "" for either.
type Addr struct {
	IP     string
	Family string // "v4", "v6" or ""
}

// canonAddrs checks and canonicalizes addresses: public unicast only.
func canonAddrs(addrs []Addr) ([]string, error) {
	out := make([]string, 0, len(addrs))
	for _, a := range addrs {
		ip, err := netip.ParseAddr(strings.TrimSpace(a.IP))
		if err != nil || ip.Zone() != "" {
			return nil, Errorf(CodeBadAddress, "%q is not an IP address", a.IP)
		}
		if ip.Is4In6() {
			return nil, Errorf(CodeBadAddress, "%q is an IPv4-mapped IPv6 address; give the IPv4 address", a.IP)
		}
		switch {
		case a.Family == "v4" && !ip.Is4(), a.Family == "v6" && !ip.Is6():
			return nil, Errorf(CodeBadAddress, "%s is not an IP%s address", a.IP, a.Family)
		case a.Family != "" && a.Family != "v4" && a.Family != "v6":
			return nil, Errorf(CodeBadAddress, "address family %q (v4 or v6)", a.Family)
		}
		if !ip.IsGlobalUnicast() || ip.IsPrivate() || isReserved(ip) {
			return nil, Errorf(CodeAddressRange, "%s is not a public unicast address", ip)
		}
		out = append(out, ip.String())
	}
	return dedupSort(out), nil
}

// isReserved reports the documentation, shared and benchmarking ranges,
// which IsGlobalUnicast lets through.
func isReserved(ip netip.Addr) bool {
	for _, p := range reservedPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

var reservedPrefixes = func() []netip.Prefix {
	var ps []netip.Prefix
	for _, s := range []string{"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4", "2001:db8::/32", "2001::/23", "64:ff9b::/96"} {
		ps = append(ps, netip.MustParsePrefix(s))
	}
	return ps
}()

func dedupSort(ss []string) []string {
	sort.Strings(ss)
	out := ss[:0]
	for i, s := range ss {
		if i == 0 || s != ss[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// HostCheck is the answer to "may this host be created?".
type HostCheck struct {
	Name   string // A-label form when valid, else as given
	Avail  bool
	Reason string // short reason when not available
}

// CheckHost answers whether a host may be created.
func (s *Service) CheckHost(ctx context.Context, input string) (*HostCheck, error) {
	ds, err := s.delegationStore()
	if err != nil {
		return nil, err
	}
	h, err := s.canonHost(input)
	if err != nil {
		if CodeOf(err) == CodeInternal {
			return nil, err
		}
		return &HostCheck{Name: input, Reason: InfoOf(CodeOf(err)).Reason}, nil
	}
	_, err = ds.Host(ctx, h.alabel)
	switch {
	case errors.Is(err, ErrNotFound):
		return &HostCheck{Name: h.alabel, Avail: true}, nil
	case err != nil:
		return nil, err
	}
	return &HostCheck{Name: h.alabel, Reason: "in use"}, nil
}

// setAddrs checks and sets a host's addresses.
func (s *Service) setAddrs(h *Host, hn hostName, addrs []Addr) error {
	a, err := canonAddrs(addrs)
	if err != nil {
		return err
	}
	if len(a) > 0 && hn.zone == nil {
		return Errorf(CodeHostPolicy, "%s is outside the zones of this registry: it takes no addresses (glue is only for hosts inside the registry's zones)", hn.alabel)
	}
	if len(a) > MaxHostAddrs {
		return Errorf(CodeLimit, "a host has at most %d addresses (%d given)", MaxHostAddrs, len(a))
	}
	h.Addrs = a
	return nil
}

// HostInfo returns a host.
func (s *Service) HostInfo(ctx context.Context, input string) (*Host, error) {
	ctx = ReadOnly(ctx) // a replica may answer (docs/replicas.md)
	ds, err := s.delegationStore()
	if err != nil {
		return nil, err
	}
	hn, err := s.canonHost(input)
	if err != nil {
		return nil, err
	}
	h, err := ds.Host(ctx, hn.alabel)
	if err != nil {
		return nil, err
	}
	h.ULabel = hn.ulabel
	return h, nil
}

func has(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// MaxNameServers is the zone's limit of name servers per domain.
func (z *Zone) MaxNS() int {
	if z.MaxNameServers > 0 {
		return z.MaxNameServers
	}
	return DefaultMaxNameServers
}

// Delegation is a change of a domain's delegation as a registrar asks it.
type Delegation struct {
	AddNS, RemNS []string // host names, as given
	AddDS, RemDS []DS
	RemAllDS     bool
}

// delegationChange checks a delegation and makes the store's change.
func (s *Service) delegationChange(z *Zone, d Delegation) (*DelegationChange, error) {
	c := &DelegationChange{MaxNS: z.MaxNS(), MaxDS: MaxDS, RemAllDS: d.RemAllDS}
	if len(d.AddNS) > c.MaxNS {
		return nil, Errorf(CodeLimit, "a domain of zone %s has at most %d name servers (%d given)", z.Name, c.MaxNS, len(d.AddNS))
	}
	for _, list := range []struct {
		in  []string
		out *[]string
	}{{d.AddNS, &c.AddNS}, {d.RemNS, &c.RemNS}} {
		for _, n := range list.in {
			hn, err := s.canonHost(n)
			if err != nil {
				return nil, err
			}
			*list.out = append(*list.out, hn.alabel)
		}
	}
	var err error
	if c.AddDS, err = checkDS(d.AddDS); err != nil {
		return nil, err
	}
	if c.RemDS, err = canonDS(d.RemDS); err != nil {
		return nil, err
	}
	if len(c.AddDS) > MaxDS {
		return nil, Errorf(CodeLimit, "a domain has at most %d DS records (%d given)", MaxDS, len(c.AddDS))
	}
	return c, nil
}

// loadDelegation fills in a domain's name servers and DS records.
func (s *Service) loadDelegation(ctx context.Context, d *Domain) error {
	ds, ok := s.store.(DelegationStore)
	if !ok {
		return nil
	}
	ns, recs, err := ds.Delegation(ctx, d.ID)
	if err != nil {
		return err
	}
	d.NameServers, d.DS = ns, recs
	return nil
}

// zoneSettings gives a stored zone the settings of the zones file that
// are not stored (max-nameservers).
func zoneSettings(z *Zone, defaults []Zone) {
	for _, d := range defaults {
		if d.Name == z.Name {
			z.MaxNameServers = d.MaxNameServers
			z.Contacts = d.Contacts // contacts.go
		}
	}
}

// twoScripts returns two Unicode scripts of a label's characters that
// UTS 39's "Highly Restrictive" level does not let one label mix (Common
// and Inherited go with any; Latin, Han, Hiragana and Katakana together
// are Japanese, Latin, Han and Bopomofo Chinese, Latin, Han and Hangul
// Korean): s2 is "" for a label it allows. IDNA2008 lets a label mix
// scripts; a name server's name that does (ns1.exampleक.com) is refused
// all the same (BAD_NAME), as a label of a zone of the registry is
// (MIXED_SCRIPT).
func twoScripts(label string) (s1, s2 string) {
	var seen []string
	for _, r := range label {
		sc := ""
		switch {
		case r < 0x80:
			if unicode.IsLetter(r) {
				sc = "Latin"
			}
		case unicode.In(r, unicode.Common, unicode.Inherited):
		default:
			for name, t := range unicode.Scripts {
				if name != "Common" && name != "Inherited" && unicode.Is(t, r) {
					sc = name
					break
				}
			}
		}
		if sc != "" && !slices.Contains(seen, sc) {
			seen = append(seen, sc)
		}
	}
	if len(seen) < 2 {
		return "", ""
	}
	for _, ok := range [][]string{{"Latin", "Han", "Hiragana", "Katakana"}, {"Latin", "Han", "Bopomofo"}, {"Latin", "Han", "Hangul"}} {
		all := true
		for _, sc := range seen {
			all = all && slices.Contains(ok, sc)
		}
		if all {
			return "", ""
		}
	}
	return seen[0], seen[1]
}
