package registry

import "strings"

// BlockedVariants returns the names (label.zone, U-labels) that d blocks:
// the members of its conflict set but itself and the domains it is
// exempted with (which are registered, ExemptWith). Front ends that
// explain a domain's variants (WHOIS) list these.
func (d *Domain) BlockedVariants() []string {
	exempt := map[string]bool{}
	for _, o := range d.ExemptWith {
		if label, z, _ := strings.Cut(o, "."); z == d.Zone {
			exempt[label] = true
		}
	}
	var out []string
	for _, b := range d.Blocks {
		if b == d.Label || exempt[b] {
			continue
		}
		out = append(out, b+"."+d.Zone)
	}
	return out
}
