package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"

	"github.com/akshara-idn/akshara"
)

// LDH is the language tag of plain ASCII letter-digit-hyphen labels in
// zones that allow them (the .in rules).
const LDH = "ldh"

// DefaultZones are created on first start: the zones of the zones file
// (zones/zones.txt, akshara.DefaultZones): the delegated Indian IDN ccTLDs
// (docs/policy.md §7) and the ASCII zone in, which takes every language and
// plain LDH labels, each with its languages in order.
func DefaultZones() []Zone {
	specs, err := akshara.DefaultZones()
	if err != nil {
		panic(err) // the embedded file is checked by TestDefaultZones
	}
	zones := make([]Zone, len(specs))
	for i, sp := range specs {
		z := &zones[i]
		z.Name, z.Languages, z.LDH, z.Lifecycle = sp.Name, sp.Languages, sp.LDH, sp.Lifecycle
		z.MinLength, z.MaxLength = akshara.MinLength, akshara.MaxALabelLength
		z.MaxNameServers, z.Contacts = sp.MaxNameServers, sp.Contacts
		z.Family, z.FamilyVariants = sp.Family, sp.FamilyVariants
		z.Variants = sp.Variants
		z.ALabel, _ = idna.Punycode.ToASCII(z.Name)
	}
	return zones
}

// Service applies the policy to a Store. It is safe for concurrent use.
type Service struct {
	store     Store
	zones     map[string]*Zone // by U-label and by A-label
	exact     map[string]*Zone // the keys of zones that zoneKey leaves as they are
	list      []Zone
	relations map[string]*akshara.ZoneRelation // by zone U-label
	recompute *RecomputeReport
	lookup    func(tag string) (*akshara.Language, error)
	version   string // the policy data version verdicts carry
	clock     Clock  // the time of the domain logic (ServiceOptions.Clock)
	// contactsExempt: the channels the contact policy does not bind
	// (ServiceOptions.ContactsExempt)
	contactsExempt map[string]bool

	log           atomic.Pointer[slog.Logger] // SetLogger
	auditFailures atomic.Uint64
}

// NewService loads the zones of the store (creating the defaults) and
// brings the stored conflict sets up to date with the zone relation
// (RelationVersion): if they were computed under another, they are all
// recomputed in one transaction, and domains that now conflict are kept,
// exempted (Recomputed reports it).
func NewService(ctx context.Context, store Store) (*Service, error) {
	return NewServiceWith(ctx, store, ServiceOptions{})
}

// ServiceOptions changes the policy data a Service judges with.
type ServiceOptions struct {
	// Lookup finds a language by tag; nil for the languages compiled in
	// (akshara.Lookup). With another set of languages, such as one where a
	// language file was edited (akshara reaudit -langfile), give its
	// version in DataVersion too.
	Lookup func(tag string) (*akshara.Language, error)
	// DataVersion is the version of the policy data Lookup gives; empty
	// for akshara.DataVersion().
	DataVersion string
	// NoRecompute leaves the stored conflict sets as they are, even if
	// they were computed under another relation (akshara reaudit reports
	// the differences first, and applies them with -apply).
	NoRecompute bool
	// Clock is the time the domain logic reads (nil: SystemClock).
	Clock Clock
	// Lifecycle replaces the registration policy of the zones it names
	// (by U-label) instead of the zones file's (for tests, and for an
	// operator trying a policy).
	Lifecycle map[string]akshara.ZoneLifecycle
	// Contacts replaces the contacts a domain create must carry in the
	// zones it names (by U-label; "*" for every zone) instead of the zones
	// file's `contacts` (for tests that create domains without contacts).
	Contacts map[string]akshara.ZoneContacts
	// Variants replaces the variant policy of the zones it names (by
	// U-label; a family's members each) instead of the zones file's (for
	// tests and benchmarks comparing policies; docs/variants.md, "Same
	// entity").
	Variants map[string]akshara.VariantPolicy
	// ContactsExempt names the front ends (channels: http, cli, epp,
	// import; "" for Go calls that name none) whose domain creates and
	// updates the zones' contact policy does not bind; it binds every
	// other. An explicit setting of the operator (akshara serve
	// -contacts-exempt, domain create -contacts-exempt, import
	// -contacts-exempt), for a registry whose clients of that front end
	// carry no contacts yet (docs/contacts.md, "Front ends").
	ContactsExempt []string
}

