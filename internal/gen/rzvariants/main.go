// Command rzvariants extracts from ICANN's Root Zone LGR (RZ-LGR-5, the
// Common LGR of all scripts with their cross-script variants, RFC 7940
// XML in ../shared/refdata) the variant mappings that can relate the names
// of the zones akshara serves (zones/zones.txt): those whose source and
// target code points all occur in the zones' names. TestZoneFamilies reads
// the table to find every pair of zones whose names are variants, so that
// the test needs no file outside the repository.
//
//	go run ./internal/gen/rzvariants -refdata ../shared/refdata -out testdata/lgr/rz-variants.txt
//
// A line is `SOURCE > TARGET TYPE`, each side U+XXXX code points joined
// by "+" (a sequence).
package main

import (
	"encoding/xml"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/internal/inputdir"
)

// Common is the Root Zone LGR file read, relative to -refdata.
const Common = "icann-lgr-django/root-zone-lgr-5/lgr-5-common-26may22-en.xml"

type lgr struct {
	Meta struct {
		Version string `xml:"version"`
		Date    string `xml:"date"`
	} `xml:"meta"`
	Chars []struct {
		CP   string `xml:"cp,attr"`
		Vars []struct {
			CP   string `xml:"cp,attr"`
			Type string `xml:"type,attr"`
		} `xml:"var"`
	} `xml:"data>char"`
}

func main() {
	refdata := flag.String("refdata", "", "folder of the reference LGRs (required; for example ../shared/refdata)")
	zonesFile := flag.String("zones", "zones/zones.txt", "the zones file")
	out := flag.String("out", "testdata/lgr/rz-variants.txt", "output file")
	flag.Parse()
	if err := inputdir.Require("refdata", *refdata, "the folder of ICANN's reference LGRs (icann-lgr-django/...)"); err != nil {
		log.Fatal(err)
	}
	table, err := Generate(filepath.Join(*refdata, Common), *zonesFile)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, table, 0o644); err != nil {
		log.Fatal(err)
	}
}

// Generate returns the table for the LGR file and the zones file.
func Generate(lgrFile, zonesFile string) ([]byte, error) {
	zdata, err := os.ReadFile(zonesFile)
	if err != nil {
		return nil, err
	}
	zones, err := akshara.ParseZones(zonesFile, zdata)
	if err != nil {
		return nil, err
	}
	inNames := map[rune]bool{}
	for _, z := range zones {
		for _, r := range z.Name {
			inNames[r] = true
		}
	}
	data, err := os.ReadFile(lgrFile)
	if err != nil {
		return nil, err
	}
	var doc lgr
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", lgrFile, err)
	}
	// every code point of a sequence in the zones' names
	relevant := func(seq string) (string, bool) {
		var parts []string
		for _, h := range strings.Fields(seq) {
			n, err := strconv.ParseUint(h, 16, 32)
			if err != nil || !inNames[rune(n)] {
				return "", false
			}
			parts = append(parts, fmt.Sprintf("U+%04X", n))
		}
		return strings.Join(parts, "+"), len(parts) > 0
	}
	var lines []string
	for _, c := range doc.Chars {
		from, ok := relevant(c.CP)
		if !ok {
			continue
		}
		for _, v := range c.Vars {
			if to, ok := relevant(v.CP); ok {
				lines = append(lines, from+" > "+to+" "+v.Type)
			}
		}
	}
	sort.Strings(lines)
	var b strings.Builder
	fmt.Fprintf(&b, "# Variant mappings of ICANN's Root Zone LGR among the code points of the\n")
	fmt.Fprintf(&b, "# zones' names (zones/zones.txt), extracted by internal/gen/rzvariants from\n")
	fmt.Fprintf(&b, "# %s (version %s, %s).\n", filepath.Base(lgrFile), doc.Meta.Version, doc.Meta.Date)
	fmt.Fprintf(&b, "# SOURCE > TARGET TYPE; a sequence's code points are joined by +.\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return []byte(b.String()), nil
}
