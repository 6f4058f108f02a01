package akshara

import (
	"fmt"
	"strings"
)

// Who may hold a name's variants (docs/variants.md, "Same entity"): the
// zones file's `variants` line. India's policy blocks a registered name's
// variants for everyone ("first use … shall automatically disallow the
// other"): that is `block`, the default. ICANN's policy for variant TLDs
// (EPDP Phase 2, the "same entity" principle) gives a label under every
// TLD of a variant family to one entity: `same-entity` lets the holder of
// a name register a variant of it, for the same registrant and through the
// same registrar, as a member of the holder's variant group; to everyone
// else the variant stays blocked.

// The variant policies.
const (
	VariantsBlock      = "block"       // blocked for everyone (the default)
	VariantsSameEntity = "same-entity" // the holder's registrant may register it, in the holder's variant group
)

// VariantPolicy is a zone's (a family's) variant policy, by the kind of
// variant: SameLabel is the same label under another member TLD of the
// zone's family (কিতাব.ভাৰত for কিতাব.ভারত); Other is every other variant
// (a variant label under the variant tables or the family's own rows, a
// cross-script twin). Each is VariantsBlock or VariantsSameEntity; the
// zero value blocks both.
type VariantPolicy struct {
	SameLabel string
	Other     string
}

// Of returns the policy of a variant kind: sameLabel for the same label
// under another member TLD, else the other variants'.
func (p VariantPolicy) Of(sameLabel bool) string {
	v := p.Other
	if sameLabel {
		v = p.SameLabel
	}
	if v == "" {
		return VariantsBlock
	}
	return v
}

// Any reports whether a variant of some kind may be registered by the
// holder's registrant (a check or create then looks for a holder first).
func (p VariantPolicy) Any() bool {
	return p.Of(true) == VariantsSameEntity || p.Of(false) == VariantsSameEntity
}

// String is the policy as the zones file writes it.
func (p VariantPolicy) String() string {
	a, b := p.Of(true), p.Of(false)
	if a == b {
		return a
	}
	return "same-label=" + a + " other=" + b
}

// ParseVariantPolicy parses a `variants` line's fields: one policy for
// every kind (`variants block`), or KIND=POLICY for the kinds same-label
// and other (`variants same-label=same-entity other=block`); a kind not
// named is block.
func ParseVariantPolicy(fields []string) (VariantPolicy, error) {
	var p VariantPolicy
	check := func(v string) error {
		if v != VariantsBlock && v != VariantsSameEntity {
			return fmt.Errorf("%q is not a variant policy (%s or %s)", v, VariantsBlock, VariantsSameEntity)
		}
		return nil
	}
	if len(fields) == 0 {
		return p, fmt.Errorf("want %s, %s, or KIND=POLICY for the kinds same-label and other", VariantsBlock, VariantsSameEntity)
	}
	if len(fields) == 1 && !strings.Contains(fields[0], "=") {
		if err := check(fields[0]); err != nil {
			return p, err
		}
		return VariantPolicy{SameLabel: fields[0], Other: fields[0]}, nil
	}
	p = VariantPolicy{SameLabel: VariantsBlock, Other: VariantsBlock}
	seen := map[string]bool{}
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return VariantPolicy{}, fmt.Errorf("want KIND=POLICY, got %q", f)
		}
		if err := check(v); err != nil {
			return VariantPolicy{}, err
		}
		if seen[k] {
			return VariantPolicy{}, fmt.Errorf("kind %s given twice", k)
		}
		seen[k] = true
		switch k {
		case "same-label":
			p.SameLabel = v
		case "other":
			p.Other = v
		default:
			return VariantPolicy{}, fmt.Errorf("unknown variant kind %q (same-label, other)", k)
		}
	}
	return p, nil
}