// NewServiceWith is NewService judging with the policy data of opts.
func NewServiceWith(ctx context.Context, store Store, opts ServiceOptions) (*Service, error) {
	defaults := DefaultZones()
	if err := store.EnsureZones(ctx, defaults); err != nil {
		return nil, err
	}
	zones, err := store.Zones(ctx)
	if err != nil {
		return nil, err
	}
	s := &Service{store: store, zones: map[string]*Zone{}, exact: map[string]*Zone{}, list: zones, relations: map[string]*akshara.ZoneRelation{}, lookup: opts.Lookup, version: opts.DataVersion}
	if s.lookup == nil {
		s.lookup = akshara.Lookup
	}
	if s.version == "" {
		s.version = akshara.DataVersion()
	}
	if s.clock = opts.Clock; s.clock == nil {
		s.clock = SystemClock{}
	}
	s.contactsExempt = map[string]bool{}
	for _, ch := range opts.ContactsExempt {
		s.contactsExempt[ch] = true
	}
	for i := range zones {
		z := &s.list[i]
		orderLanguages(z, defaults)
		zoneSettings(z, defaults)
		z.Lifecycle = akshara.DefaultLifecycle()
		for _, d := range defaults {
			if d.Name == z.Name {
				z.Lifecycle = d.Lifecycle // the zones file's policy
				z.Family, z.FamilyVariants = d.Family, d.FamilyVariants
				z.Variants = d.Variants // sameentity.go
			}
		}
		if lc, ok := opts.Lifecycle[z.Name]; ok {
			z.Lifecycle = lc
		}
		if v, ok := opts.Variants[z.Name]; ok {
			z.Variants = v
		}
		if c, ok := opts.Contacts["*"]; ok {
			z.Contacts = c
		}
		if c, ok := opts.Contacts[z.Name]; ok {
			z.Contacts = c
		}
		s.index(z)
	}
	if err := s.buildRelations(); err != nil {
		return nil, err
	}
	store.SetFamilies(s.familyKeys())
	version, err := s.RelationVersion()
	if err != nil {
		return nil, err
	}
	if opts.NoRecompute {
		return s, nil
	}
	s.recompute, err = store.Recompute(ctx, version, s.storedSet)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Clock is the clock the service's domain logic reads.
func (s *Service) Clock() Clock { return s.clock }

// DataVersion is the version of the policy data the service judges with.
func (s *Service) DataVersion() string { return s.version }

// orderLanguages puts a stored zone's languages in the order of the zones
// file when it names the same zone with the same languages, or with more:
// a database created before languages were added to the file (the 18 of
// the first release in "in"; issue 13 added 8) takes them, and conflict
// sets are recomputed because the relation's version changes. A zone whose
// languages are not among the file's keeps them as they were.
func orderLanguages(z *Zone, defaults []Zone) {
	for _, d := range defaults {
		if d.Name != z.Name || len(d.Languages) < len(z.Languages) {
			continue
		}
		inFile := map[string]bool{}
		for _, t := range d.Languages {
			inFile[t] = true
		}
		for _, t := range z.Languages {
			if !inFile[t] {
				return
			}
		}
		z.Languages = append([]string(nil), d.Languages...)
	}
}

// Recomputed reports what bringing the stored conflict sets up to date
// did when the service started (Domains 0 when they were up to date).
func (s *Service) Recomputed() *RecomputeReport { return s.recompute }

// RelationVersion identifies the conflict relation of the service's zones:
// a hash of the relation's rules version, each zone's languages and their
// variant tables, and the cross-script homoglyph table. Stored conflict
// sets computed under another version are recomputed at start.
func (s *Service) RelationVersion() (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "zone-relation 1\n")
	names := make([]string, 0, len(s.relations))
	for n := range s.relations {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		z := s.zones[n]
		fmt.Fprintf(h, "zone %s ldh=%v\n", n, z.LDH)
		if z.Family != "" { // only then: a registry of no family keeps its version
			fmt.Fprintf(h, "family %s %q\n", z.Family, z.FamilyVariants)
		}
		for _, t := range z.Languages {
			l, err := s.lookup(t)
			if err != nil {
				return "", &Error{Code: CodeInternal, Message: "language " + t, Err: err}
			}
			fmt.Fprintf(h, "lang %s %q\n", t, l.VariantRows())
		}
	}
	hg, err := akshara.DefaultHomoglyphs()
	if err != nil {
		return "", &Error{Code: CodeInternal, Message: "homoglyph table", Err: err}
	}
	for _, r := range hg.Rows {
		fmt.Fprintf(h, "glyph %s %s\n", r.A, r.B)
	}
	return "zr1-" + hex.EncodeToString(h.Sum(nil))[:16], nil
}

