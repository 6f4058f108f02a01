package registry

import (
	"context"
	"fmt"
	"slices"
	"sort"
)

// Reauditor is implemented by stores that can list a zone's domains with
// their stored conflict sets and rebuild them (package internal/sqlstore).
type Reauditor interface {
	// ZoneDomains returns the domains of a zone in ID order, each with its
	// whole stored conflict set (Blocks), Exempted and ExemptWith.
	ZoneDomains(ctx context.Context, zone string) ([]*Domain, error)
	// ApplyReaudit rebuilds, in one transaction, the zone's conflict sets
	// and exemptions from domains (Blocks: the new sets; in ID order, the
	// earlier domain holds a shared label and the later is exempted with
	// it), records each domain's DataVersion and Legacy, and records
	// relation as the conflict relation the sets were computed under.
	ApplyReaudit(ctx context.Context, zone, relation string, domains []*Domain) error
}

// ReauditFinding is a registered domain that the current data judge
// otherwise than the stored record.
type ReauditFinding struct {
	Name      string `json:"name"`
	Zone      string `json:"zone"`
	Lang      string `json:"lang"`
	Registrar string `json:"registrar"`
	// JudgedUnder is the data version the domain was last judged under.
	JudgedUnder string `json:"judged_under"`
	// Invalid: the current policy refuses the name; Codes says why (for a
	// legacy name, only if its codes changed).
	Invalid bool     `json:"invalid"`
	Codes   []string `json:"codes,omitempty"`
	// ConflictsWith lists the domains it conflicts with now and was not
	// exempted with (label.zone).
	ConflictsWith []string `json:"conflicts_with,omitempty"`
	// SetAdded and SetRemoved are the changes of its conflict set.
	SetAdded   []string `json:"set_added,omitempty"`
	SetRemoved []string `json:"set_removed,omitempty"`
}

// ReauditSummary counts what a re-audit found.
type ReauditSummary struct {
	DataVersion string      `json:"data_version"`
	Relation    string      `json:"relation"`
	Domains     int         `json:"domains"`
	Invalid     int         `json:"invalid"`
	Conflicting int         `json:"conflicting"`
	Changed     int         `json:"changed"`
	ByCode      []CodeCount `json:"invalid_by_code"`
	Applied     bool        `json:"applied"`
}

// Reaudit judges every registered domain again under the service's data
// and calls found for each domain that has become invalid, newly
// conflicts or whose conflict set changed. With apply, the new conflict
// sets and exemptions (domains that now conflict are kept, exempted with
// each other), data versions and legacy codes are recorded, in one
// transaction per zone.
func (s *Service) Reaudit(ctx context.Context, apply bool, found func(*ReauditFinding) error) (*ReauditSummary, error) {
	ra, ok := s.store.(Reauditor)
	if !ok {
		return nil, fmt.Errorf("the store cannot re-audit")
	}
	relation, err := s.RelationVersion()
	if err != nil {
		return nil, err
	}
	sum := &ReauditSummary{DataVersion: s.version, Relation: relation}
	codes := map[string]int64{}
	for i := range s.list {
		z := &s.list[i]
		ds, err := ra.ZoneDomains(ctx, z.Name)
		if err != nil {
			return nil, err
		}
		findings := make([]*ReauditFinding, len(ds))
		newSets := make([][]string, len(ds))
		holders := map[string][]int{} // label -> indexes of the domains whose new set has it
		for k, d := range ds {
			f := &ReauditFinding{Name: d.Name, Zone: d.Zone, Lang: d.Lang, Registrar: d.Registrar, JudgedUnder: d.DataVersion}
			findings[k] = f
			set := []string{d.Label}
			c, err := s.judge(&name{input: d.Name, label: d.Label, zone: z}, d.Lang)
			switch {
			case err != nil:
				f.Codes = []string{CodeOf(err)}
			case len(c.errs) > 0:
				for _, e := range c.errs {
					f.Codes = append(f.Codes, e.Code.String())
				}
			default:
				set = append([]string(nil), c.blocks...)
			}
			sort.Strings(set)
			newSets[k] = set
			for _, l := range set {
				holders[l] = append(holders[l], k)
			}
			if len(f.Codes) > 0 && !slices.Equal(f.Codes, d.Legacy) {
				f.Invalid = true
			}
		}
		for k, d := range ds {
			f := findings[k]
			var others []int
			for _, l := range newSets[k] {
				for _, o := range holders[l] {
					if o != k && !slices.Contains(others, o) {
						others = append(others, o)
					}
				}
			}
			sort.Ints(others)
			for _, o := range others {
				if !slices.Contains(d.ExemptWith, ds[o].Name) {
					f.ConflictsWith = append(f.ConflictsWith, ds[o].Name)
				}
			}
			f.SetAdded, f.SetRemoved = setDiff(newSets[k], d.Blocks)
			sum.Domains++
			if f.Invalid {
				sum.Invalid++
				for _, c := range f.Codes {
					codes[c]++
				}
			}
			if len(f.ConflictsWith) > 0 {
				sum.Conflicting++
			}
			if len(f.SetAdded)+len(f.SetRemoved) > 0 {
				sum.Changed++
			}
			if f.Invalid || len(f.ConflictsWith)+len(f.SetAdded)+len(f.SetRemoved) > 0 {
				if err := found(f); err != nil {
					return nil, err
				}
			}
		}
		if apply && len(ds) > 0 {
			for k, d := range ds {
				d.Blocks, d.DataVersion, d.Legacy = newSets[k], s.version, findings[k].Codes
			}
			if err := ra.ApplyReaudit(ctx, z.Name, relation, ds); err != nil {
				return nil, err
			}
		}
	}
	sum.ByCode = countList(codes)
	sum.Applied = apply
	return sum, nil
}

// setDiff returns the labels of a not in b and of b not in a (both sorted).
func setDiff(a, b []string) (added, removed []string) {
	for _, l := range a {
		if !slices.Contains(b, l) {
			added = append(added, l)
		}
	}
	for _, l := range b {
		if !slices.Contains(a, l) {
			removed = append(removed, l)
		}
	}
	return added, removed
}
