package akshara

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// ZoneSpec is a zone as the zones file (zones/zones.txt) describes it.
type ZoneSpec struct {
	Name      string   // U-label
	Languages []string // in the zone's order
	LDH       bool     // plain ASCII LDH labels allowed
	Source    string
	// MaxNameServers is the most name servers a domain of the zone has
	// (max-nameservers N, 0 to 13); 0 when the file sets none (the
	// registry's default, 13).
	MaxNameServers int
	// Lifecycle is the zone's registration policy (`lifecycle` lines;
	// DefaultLifecycle for what they do not set).
	Lifecycle ZoneLifecycle
	// Family is the zone's variant TLD family (`family NAME`): the zones
	// whose names are variants of one another under ICANN's Root Zone LGR
	// share one conflict relation (docs/variants.md, "Zone families").
	// NAME is the family's first member zone, its key; "" for a zone of
	// no family.
	Family string
	// FamilyVariants are variant rows the family adds to the union of its
	// members' variant tables (`family-variant A B ...`): the Root Zone
	// LGR's variants that tell the member TLDs apart, which no member
	// language holds alone (such as র/ৰ: Bangla writes one, Assamese the
	// other). A zone of no family may have its own, for the same reason:
	// zone in takes both bn and as.
	FamilyVariants [][]string
	// Contacts says which contacts a domain of the zone must have
	// (`contacts` line; none required when the file sets none).
	Contacts ZoneContacts
	// Variants is who may hold a registered name's variants (`variants`
	// line, variantpolicy.go): block (the default) or same-entity, by the
	// kind of variant. A family's is given under its first member and is
	// every member's.
	Variants VariantPolicy
}

// ZoneContacts is which contacts a domain create must carry
// (docs/contacts.md): true for a required role.
type ZoneContacts struct {
	Registrant, Admin, Tech, Billing bool
}

// ContactRoles are the roles of a domain's contacts, in the order of the
// zones file's `contacts` line and of EPP's domain:contact types.
var ContactRoles = []string{"registrant", "admin", "tech", "billing"}

// Required reports whether the role (one of ContactRoles) is required.
func (c ZoneContacts) Required(role string) bool {
	f := c.role(role)
	return f != nil && *f
}

// role is the setting of a role, nil for an unknown role.
func (c *ZoneContacts) role(role string) *bool {
	switch role {
	case "registrant":
		return &c.Registrant
	case "admin":
		return &c.Admin
	case "tech":
		return &c.Tech
	case "billing":
		return &c.Billing
	}
	return nil
}

// set applies a `contacts` line's ROLE=required|optional settings.
func (c *ZoneContacts) set(fields []string) error {
	if len(fields) == 0 {
		return fmt.Errorf("want ROLE=required|optional for the roles %s", strings.Join(ContactRoles, ", "))
	}
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok || (v != "required" && v != "optional") {
			return fmt.Errorf("want ROLE=required or ROLE=optional, got %q", f)
		}
		r := c.role(k)
		if r == nil {
			return fmt.Errorf("unknown contact role %q (%s)", k, strings.Join(ContactRoles, ", "))
		}
		*r = v == "required"
	}
	return nil
}

// ZoneLifecycle is a zone's registration policy: the periods a create or
// renew may take and the lengths of the grace and deletion periods
// (docs/lifecycle.md; RFC 5731 §3.2.1, RFC 3915).
type ZoneLifecycle struct {
	MinYears, MaxYears int  // the range of a registration period in years
	DefaultYears       int  // the period of a create or renew that gives none
	Months             bool // periods may be given in months (unit "m")
	AutoRenew          bool // an expired domain is renewed for a year; otherwise deleted
	AddGrace           time.Duration
	RenewGrace         time.Duration
	AutoRenewGrace     time.Duration
	Redemption         time.Duration // redemptionPeriod after a delete
	PendingDelete      time.Duration // after the redemption, before the purge
}

// Day is the unit of the zones file's periods.
const Day = 24 * time.Hour

// DefaultLifecycle is the policy of a zone whose `lifecycle` lines leave a
// setting out: 1 to 10 years, 1 by default, no months, auto-renew, and
// the periods RFC 3915 describes (add and renew grace 5 days, auto-renew
// grace 45, redemption 30, pending delete 5).
func DefaultLifecycle() ZoneLifecycle {
	return ZoneLifecycle{MinYears: 1, MaxYears: 10, DefaultYears: 1, AutoRenew: true,
		AddGrace: 5 * Day, RenewGrace: 5 * Day, AutoRenewGrace: 45 * Day, Redemption: 30 * Day, PendingDelete: 5 * Day}
}