// storedSet is the conflict set of a stored domain under the service's
// relation (for Store.Recompute).
func (s *Service) storedSet(d *Domain) ([]string, error) {
	set, err := s.storedSet1(d)
	if err != nil || len(d.Legacy) == 0 {
		return set, err
	}
	// a legacy name also holds the label it shows (legacySet)
	set = append(set, s.legacySet(s.zones[d.Zone], d.Label, d.Lang)...)
	slices.Sort(set)
	return slices.Compact(set), nil
}

func (s *Service) storedSet1(d *Domain) ([]string, error) {
	rel := s.relations[d.Zone]
	if rel == nil || d.Lang == LDH {
		return []string{d.Label}, nil
	}
	if set, ok := rel.ConflictSet(d.Label); ok {
		return set, nil
	}
	// over the zone's bound: its own language's set (it was registered)
	if l, err := s.lookup(d.Lang); err == nil {
		if set := l.ConflictSet(d.Label); len(set) > 0 {
			return set, nil
		}
	}
	return []string{d.Label}, nil
}

// Zones lists the zones.
func (s *Service) Zones() []Zone { return append([]Zone(nil), s.list...) }

// Store returns the store the service uses.
func (s *Service) Store() Store { return s.store }

// name is a parsed label.zone.
type name struct {
	input string
	label string // as given (U-label or A-label)
	zone  *Zone
}

// parseName splits label.zone (a final dot is allowed) and finds the zone.
// The name is returned by value, as judge's canonical is: a check makes
// neither on the heap.
func (s *Service) parseName(input string) (name, error) {
	if err := checkInput(input); err != nil {
		return name{}, err
	}
	n := strings.TrimSuffix(input, ".")
	label, zone, ok := strings.Cut(n, ".")
	if !ok || label == "" || zone == "" {
		return name{}, Errorf(CodeBadName, "%q is not a name of the form label.zone", input)
	}
	if strings.Contains(zone, ".") {
		return name{}, s.deepName(input, n)
	}
	z := s.exact[zone] // the zone as it is written (a check's usual case)
	if z == nil {
		z = s.zones[zoneKey(zone)]
	}
	if z == nil {
		return name{}, s.unservedZone(zone)
	}
	return name{input: input, label: label, zone: z}, nil
}

// deepName is the error for a name of three labels or more (n, without
// a final dot): a third-level name under a zone of the registry, or a
// name in a zone it does not serve.
func (s *Service) deepName(input, n string) error {
	tld := n[strings.LastIndexByte(n, '.')+1:]
	z := s.exact[tld]
	if z == nil {
		z = s.zones[zoneKey(tld)]
	}
	if z == nil {
		return Errorf(CodeBadName, "%q is not a name of the form label.zone, and %s", input, s.unservedZone(tld).(*Error).Message)
	}
	rest := strings.TrimSuffix(n, "."+tld)
	second := rest[strings.LastIndexByte(rest, '.')+1:] + "." + z.Name
	return Errorf(CodeBadName, "%q is a third-level name: this registry registers names directly under its zones (label.%s), such as %s; the names under %s are its holder's to give",
		input, z.Name, second, second)
}

// unservedZone is the error for a name in a zone the registry does not
// serve: it names the zones it does.
func (s *Service) unservedZone(zone string) error {
	names := make([]string, len(s.list))
	for i, z := range s.list {
		names[i] = z.Name
	}
	return Errorf(CodeUnknownZone, "%q is not a zone this registry serves; its zones are %s", zone, strings.Join(names, ", "))
}

// zoneKey is a zone's name as the zones are looked up by it: NFC, and
// lower-cased if plain ASCII.
func zoneKey(zone string) string {
	k := norm.NFC.String(zone)
	if isASCII(k) {
		k = strings.ToLower(k)
	}
	return k
}

