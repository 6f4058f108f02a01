package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/net/idna"
)

// EscrowSource is a deposit (a FULL and the DIFFs after it, read in
// order) as a restore reads it (package escrow): each function calls f
// with each object of its kind, and may be called more than once (a
// restore reads the deposit in passes, and again if its transaction is
// run again).
type EscrowSource interface {
	Registrars(f func(EscrowRegistrar) error) error
	Contacts(f func(*Contact) error) error
	// Domains in the order they were created. Name is label.zone in
	// either form; Lang the idnTableId ("" if none); ExemptWith, if the
	// deposit records exemptions, the names it was kept with.
	Domains(f func(*EscrowDomain) error) error
	// Hosts: Name in A-label form.
	Hosts(f func(*Host) error) error
	Reserved(f func(ReservedName) error) error
	// Blocked calls f with each NNDN object in the blocked state: the name
	// (label.zone, either form) and its originalName.
	Blocked(f func(name, holder string) error) error
}

// EscrowRestoreReport is what a restore did.
type EscrowRestoreReport struct {
	Registrars, Contacts, Domains, Hosts, Reserved int64
	// Legacy lists the names today's policy refuses, kept (as an import
	// with -allow-invalid keeps them): "name: CODE …".
	Legacy []string `json:",omitempty"`
	// Exempted lists the names whose conflict sets meet those of names
	// restored before them, kept exempted with them: "name: with …".
	Exempted []string `json:",omitempty"`
	// Disagreements lists where the conflict sets recomputed from the
	// deposited names differ from the deposit's NNDN objects and recorded
	// exemptions (never dropped silently).
	Disagreements []string `json:",omitempty"`
	// Blocked is the number of NNDN blocked objects the deposit holds,
	// Recomputed the number the restored registry's conflict sets hold.
	Blocked, Recomputed int64
}

// CodeEscrowRestore: a deposit that cannot be restored (into a store that
// is not empty, or an object that contradicts the registry's rules).
const CodeEscrowRestore = "ESCROW_RESTORE"

func init() {
	DefineCode(CodeEscrowRestore, CodeInfo{HTTP: 409, EPP: 2400, Reason: "escrow deposit not restorable"})
}

// maxListed bounds the names a restore report lists of each kind.
const maxListed = 10000