// set applies one `lifecycle` line's KEY=VALUE settings.
func (l *ZoneLifecycle) set(fields []string) error {
	days := func(v string) (time.Duration, error) {
		n, err := strconv.Atoi(strings.TrimSuffix(v, "d"))
		if err != nil || !strings.HasSuffix(v, "d") || n < 0 || n > 3650 {
			return 0, fmt.Errorf("%q is not a number of days such as 30d", v)
		}
		return time.Duration(n) * Day, nil
	}
	onOff := func(v string) (bool, error) {
		switch v {
		case "on", "yes":
			return true, nil
		case "off", "no":
			return false, nil
		}
		return false, fmt.Errorf("%q is not on or off", v)
	}
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return fmt.Errorf("want KEY=VALUE, got %q", f)
		}
		var err error
		switch k {
		case "period":
			lo, hi, ok := strings.Cut(strings.TrimSuffix(v, "y"), "-")
			a, err1 := strconv.Atoi(lo)
			b, err2 := strconv.Atoi(hi)
			if !ok || err1 != nil || err2 != nil || a < 1 || b < a || b > 10 {
				return fmt.Errorf("period %q: want a range of years within 1-10, such as 1-10", v)
			}
			l.MinYears, l.MaxYears = a, b
		case "default-period":
			n, err1 := strconv.Atoi(strings.TrimSuffix(v, "y"))
			if err1 != nil || n < 1 || n > 10 {
				return fmt.Errorf("default-period %q: want 1 to 10 years", v)
			}
			l.DefaultYears = n
		case "months":
			l.Months, err = onOff(v)
		case "auto-renew":
			l.AutoRenew, err = onOff(v)
		case "add-grace":
			l.AddGrace, err = days(v)
		case "renew-grace":
			l.RenewGrace, err = days(v)
		case "auto-renew-grace":
			l.AutoRenewGrace, err = days(v)
		case "redemption":
			l.Redemption, err = days(v)
		case "pending-delete":
			l.PendingDelete, err = days(v)
		default:
			return fmt.Errorf("unknown lifecycle setting %q (period, default-period, months, auto-renew, add-grace, renew-grace, auto-renew-grace, redemption, pending-delete)", k)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	if l.DefaultYears < l.MinYears || l.DefaultYears > l.MaxYears {
		return fmt.Errorf("default-period %d is outside period %d-%d", l.DefaultYears, l.MinYears, l.MaxYears)
	}
	return nil
}

//go:embed zones/zones.txt
var zonesFile []byte

var defaultZones struct {
	once  sync.Once
	zones []ZoneSpec
	order map[string]int
	err   error
}

func loadDefaultZones() {
	defaultZones.zones, defaultZones.err = ParseZones("zones/zones.txt", zonesFile)
	if defaultZones.err != nil {
		return
	}
	// the language order: the zone with the most languages first, then
	// the others, each language at its first place
	defaultZones.order = map[string]int{}
	best := -1
	for i, z := range defaultZones.zones {
		if best < 0 || len(z.Languages) > len(defaultZones.zones[best].Languages) {
			best = i
		}
	}
	add := func(tags []string) {
		for _, t := range tags {
			if _, ok := defaultZones.order[t]; !ok {
				defaultZones.order[t] = len(defaultZones.order)
			}
		}
	}
	if best >= 0 {
		add(defaultZones.zones[best].Languages)
	}
	for _, z := range defaultZones.zones {
		add(z.Languages)
	}
}

// DefaultZones returns the zones of the embedded zones file, whose every
// language has a policy.
func DefaultZones() ([]ZoneSpec, error) {
	defaultZones.once.Do(loadDefaultZones)
	if defaultZones.err != nil {
		return nil, defaultZones.err
	}
	for _, z := range defaultZones.zones {
		for _, t := range z.Languages {
			if _, err := Lookup(t); err != nil {
				return nil, fmt.Errorf("zones/zones.txt: zone %s: %w", z.Name, err)
			}
		}
	}
	out := make([]ZoneSpec, len(defaultZones.zones))
	for i, z := range defaultZones.zones {
		out[i] = z
		out[i].Languages = append([]string(nil), z.Languages...)
	}
	return out, nil
}

// LanguageRank is the place of a language in the zones file's language
// order (Hindi first among the Devanagari languages); languages it does
// not name come after, by tag.
func LanguageRank(tag string) int {
	defaultZones.once.Do(loadDefaultZones)
	if r, ok := defaultZones.order[tag]; ok {
		return r
	}
	return len(defaultZones.order)
}

