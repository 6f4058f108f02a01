package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/registry"
)

// Syllable is one akshara of an analyzed label, with its code point
// offsets in the U-label.
type Syllable struct {
	Text  string `json:"text"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// Analysis is everything the web page shows about a label in a zone.
type Analysis struct {
	Label     string           `json:"label"`
	Zone      string           `json:"zone"`
	Lang      string           `json:"lang"`  // the language the result is in
	Langs     []string         `json:"langs"` // the zone's languages that accept the label
	Valid     bool             `json:"valid"`
	ULabel    string           `json:"ulabel"`
	ALabel    string           `json:"alabel"`
	Syllables []Syllable       `json:"syllables"`
	Errors    []*akshara.Error `json:"errors"`
	Variants  []string         `json:"variants"`
	Status    registry.Status  `json:"status"`
	BlockedBy string           `json:"blocked_by,omitempty"`
	// HolderState and FreesAt: the name, or the variant that blocks it, is
	// held by a deleted domain not purged yet (redemptionPeriod,
	// pendingRestore or pendingDelete) until FreesAt, as /v1/check says.
	HolderState string    `json:"holder_state,omitempty"`
	FreesAt     time.Time `json:"frees_at,omitzero"`
	// Exempted: the name is registered and kept with the domains of
	// ExemptWith, which it conflicts with (docs/import.md).
	Exempted   bool     `json:"exempted,omitempty"`
	ExemptWith []string `json:"exempt_with,omitempty"`
	// DataVersion is the policy data version of the verdict.
	DataVersion string `json:"data_version"`
}

// analyze: GET /v1/analyze?label=&zone=&lang= (lang empty or auto: every
// language of the zone).
func (s *Server) analyze(w http.ResponseWriter, r *http.Request) error {
	label, err := s.param(r, "label")
	if err != nil {
		return err
	}
	zoneName, err := s.param(r, "zone")
	if err != nil {
		return err
	}
	lang, err := s.param(r, "lang")
	if err != nil {
		return err
	}
	if lang == "auto" {
		lang = ""
	}
	if zoneName == "" {
		return registry.Errorf(CodeBadParam, "analyze takes a label and a zone: ?label=किताब&zone=भारत (for a whole name use /v1/check?name=)")
	}
	var zone *registry.Zone
	for _, z := range s.svc.Zones() {
		if z.Name == zoneName || z.ALabel == strings.ToLower(zoneName) {
			z := z
			zone = &z
		}
	}
	if zone == nil {
		return registry.Errorf(registry.CodeUnknownZone, "there is no zone %q", zoneName)
	}
	a := &Analysis{Label: label, Zone: zone.Name, Langs: []string{}, Syllables: []Syllable{}, Errors: []*akshara.Error{}, Variants: []string{}, DataVersion: s.svc.DataVersion()}
	if label == "" {
		return writeJSON(w, http.StatusOK, a)
	}
	// a plain ASCII label in a zone that takes them is judged by the .in
	// rules, as check and create judge it
	if zone.LDH && (lang == "" || lang == registry.LDH) && isLDHCandidate(label) || lang == registry.LDH {
		res, err := s.svc.Check(r.Context(), label+"."+zone.Name, registry.LDH)
		if err != nil {
			return err
		}
		a.fromCheck(res)
		a.Lang, a.Valid, a.Errors = registry.LDH, res.Status != registry.Invalid, res.Errors
		if a.Valid {
			a.Langs = []string{registry.LDH}
			a.ULabel, a.ALabel = strings.TrimSuffix(res.ULabel, "."+zone.Name), strings.TrimSuffix(res.ALabel, "."+zone.ALabel)
			a.Syllables = []Syllable{{Text: a.ULabel, Start: 0, End: len(a.ULabel)}}
		}
		return writeJSON(w, http.StatusOK, a)
	}
	// the result in each candidate language: the first that accepts, or the
	// one that finds least wrong
	var best *akshara.Result
	for _, tag := range zone.Languages {
		if lang != "" && !strings.EqualFold(tag, lang) {
			continue
		}
		l, err := akshara.Lookup(tag)
		if err != nil {
			continue
		}
		res := l.CheckOptions(label, akshara.Options{MinLength: zone.MinLength})
		if res.Valid {
			a.Langs = append(a.Langs, l.Tag)
		}
		if best == nil || (res.Valid && !best.Valid) || (!best.Valid && !res.Valid && len(res.Errors) < len(best.Errors)) {
			best = res
		}
	}
	if best == nil {
		return registry.Errorf(registry.CodeUnknownLanguage, "zone %s does not take language %q", zone.Name, lang)
	}
	a.Lang, a.Valid, a.ULabel, a.ALabel, a.Errors = best.Lang, best.Valid, best.ULabel, best.ALabel, best.Errors
	a.Syllables = offsets(best.ULabel, best.Syllables)
	a.Status = registry.Invalid
	if a.Valid {
		res, err := s.svc.Check(r.Context(), a.ULabel+"."+zone.Name, a.Lang)
		if err != nil {
			return err
		}
		a.fromCheck(res)
	}
	return writeJSON(w, http.StatusOK, a)
}

// fromCheck puts the registry's answer for the label (the check of
// label.zone, as /v1/check answers it) into the analysis: its status,
// the domain that blocks it, the holder's state and when it frees the
// name, the variants and the exemption. The one place analyze reads a
// check, for plain and IDN labels alike.
func (a *Analysis) fromCheck(res *registry.CheckResult) {
	a.Status, a.BlockedBy, a.Variants = res.Status, res.BlockedBy, res.Variants
	a.Exempted, a.ExemptWith = res.Exempted, res.ExemptWith
	a.HolderState, a.FreesAt = res.HolderState, time.Time{}
	if res.HolderState != "" {
		a.FreesAt = res.FreesAt.UTC() // as appendCheckResult writes it
	}
}

// offsets places the syllables (which leave out hyphens) in the U-label.
func offsets(ulabel string, syllables []string) []Syllable {
	rs := []rune(ulabel)
	out := []Syllable{}
	pos := 0
	for _, s := range syllables {
		n := len([]rune(s))
		for pos < len(rs) && !strings.HasPrefix(string(rs[pos:]), s) {
			pos++
		}
		out = append(out, Syllable{Text: s, Start: pos, End: pos + n})
		pos += n
	}
	return out
}

// isLDHCandidate reports whether a label is plain ASCII and not an A-label.
func isLDHCandidate(label string) bool {
	for i := 0; i < len(label); i++ {
		if label[i] >= 0x80 {
			return false
		}
	}
	return !(len(label) >= 4 && strings.EqualFold(label[:4], "xn--"))
}
