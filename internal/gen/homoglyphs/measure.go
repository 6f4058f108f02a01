package main

import (
	"bufio"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/akshara-idn/akshara"
)

// measure reports, over the word lists *.txt of a directory, how far the
// compiled-in table is from a closed relation in zone `in` (issue 21):
// the pairs of valid labels Y, Z where Y is a word of the lists and Z an
// image of an image of Y (through a third label X of another script, any
// X, valid or not) that do not conflict, so that two registrars can hold
// them. A closed table has none: Z is then an image of Y itself.
//
//	go run ./internal/gen/homoglyphs -measure ../shared/corpora [-v]
func measure(dir string, verbose bool) {
	zones, err := akshara.DefaultZones()
	if err != nil {
		log.Fatal(err)
	}
	var tags []string
	ldh := false
	for _, z := range zones {
		if z.Name == "in" {
			tags, ldh = z.Languages, z.LDH
		}
	}
	z, err := akshara.NewZoneRelation(tags)
	if err != nil {
		log.Fatal(err)
	}
	if ldh {
		z = z.WithLDH()
	}
	h, err := akshara.DefaultHomoglyphs()
	if err != nil {
		log.Fatal(err)
	}
	var scripts []string
	for _, l := range z.Languages("") {
		if !containsString(scripts, l.Script) {
			scripts = append(scripts, l.Script)
		}
	}
	valid := func(u string) bool {
		for _, l := range z.Languages(akshara.ScriptOf(u)) {
			if l.Valid(u) {
				return true
			}
		}
		return false
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(files) == 0 {
		log.Fatalf("%s: no word lists (*.txt)", dir)
	}
	seen := map[string]bool{}
	var words []string
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			log.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			if w := strings.TrimSpace(sc.Text()); w != "" && !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
		fh.Close()
	}
	sets := map[string]map[string]bool{}
	set := func(u string) map[string]bool {
		if s, ok := sets[u]; ok {
			return s
		}
		cs, _ := z.ConflictSet(u)
		s := map[string]bool{}
		for _, x := range cs {
			s[x] = true
		}
		sets[u] = s
		return s
	}
	conflict := func(a, b string) bool {
		for x := range set(a) {
			if set(b)[x] {
				return true
			}
		}
		return false
	}
	open := map[[2]string]string{} // the pair -> the third label
	checked := 0
	for _, y := range words {
		from := akshara.ScriptOf(y)
		if from == "" || !valid(y) {
			continue
		}
		for _, t := range scripts {
			if t == from {
				continue
			}
			for _, x := range h.Images(y, from, t, 64) {
				for _, s := range scripts {
					if s == t {
						continue
					}
					for _, w := range h.Images(x, t, s, 64) {
						if w == y || !valid(w) {
							continue
						}
						checked++
						k := [2]string{min(y, w), max(y, w)}
						if _, ok := open[k]; !ok && !conflict(y, w) {
							open[k] = x
						}
					}
				}
			}
		}
	}
	var keys [][2]string
	for k := range open {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1] })
	if verbose {
		for _, k := range keys {
			fmt.Printf("%s\t%s\tthrough %s\n", k[0], k[1], open[k])
		}
	}
	fmt.Printf("%d words; %d labels alike through a third label; %d pairs of them do not conflict (%d labels registrable by two registrars)\n",
		len(words), checked, len(keys), 2*len(keys))
}

func containsString(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
