package akshara

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
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
			zones = append(zones, ZoneSpec{Name: f[1]})
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
		default:
			return nil, errf("unknown setting %q (languages, ldh, source, max-nameservers)", f[0])
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
	return zones, nil
}
