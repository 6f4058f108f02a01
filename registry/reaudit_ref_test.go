package registry

import (
	"context"
	"fmt"
	"slices"
	"sort"
)

// ReferenceReauditor is the store interface of the re-audit as it was
// before it streamed (the whole zone in memory): kept, with ReauditWhole,
// as the reference the streaming code is compared with
// (TestReauditSameAsWhole).
type ReferenceReauditor interface {
	ZoneDomains(ctx context.Context, zone string) ([]*Domain, error)
	ApplyWhole(ctx context.Context, zone, relation string, domains []*Domain) error
}

// ReauditWhole is Reaudit as it was before it streamed.
func (s *Service) ReauditWhole(ctx context.Context, ra ReferenceReauditor, apply bool, found func(*ReauditFinding) error) (*ReauditSummary, error) {
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
				set = s.legacySet(z, d.Label, d.Lang)
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
			if err := ra.ApplyWhole(ctx, z.Name, relation, ds); err != nil {
				return nil, fmt.Errorf("applying: %w", err)
			}
		}
	}
	sum.ByCode = countList(codes)
	sum.Applied = apply
	return sum, nil
}
