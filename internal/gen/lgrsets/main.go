// Command lgrsets extracts, for each Indic script and the Arabic script, the code points of
// ICANN's Root Zone LGR (RZ-LGR-5) and second-level reference LGR (RFC 7940
// XML, in ../shared/refdata) into testdata/lgr/<Script>.txt, so that the
// LGR cross-check test needs no file outside the repository.
//
//	go run ./internal/gen/lgrsets -refdata ../shared/refdata -out testdata/lgr
//
// A code point is listed with "rz" and/or "sl" when the LGR has it as a
// character of its own, and with "rz-seq"/"sl-seq" when it occurs only in
// sequences (such as ऱ in ऱ्य). ASCII digits and the hyphen are left out
// (every label may use them), and so are ZWJ/ZWNJ and other scripts' code
// points, which the LGRs list only as parts of sequences or cross-script
// variants.
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
	"unicode"

	"github.com/akshara-idn/akshara/internal/inputdir"
)

type lgr struct {
	Meta struct {
		Version string `xml:"version"`
		Date    string `xml:"date"`
	} `xml:"meta"`
	Chars []struct {
		CP string `xml:"cp,attr"`
	} `xml:"data>char"`
	Ranges []struct {
		First string `xml:"first-cp,attr"`
		Last  string `xml:"last-cp,attr"`
	} `xml:"data>range"`
}

func main() {
	refdata := flag.String("refdata", "", "folder of the reference LGRs (required; for example ../shared/refdata)")
	out := flag.String("out", "testdata/lgr", "output folder")
	flag.Parse()
	if err := inputdir.Require("refdata", *refdata, "the folder of ICANN's reference LGRs (icann-lgr-django/...)"); err != nil {
		log.Fatal(err)
	}
	scripts := map[string]string{
		"Beng": "bengali", "Deva": "devanagari", "Gujr": "gujarati", "Guru": "gurmukhi",
		"Knda": "kannada", "Mlym": "malayalam", "Orya": "oriya", "Taml": "tamil", "Telu": "telugu",
		"Arab": "arabic",
	}
	tables := map[string]*unicode.RangeTable{
		"Beng": unicode.Bengali, "Deva": unicode.Devanagari, "Gujr": unicode.Gujarati, "Guru": unicode.Gurmukhi,
		"Knda": unicode.Kannada, "Mlym": unicode.Malayalam, "Orya": unicode.Oriya, "Taml": unicode.Tamil, "Telu": unicode.Telugu,
		"Arab": unicode.Arabic,
	}
	for code, name := range scripts {
		own := tables[code]
		rz := filepath.Join(*refdata, "icann-lgr-django/root-zone-lgr-5", "lgr-5-"+name+"-script-26may22-en.xml")
		sl := filepath.Join(*refdata, "icann-lgr-django/second-level-reference-lgr", "lgr-second-level-"+name+"-script-31may22-en.xml")
		flags := map[rune][]string{}
		var sources []string
		for _, src := range []struct{ tag, file string }{{"rz", rz}, {"sl", sl}} {
			single, inSeq, meta, err := read(src.file, own)
			if err != nil {
				log.Fatal(err)
			}
			sources = append(sources, fmt.Sprintf("# %s: %s (%s)", src.tag, filepath.Base(src.file), meta))
			for r := range single {
				flags[r] = append(flags[r], src.tag)
			}
			for r := range inSeq {
				if !single[r] {
					flags[r] = append(flags[r], src.tag+"-seq")
				}
			}
		}
		var cps []rune
		for r := range flags {
			cps = append(cps, r)
		}
		sort.Slice(cps, func(i, j int) bool { return cps[i] < cps[j] })
		var b strings.Builder
		fmt.Fprintf(&b, "# Code points of ICANN's LGRs for the %s script, extracted by internal/gen/lgrsets.\n", code)
		b.WriteString("# rz = Root Zone LGR 5, sl = second-level reference LGR; -seq = only inside sequences.\n")
		for _, s := range sources {
			b.WriteString(s + "\n")
		}
		for _, r := range cps {
			fmt.Fprintf(&b, "U+%04X %s\n", r, strings.Join(flags[r], " "))
		}
		if err := os.WriteFile(filepath.Join(*out, code+".txt"), []byte(b.String()), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

// read returns the LGR's code points of the script own (or Common and
// Inherited, such as U+02BC): the LGR's other-script characters are
// cross-script variants, not its repertoire.
func read(file string, own *unicode.RangeTable) (single, inSeq map[rune]bool, meta string, err error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, "", err
	}
	var doc lgr
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, nil, "", fmt.Errorf("%s: %v", file, err)
	}
	single, inSeq = map[rune]bool{}, map[rune]bool{}
	parse := func(h string) rune {
		n, err := strconv.ParseUint(h, 16, 32)
		if err != nil {
			log.Fatalf("%s: bad code point %q", file, h)
		}
		return rune(n)
	}
	keep := func(r rune) bool {
		return r >= 0x80 && unicode.In(r, own, unicode.Common, unicode.Inherited) && r != 0x200C && r != 0x200D
	}
	for _, c := range doc.Chars {
		cps := strings.Fields(c.CP)
		if len(cps) == 1 {
			if r := parse(cps[0]); keep(r) {
				single[r] = true
			}
			continue
		}
		for _, h := range cps {
			if r := parse(h); keep(r) {
				inSeq[r] = true
			}
		}
	}
	for _, rg := range doc.Ranges {
		for r := parse(rg.First); r <= parse(rg.Last); r++ {
			if keep(r) {
				single[r] = true
			}
		}
	}
	return single, inSeq, "version " + doc.Meta.Version + ", " + doc.Meta.Date, nil
}