// index makes z found by its name and its A-label. A key that zoneKey
// leaves as it is goes in exact too: an input equal to it has that key,
// and is found without normalizing it (which costs a check as much as
// the rest of parsing the name).
func (s *Service) index(z *Zone) {
	for _, k := range [2]string{z.Name, z.ALabel} {
		s.zones[k] = z
		if zoneKey(k) == k {
			s.exact[k] = z
		}
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// canonical is a label judged in a zone.
type canonical struct {
	label, alabel string
	lang          string
	blocks        []string
	errs          []*akshara.Error
}

// judge applies the policy to a label of the zone in the language (or, for
// lang "", the first of the zone's languages that accepts it).
func (s *Service) judge(n *name, lang string) (canonical, error) {
	z := n.zone
	if strings.EqualFold(lang, "auto") {
		lang = "" // as /v1/analyze and the CLI take it
	}
	if lang == LDH || (lang == "" && z.LDH && isASCII(n.label) && !hasACEPrefix(n.label)) {
		if !z.LDH {
			return canonical{}, Errorf(CodeUnknownLanguage, "zone %s takes no plain ASCII labels", z.Name)
		}
		c := checkLDH(n.label, z)
		if len(c.errs) == 0 {
			// its Indic twins under the homoglyph table's Latin rows
			// (ᱛᱛᱛ for ooo in zone in); a plain label's set is small
			if set, ok := s.relations[z.Name].ConflictSet(c.label); ok {
				c.blocks = set
			}
		}
		return c, nil
	}
	var langs []*akshara.Language
	for _, tag := range z.Languages {
		if lang != "" && !strings.EqualFold(tag, lang) {
			continue
		}
		l, err := s.lookup(tag)
		if err != nil {
			return canonical{}, &Error{Code: CodeInternal, Message: "language " + tag, Err: err}
		}
		langs = append(langs, l)
	}
	if len(langs) == 0 {
		if _, err := s.lookup(lang); err != nil {
			return canonical{}, Errorf(CodeUnknownLanguage, "there is no language %q", lang)
		}
		return canonical{}, Errorf(CodeUnknownLanguage, "zone %s does not take language %s (it takes %s)", z.Name, lang, strings.Join(z.Languages, ", "))
	}
	opts := akshara.Options{MinLength: z.MinLength}
	var first *akshara.Result // the explanation for an invalid label
	for _, l := range langs {
		res := l.CheckOptions(n.label, opts)
		if !res.Valid {
			if first == nil || len(res.Errors) < len(first.Errors) {
				first = res // an invalid label is explained in the language that finds least wrong
			}
			continue
		}
		c := canonical{label: res.ULabel, alabel: res.ALabel, lang: l.Tag}
		if c.alabel == "" {
			c.alabel = res.ULabel
		}
		set, ok := s.relations[z.Name].ConflictSet(res.ULabel)
		if !ok {
			c.errs = []*akshara.Error{{Code: akshara.VariantLimit, Pos: 0,
				Message: fmt.Sprintf("the label has more than %d homographs under the variant tables of zone %s", akshara.MaxZoneConflictSet, z.Name)}}
			return c, nil
		}
		c.blocks = set
		return c, nil
	}
	return canonical{label: first.ULabel, lang: first.Lang, errs: first.Errors}, nil
}

// judgeName parses label.zone and judges the label.
func (s *Service) judgeName(input, lang string) (name, canonical, error) {
	n, err := s.parseName(input)
	if err != nil {
		return name{}, canonical{}, err
	}
	c, err := s.judge(&n, lang)
	return n, c, err
}

func hasACEPrefix(s string) bool { return len(s) >= 4 && strings.EqualFold(s[:4], "xn--") }

// zoneRelation is the conflict relation of a zone of no family: its
// languages with its own variant rows (family-variant), and its plain LDH
// labels when it takes them.
func (s *Service) zoneRelation(z *Zone) (*akshara.ZoneRelation, error) {
	rel, err := akshara.NewFamilyRelation(z.Languages, z.FamilyVariants, s.lookup)
	if err != nil || !z.LDH {
		return rel, err
	}
	return rel.WithLDH(), nil
}

// checkLDH applies the .in rules to a plain ASCII label: letters, digits
// and hyphens, within the zone's lengths, no hyphen first or last, no
// hyphens in the third and fourth places. Its conflict set is itself.
func checkLDH(label string, z *Zone) canonical {
	l := strings.ToLower(label)
	c := canonical{label: l, alabel: l, lang: LDH, blocks: []string{l}}
	add := func(code akshara.Code, pos int, msg string) {
		c.errs = append(c.errs, &akshara.Error{Code: code, Pos: pos, Message: msg})
	}
	for i := 0; i < len(l); i++ {
		if ch := l[i]; !(ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '-') {
			add(akshara.NotInRepertoire, i, fmt.Sprintf("%q: a plain label has only letters a-z, digits 0-9 and hyphens", ch))
		}
	}
	switch {
	case len(l) < z.MinLength:
		add(akshara.TooShort, 0, fmt.Sprintf("the label has %d characters; at least %d are required", len(l), z.MinLength))
	case len(l) > z.MaxLength:
		add(akshara.TooLong, 0, fmt.Sprintf("the label has %d characters; at most %d are allowed", len(l), z.MaxLength))
	}
	if strings.HasPrefix(l, "-") {
		add(akshara.HyphenStart, 0, akshara.HyphenStart.Summary())
	}
	if strings.HasSuffix(l, "-") && len(l) > 1 {
		add(akshara.HyphenEnd, len(l)-1, akshara.HyphenEnd.Summary())
	}
	if len(l) >= 4 && l[2:4] == "--" {
		add(akshara.HyphenDouble, 2, "hyphens in the third and fourth places are reserved (RFC 5891)")
	}
	if len(c.errs) > 0 {
		c.blocks = nil
	}
	return c
}

// fullName returns the name (U-labels) and its A-label form, made in one
// allocation: the two end to end, each a substring of it.
func (s *Service) fullName(c *canonical, z *Zone) (string, string) {
	n := len(c.label) + 1 + len(z.Name)
	var b strings.Builder
	b.Grow(n + len(c.alabel) + 1 + len(z.ALabel))
	b.WriteString(c.label)
	b.WriteByte('.')
	b.WriteString(z.Name)
	b.WriteString(c.alabel)
	b.WriteByte('.')
	b.WriteString(z.ALabel)
	both := b.String()
	return both[:n], both[n:]
}

// Check answers whether name (label.zone, U-labels or A-labels) may be
// registered in lang ("" for the first of the zone's languages that
// accepts it): available, invalid with the policy's errors, registered, or
// blocked by a registered domain.
func (s *Service) Check(ctx context.Context, input, lang string) (*CheckResult, error) {
	ctx = ReadOnly(ctx) // a replica may answer (docs/replicas.md)
	n, c, err := s.judgeName(input, lang)
	if err != nil {
		return nil, err
	}
	res := &CheckResult{Name: input, Zone: n.zone.Name, Lang: c.lang, Errors: []*akshara.Error{}, Variants: []string{}, DataVersion: s.version}
	if len(c.errs) > 0 {
		res.Status, res.Errors = Invalid, c.errs
		return res, nil
	}
	res.ULabel, res.ALabel = s.fullName(&c, n.zone)
	for _, b := range c.blocks {
		if b != c.label {
			res.Variants = append(res.Variants, b)
		}
	}
	d, reserved, err := s.findForCheck(ctx, n.zone.Name, c.blocks)
	if err == nil && d != nil && n.zone.Variants.Any() && (d.Label != c.label || d.Zone != n.zone.Name) {
		// a member of a variant group: its set is held by another member
		if d, err = s.groupMemberFor(ctx, n.zone, c.label, d); err != nil { // sameentity.go
			return nil, err
		}
	}
	switch {
	case err != nil:
		return nil, err
	case d == nil && reserved != nil:
		res.Status = Reserved
	case d == nil:
		res.Status = Available
	case d.Label == c.label && d.Zone == n.zone.Name:
		// registered: no blocker (the name is not blocked by itself; the
		// same label under another zone of its family blocks it)
		res.Status = Registered
	default:
		res.Status, res.BlockedBy = Blocked, d.Name
		checkSameEntity(n.zone, c.label, d, res) // sameentity.go
	}
	if d != nil && d.Deleted() {
		// held by a deleted domain its registrar may still restore: say
		// so, and when the set is freed
		res.HolderState, res.FreesAt = StatusPendingDelete, d.PurgeAt
		if d.HasStatus(StatusPendingRestore) {
			res.HolderState = StatusPendingRestore
		} else if d.HasStatus(StatusRedemptionPeriod) {
			res.HolderState = StatusRedemptionPeriod
		}
	}
	if d != nil && d.Exempted {
		// the name itself may be registered, exempted with the holder
		own, err := s.store.Domain(ctx, n.zone.Name, c.label)
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return nil, err
		default:
			res.Status, res.BlockedBy = Registered, ""
			res.Exempted, res.ExemptWith = own.Exempted, own.ExemptWith
		}
	}
	return res, nil
}

// findForCheck returns the domain that holds one of labels in zone, or
// if none does, the first of them reserved (nil, nil if neither).
func (s *Service) findForCheck(ctx context.Context, zone string, labels []string) (*Domain, *ReservedName, error) {
	if f, ok := s.store.(CheckFinder); ok {
		return f.FindForCheck(ctx, zone, labels)
	}
	d, err := s.store.FindBlocker(ctx, zone, labels)
	switch {
	case errors.Is(err, ErrNotFound):
		r, err := s.reservedAmong(ctx, zone, labels)
		return nil, r, err
	case err != nil:
		return nil, nil, err
	}
	return d, nil, nil
}

// locate canonicalizes label.zone for a lookup: the label decoded (if an
// A-label) and NFC, or lower-cased if plain ASCII.
func (s *Service) locate(input string) (*Zone, string, error) {
	n, err := s.parseName(input)
	if err != nil {
		return nil, "", err
	}
	label := n.label
	switch {
	case hasACEPrefix(label):
		u, err := idna.Punycode.ToUnicode(strings.ToLower(label))
		if err != nil {
			return nil, "", Errorf(CodeBadName, "%q is not a valid A-label", label)
		}
		label = norm.NFC.String(u)
	case isASCII(label):
		label = strings.ToLower(label)
	default:
		label = norm.NFC.String(label)
	}
	return n.zone, label, nil
}

// Info returns a registered domain (public), after approving its pending
// transfer if the transfer period has passed (so that the sponsor read is
// the one the worker makes).
func (s *Service) Info(ctx context.Context, input string) (*Domain, error) {
	// a replica may answer its reads; the approval of a due transfer is
	// a write, and the read after it goes to the primary (the store's
	// read-your-writes, docs/replicas.md)
	ctx = ReadOnly(ctx)
	d, err := s.settled(ctx, input)
	if err != nil {
		return nil, err
	}
	if err := s.loadDelegation(ctx, d); err != nil { // hosts.go
		return nil, err
	}
	if err := s.loadGroup(ctx, d); err != nil { // sameentity.go
		return nil, err
	}
	return d, s.loadContacts(ctx, d) // contacts.go
}

// List returns the registrar's domains.
func (s *Service) List(ctx context.Context, r *Registrar) ([]*Domain, error) {
	if err := s.settleDue(ctx); err != nil { // the list agrees with the worker
		return nil, err
	}
	return s.store.DomainsOf(ctx, r.ID)
}

// The page sizes of ListPage.
const (
	DefaultPageSize = 100
	MaxPageSize     = 1000
)

// DomainPage is one page of a registrar's domains. Next is the cursor of
// the next page (the id of the page's last domain), 0 on the last page.
type DomainPage struct {
	Domains []*Domain
	Next    int64
}

// ListPage returns a page of the registrar's domains in the order they
// were created: up to limit (1 to MaxPageSize; 0: DefaultPageSize) of
// those after the cursor (0 for the first page, else the Next of the page
// before). The HTTP API checks limit and cursor before it calls.
func (s *Service) ListPage(ctx context.Context, r *Registrar, after int64, limit int) (*DomainPage, error) {
	if limit == 0 {
		limit = DefaultPageSize
	}
	if limit < 0 || limit > MaxPageSize || after < 0 {
		return nil, Errorf(CodeBadName, "a page holds 1 to %d domains after a cursor of the listing (limit %d, cursor %d)", MaxPageSize, limit, after)
	}
	// one more than asked: whether a next page exists
	ds, err := s.store.DomainsPage(ctx, r.ID, after, limit+1)
	if err != nil {
		return nil, err
	}
	p := &DomainPage{Domains: ds}
	if len(ds) > limit {
		p.Domains = ds[:limit]
		p.Next = ds[limit-1].ID
	}
	return p, nil
}

// AddRegistrar creates a registrar and returns its API token, which is
// shown once: only its hash is stored.
func (s *Service) AddRegistrar(ctx context.Context, name string) (*Registrar, string, error) {
	r, token, err := s.addRegistrar(ctx, name)
	// recorded whatever the outcome (docs/registry.md); a failed audit
	// write is logged and counted by audit, and the token still returned:
	// the registrar exists
	s.audit(ctx, AuditEntry{Registrar: name, Action: "registrar-add", Name: name, Result: resultOf(err)})
	return r, token, err
}

func (s *Service) addRegistrar(ctx context.Context, name string) (*Registrar, string, error) {
	name = strings.TrimSpace(name)
	if err := CheckRegistrarName(name); err != nil {
		return nil, "", err
	}
	token, err := newToken()
	if err != nil {
		return nil, "", err
	}
	r, err := s.store.CreateRegistrar(ctx, name, HashToken(token))
	if err != nil {
		return nil, "", err
	}
	return r, token, nil
}

// Authenticate returns the registrar of an API token, or ErrUnauthorized.
func (s *Service) Authenticate(ctx context.Context, token string) (*Registrar, error) {
	if token == "" {
		return nil, Errorf(CodeUnauthorized, "an API token is required")
	}
	if len(token) > 200 {
		return nil, Errorf(CodeUnauthorized, "unknown API token")
	}
	return s.store.RegistrarByToken(ctx, HashToken(token))
}

// HashToken is how tokens are stored: SHA-256 (tokens are 256-bit random
// values, so a slow hash adds nothing).
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// Conflict reports whether labels a (in language la) and b (in lb) of a
// zone conflict: both valid, their zone conflict sets intersect. A
// language "" is the zone's first that accepts the label. Whichever
// languages are named, the answer is the same (the zone relation).
func (s *Service) Conflict(zone, a, la, b, lb string) (bool, error) {
	_, ca, err := s.judgeName(a+"."+zone, la)
	if err != nil {
		return false, err
	}
	_, cb, err := s.judgeName(b+"."+zone, lb)
	if err != nil {
		return false, err
	}
	for _, c := range []*canonical{&ca, &cb} {
		if len(c.errs) > 0 {
			return false, &Error{Code: CodeInvalid, Message: fmt.Sprintf("%s is not a valid %s label", c.label, c.lang), Errors: c.errs}
		}
	}
	in := map[string]bool{}
	for _, l := range ca.blocks {
		in[l] = true
	}
	for _, l := range cb.blocks {
		if in[l] {
			return true, nil
		}
	}
	return false, nil
}

// buildRelations gives each zone its conflict relation: a zone of no
// family its own (akshara.NewZoneRelationWith of its languages); the
// zones of a variant TLD family one relation, shared (docs/variants.md,
// "Zone families"): the union of the members' languages, in the order of
// the members, with the family's own variant rows. A family of which
// the store holds one zone is that zone's own relation.
func (s *Service) buildRelations() error {
	members := map[string][]*Zone{}
	for i := range s.list {
		if z := &s.list[i]; z.Family != "" {
			members[z.Family] = append(members[z.Family], z)
		}
	}
	for i := range s.list {
		z := &s.list[i]
		fam := members[z.Family]
		if z.Family == "" || len(fam) < 2 {
			z.Family = ""
			rel, err := s.zoneRelation(z)
			if err != nil {
				return &Error{Code: CodeInternal, Message: "zone " + z.Name, Err: err}
			}
			s.relations[z.Name] = rel
			continue
		}
		if s.relations[fam[0].Name] == nil {
			var tags []string
			var extra [][]string
			for _, m := range fam {
				for _, t := range m.Languages {
					if !slices.Contains(tags, t) {
						tags = append(tags, t)
					}
				}
				extra = append(extra, m.FamilyVariants...)
			}
			rel, err := akshara.NewFamilyRelation(tags, extra, s.lookup)
			if err != nil {
				return &Error{Code: CodeInternal, Message: "zone family " + z.Family, Err: err}
			}
			if slices.ContainsFunc(fam, func(m *Zone) bool { return m.LDH }) {
				rel = rel.WithLDH()
			}
			for _, m := range fam {
				s.relations[m.Name] = rel
			}
		}
	}
	return nil
}

// familyKeys maps each zone of a family to the family's key (for
// Store.SetFamilies).
func (s *Service) familyKeys() map[string]string {
	m := map[string]string{}
	for _, z := range s.list {
		if z.Family != "" {
			m[z.Name] = z.Family
		}
	}
	return m
}

// Family returns the zones of the variant TLD family of zone, by name,
// or nil if it is of none.
func (s *Service) Family(zone string) []string {
	z := s.zones[zone]
	if z == nil || z.Family == "" {
		return nil
	}
	var out []string
	for _, m := range s.list {
		if m.Family == z.Family {
			out = append(out, m.Name)
		}
	}
	return out
}