// RestoreEscrow writes a deposit into an empty registry in one
// transaction (nothing is written if any of it is refused): the
// registrars, contacts, domains (in the order they were created, each
// with the conflict set the service computes from its name today, held or
// exempted as an import does: a name the policy refuses is kept as
// legacy, names whose sets meet are kept exempted), reserved names,
// hosts, then the name servers of the domains. Then the NNDN objects of
// the deposit are compared with the conflict sets recomputed: every
// disagreement is listed in the report.
func (s *Service) RestoreEscrow(ctx context.Context, src EscrowSource) (*EscrowRestoreReport, error) {
	es, ok := s.store.(EscrowStore)
	if !ok {
		return nil, Errorf(CodeInternal, "the store keeps no escrow")
	}
	var rep *EscrowRestoreReport
	err := s.store.Atomic(ctx, func(ctx context.Context) error {
		rep = &EscrowRestoreReport{}
		end, err := es.EscrowBulk(ctx)
		if err != nil {
			return err
		}
		defer end()
		if regs, err := s.store.Registrars(ctx); err != nil {
			return err
		} else if len(regs) > 0 {
			return Errorf(CodeEscrowRestore, "the registry is not empty: it has %d registrars (a deposit is restored into an empty registry)", len(regs))
		}
		regIDs := map[string]int64{}
		if err := src.Registrars(func(r EscrowRegistrar) error {
			if _, ok := regIDs[r.Name]; ok {
				return nil // in the deposit of another zone family too
			}
			id, err := es.RestoreRegistrar(ctx, r)
			if err != nil {
				return err
			}
			regIDs[r.Name] = id
			rep.Registrars++
			return nil
		}); err != nil {
			return err
		}
		reg := func(name, what string) (int64, error) {
			id, ok := regIDs[name]
			if !ok {
				return 0, Errorf(CodeEscrowRestore, "%s names registrar %q, which the deposit does not hold", what, name)
			}
			return id, nil
		}
		if err := src.Contacts(func(c *Contact) error {
			id, err := reg(c.Registrar, "contact "+c.ID)
			if err != nil {
				return err
			}
			ok, err := es.RestoreContact(ctx, c, id)
			if ok {
				rep.Contacts++
			}
			return err
		}); err != nil {
			return err
		}
		if err := src.Domains(func(d *EscrowDomain) error {
			return s.escrowDomain(ctx, es, d, reg, rep)
		}); err != nil {
			return err
		}
		if err := src.Reserved(func(r ReservedName) error {
			z, label, err := s.locate(r.Label + "." + r.Zone)
			if err != nil {
				return err
			}
			r.Zone, r.Label = z.Name, label
			rep.Reserved++
			return s.store.Reserve(ctx, r)
		}); err != nil {
			return err
		}
		if err := src.Hosts(func(h *Host) error {
			id, err := reg(h.Registrar, "host "+h.Name)
			if err != nil {
				return err
			}
			h.SuperZone, h.SuperLabel = s.hostSuper(h.Name)
			ok, err := es.RestoreHost(ctx, h, id)
			if ok {
				rep.Hosts++
			}
			return err
		}); err != nil {
			return err
		}
		if err := src.Domains(func(d *EscrowDomain) error {
			if len(d.NameServers) == 0 {
				return nil
			}
			z, label, err := s.locate(d.Name)
			if err != nil {
				return nil // refused in the first pass
			}
			got, err := s.store.DomainState(ctx, z.Name, label)
			if err != nil {
				return err
			}
			return es.RestoreNameServers(ctx, got.ID, d.NameServers)
		}); err != nil {
			return err
		}
		return s.compareBlocked(ctx, src, rep)
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

func (s *Service) escrowDomain(ctx context.Context, es EscrowStore, d *EscrowDomain, reg func(string, string) (int64, error), rep *EscrowRestoreReport) error {
	n, err := s.parseName(d.Name)
	if err != nil {
		return Errorf(CodeEscrowRestore, "domain %s: %v", d.Name, err)
	}
	regID, err := reg(d.Registrar, "domain "+d.Name)
	if err != nil {
		return err
	}
	lang := d.Lang
	if lang != "" && lang != LDH && !slices.Contains(n.zone.Languages, lang) {
		lang = ""
	}
	c, err := s.judge(&n, lang)
	if err != nil && lang != "" {
		c, err = s.judge(&n, "")
	}
	if err != nil {
		return Errorf(CodeEscrowRestore, "domain %s: %v", d.Name, err)
	}
	dom := d.Domain
	dom.Zone = n.zone.Name
	dom.Legacy = nil
	if len(c.errs) == 0 {
		dom.Label, dom.Lang = c.label, c.lang
		dom.Name, dom.ALabel = s.fullName(&c, n.zone)
		dom.Blocks = c.blocks
	} else {
		// kept as legacy: today's policy refuses it
		z, label, err := s.locate(d.Name)
		if err != nil {
			return Errorf(CodeEscrowRestore, "domain %s: %v", d.Name, err)
		}
		a, err := idna.Punycode.ToASCII(label)
		if err != nil {
			return Errorf(CodeEscrowRestore, "domain %s: %v", d.Name, err)
		}
		dom.Label, dom.ALabel, dom.Name = label, a+"."+z.ALabel, label+"."+z.Name
		if dom.Lang == "" || !slices.Contains(z.Languages, dom.Lang) {
			dom.Lang = c.lang
			if dom.Lang == "" && len(z.Languages) > 0 {
				dom.Lang = z.Languages[0]
			}
		}
		for _, e := range c.errs {
			dom.Legacy = append(dom.Legacy, e.Code.String())
		}
		slices.Sort(dom.Legacy)
		dom.Legacy = slices.Compact(dom.Legacy)
		if dom.Blocks, err = s.storedSet(&dom); err != nil {
			return err
		}
		if len(rep.Legacy) < maxListed {
			rep.Legacy = append(rep.Legacy, dom.Name+": "+strings.Join(dom.Legacy, " "))
		}
	}
	if dom.DataVersion == "" {
		dom.DataVersion = s.version
	}
	recorded := d.ExemptWith
	dom.Exempted, dom.ExemptWith = false, nil
	var got *Domain
	if d.Original != "" {
		// a member of a variant group (docs/variants.md, "Same entity"):
		// it joins the group of its original, restored before it (the
		// deposit's domains come in creation order), and the group holds
		// one conflict set, as it did
		got, err = s.escrowJoin(ctx, &dom, d.Original, regID)
	} else {
		got, err = s.store.CreateExemptDomain(ctx, &dom, regID)
	}
	if errors.Is(err, ErrConflict) {
		return Errorf(CodeEscrowRestore, "domain %s: its own label is held by a domain restored before it (two domains of one name)", dom.Name)
	}
	if err != nil {
		return err
	}
	if got.Exempted && len(rep.Exempted) < maxListed {
		rep.Exempted = append(rep.Exempted, dom.Name+": with "+strings.Join(got.ExemptWith, " "))
	}
	if recorded != nil {
		want := slices.Clone(recorded)
		have := slices.Clone(got.ExemptWith)
		slices.Sort(want)
		slices.Sort(have)
		// the deposit records both directions; the restore sees only the
		// earlier names, so compare those it has seen
		var missing []string
		for _, w := range want {
			if !slices.Contains(have, w) && s.restoredBefore(ctx, w) {
				missing = append(missing, w)
			}
		}
		if len(missing) > 0 && len(rep.Disagreements) < maxListed {
			rep.Disagreements = append(rep.Disagreements, fmt.Sprintf("%s: the deposit records it exempted with %s, the recomputed conflict sets do not", dom.Name, strings.Join(missing, " ")))
		}
	}
	st := *d
	st.Domain = dom
	if err := es.RestoreDomainState(ctx, got.ID, &st); err != nil {
		return err
	}
	rep.Domains++
	return nil
}

// escrowJoin restores dom as a member of the variant group of original
// (the group's oldest member, restored before it, of the same registrar).
func (s *Service) escrowJoin(ctx context.Context, dom *Domain, original string, regID int64) (*Domain, error) {
	gs, ok := s.store.(GroupStore)
	if !ok {
		return nil, Errorf(CodeEscrowRestore, "domain %s: the store keeps no variant groups (its originalName is %s)", dom.Name, original)
	}
	z, label, err := s.locate(original)
	if err != nil {
		return nil, Errorf(CodeEscrowRestore, "domain %s: its originalName %s: %v", dom.Name, original, err)
	}
	holder, err := s.store.Domain(ctx, z.Name, label)
	if errors.Is(err, ErrNotFound) {
		return nil, Errorf(CodeEscrowRestore, "domain %s: its originalName %s is not a domain restored before it", dom.Name, original)
	}
	if err != nil {
		return nil, err
	}
	if holder.RegistrarID != regID {
		return nil, Errorf(CodeEscrowRestore, "domain %s: its originalName %s has another sponsor (a variant group has one)", dom.Name, original)
	}
	return gs.JoinGroup(ctx, dom, holder, regID)
}

// restoredBefore reports whether the domain label.zone is in the store.
func (s *Service) restoredBefore(ctx context.Context, name string) bool {
	z, label, err := s.locate(name)
	if err != nil {
		return false
	}
	_, err = s.store.DomainState(ctx, z.Name, label)
	return err == nil
}

// hostSuper returns the superordinate domain of a host in a zone of the
// registry (zone and U-label), or "", "" for a host outside.
func (s *Service) hostSuper(host string) (string, string) {
	labels := strings.Split(strings.TrimSuffix(host, "."), ".")
	if len(labels) < 3 {
		return "", ""
	}
	z, label, err := s.locate(labels[len(labels)-2] + "." + labels[len(labels)-1])
	if err != nil {
		return "", ""
	}
	return z.Name, label
}

// compareBlocked checks each NNDN blocked object of the deposit against
// the restored conflict sets (held, by the domain the deposit names), and
// counts the blocked names the restored sets hold.
func (s *Service) compareBlocked(ctx context.Context, src EscrowSource, rep *EscrowRestoreReport) error {
	disagree := func(format string, args ...any) {
		if len(rep.Disagreements) < maxListed {
			rep.Disagreements = append(rep.Disagreements, fmt.Sprintf(format, args...))
		}
	}
	err := src.Blocked(func(name, holder string) error {
		rep.Blocked++
		z, label, err := s.locate(name)
		if err != nil {
			disagree("NNDN %s: %v", name, err)
			return nil
		}
		d, err := s.store.FindBlocker(ctx, z.Name, []string{label})
		if errors.Is(err, ErrNotFound) {
			disagree("NNDN %s (blocked by %s): no restored conflict set holds it", name, holder)
			return nil
		}
		if err != nil {
			return err
		}
		hz, hl, err := s.locate(holder)
		if err != nil || hz.Name != d.Zone || hl != d.Label {
			disagree("NNDN %s: the deposit says %s holds it, the recomputed conflict sets say %s", name, holder, d.Name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// the blocked names the restored sets hold: each held label under each
	// zone of its family, but the holder's own name
	es := s.store.(EscrowStore)
	for after := int64(0); ; {
		page, err := es.EscrowDomains(ctx, after, 1000)
		if err != nil {
			return err
		}
		if len(page) == 0 {
			break
		}
		for _, d := range page {
			after = d.ID
			members := int64(max(1, len(s.Family(d.Zone))))
			for _, l := range d.Blocks {
				rep.Recomputed += members
				if l == d.Label {
					rep.Recomputed--
				}
			}
		}
	}
	if rep.Recomputed != rep.Blocked {
		disagree("the deposit holds %d blocked names (NNDN), the recomputed conflict sets %d", rep.Blocked, rep.Recomputed)
	}
	return nil
}
