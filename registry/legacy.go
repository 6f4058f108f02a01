package registry

import (
	"slices"
	"strings"
	"unicode"
)

// visible returns label without its invisible format characters (Unicode
// Cf: the zero-width joiner and non-joiner, the zero-width space, the
// bidi marks, the soft hyphen, U+FEFF).
func visible(label string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, label)
}

// legacySet is the conflict set of a legacy name (one the policy refuses,
// kept by an import with AllowInvalid): its own label and, if it has
// invisible format characters (सागर + ZWJ), the label that shows the same
// without them and, if the policy accepts that label in lang, its
// conflict set: the name a customer sees stays held (issue 21). Sorted.
func (s *Service) legacySet(z *Zone, label, lang string) []string {
	set := []string{label}
	v := visible(label)
	if v == label || v == "" || z == nil {
		return set
	}
	set = append(set, v)
	if c, err := s.judge(&name{input: v + "." + z.Name, label: v, zone: z}, lang); err == nil && len(c.errs) == 0 {
		set = append(set, c.blocks...)
	}
	slices.Sort(set)
	return slices.Compact(set)
}