// ParseZones parses a zones file (the format is described at the top of
// zones/zones.txt). It checks the form, not that the languages exist.
func ParseZones(name string, data []byte) ([]ZoneSpec, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%s: not UTF-8", name)
	}
	var zones []ZoneSpec
	seen := map[string]bool{}
	variantsSet := map[int]bool{} // the zones (by index) whose file sets `variants`
	for n, line := range strings.Split(string(data), "\n") {
		errf := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", name, n+1, fmt.Sprintf(format, args...))
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		indented := line[0] == ' ' || line[0] == '\t'
		f := strings.Fields(line)
		if !indented {
			if f[0] != "zone" || len(f) != 2 {
				return nil, errf("want `zone NAME`, got %q", strings.TrimSpace(line))
			}
			if seen[f[1]] {
				return nil, errf("zone %s is listed twice", f[1])
			}
			seen[f[1]] = true
			zones = append(zones, ZoneSpec{Name: f[1], Lifecycle: DefaultLifecycle()})
			continue
		}
		if len(zones) == 0 {
			return nil, errf("a setting before the first zone")
		}
		z := &zones[len(zones)-1]
		switch f[0] {
		case "languages":
			if z.Languages != nil {
				return nil, errf("zone %s: languages given twice", z.Name)
			}
			if len(f) < 2 {
				return nil, errf("zone %s: no languages", z.Name)
			}
			dup := map[string]bool{}
			for _, t := range f[1:] {
				if dup[t] {
					return nil, errf("zone %s: language %s listed twice", z.Name, t)
				}
				dup[t] = true
			}
			z.Languages = f[1:]
		case "ldh":
			if len(f) != 1 {
				return nil, errf("`ldh` takes nothing")
			}
			z.LDH = true
		case "source":
			z.Source = strings.Join(f[1:], " ")
		case "max-nameservers":
			n, err := strconv.Atoi(strings.Join(f[1:], " "))
			if err != nil || len(f) != 2 || n < 1 || n > 13 {
				return nil, errf("`max-nameservers` takes a number from 1 to 13")
			}
			z.MaxNameServers = n
		case "family":
			if len(f) != 2 || z.Family != "" {
				return nil, errf("zone %s: `family NAME` takes one name, once", z.Name)
			}
			z.Family = f[1]
		case "family-variant":
			if len(f) < 3 {
				return nil, errf("zone %s: `family-variant` takes two sequences or more", z.Name)
			}
			z.FamilyVariants = append(z.FamilyVariants, f[1:])
		case "lifecycle":
			if err := z.Lifecycle.set(f[1:]); err != nil {
				return nil, errf("zone %s: lifecycle: %v", z.Name, err)
			}
		case "contacts":
			if err := z.Contacts.set(f[1:]); err != nil {
				return nil, errf("zone %s: contacts: %v", z.Name, err)
			}
		case "variants":
			if variantsSet[len(zones)-1] {
				return nil, errf("zone %s: `variants` given twice", z.Name)
			}
			p, err := ParseVariantPolicy(f[1:])
			if err != nil {
				return nil, errf("zone %s: variants: %v", z.Name, err)
			}
			z.Variants, variantsSet[len(zones)-1] = p, true
		default:
			return nil, errf("unknown setting %q (languages, ldh, source, max-nameservers, lifecycle, contacts, family, family-variant, variants)", f[0])
		}
	}
	for _, z := range zones {
		if len(z.Languages) == 0 {
			return nil, fmt.Errorf("%s: zone %s has no languages", name, z.Name)
		}
	}
	if len(zones) == 0 {
		return nil, fmt.Errorf("%s: no zones", name)
	}
	if err := checkFamilies(name, zones); err != nil {
		return nil, err
	}
	if err := familyVariants(name, zones, variantsSet); err != nil {
		return nil, err
	}
	return zones, nil
}

// checkFamilies checks the zones' families: a family is named by its
// first member, which names it too; it has two members or more; and its
// variant rows (family-variant) are given once, under the first member. A
// zone of no family may have rows of its own: a zone that takes the
// languages of two member TLDs (in takes bn and as) holds the row that
// makes their spellings variants.
func checkFamilies(name string, zones []ZoneSpec) error {
	first := map[string]int{} // family -> index of its first member
	members := map[string]int{}
	for i, z := range zones {
		if z.Family == "" {
			continue // its family-variant rows are its own (zone in: bn and as)
		}
		if _, ok := first[z.Family]; !ok {
			first[z.Family] = i
			if z.Family != z.Name {
				return fmt.Errorf("%s: zone %s: family %s is named by its first member, which is %s", name, z.Name, z.Family, z.Name)
			}
		} else if len(z.FamilyVariants) > 0 {
			return fmt.Errorf("%s: zone %s: the family-variant rows of family %s go under its first member", name, z.Name, z.Family)
		}
		members[z.Family]++
	}
	for f, n := range members {
		if n < 2 {
			return fmt.Errorf("%s: family %s has one member", name, f)
		}
	}
	return nil
}

// familyVariants gives every member of a family its first member's
// variant policy: a family's `variants` goes under its first member, as
// its family-variant rows do (set: the zones whose file sets one).
func familyVariants(name string, zones []ZoneSpec, set map[int]bool) error {
	first := map[string]int{}
	for i := range zones {
		z := &zones[i]
		if z.Family == "" {
			continue
		}
		f, ok := first[z.Family]
		if !ok {
			first[z.Family] = i
			continue
		}
		if set[i] {
			return fmt.Errorf("%s: zone %s: the `variants` policy of family %s goes under its first member", name, z.Name, z.Family)
		}
		z.Variants = zones[f].Variants
	}
	return nil
}

// Families returns the zones' families: the key (first member) of each,
// mapped to its members in the file's order.
func Families(zones []ZoneSpec) map[string][]string {
	out := map[string][]string{}
	for _, z := range zones {
		if z.Family != "" {
			out[z.Family] = append(out[z.Family], z.Name)
		}
	}
	return out
}
