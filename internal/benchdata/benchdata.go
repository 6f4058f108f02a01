// Package benchdata is the label mix the project's benchmarks and the
// bench/ harness measure: the Hindi words of testdata/bench/hi-words.txt
// (written for this project, not a corpus) and, for every third word, an
// invalid label derived from it by one of the mistakes the policy refuses.
package benchdata

import (
	"bufio"
	"os"
)

// Corruptions are the mistakes the mix derives invalid labels with.
var Corruptions = []func(string) string{
	func(w string) string { return "\u093F" + w },                   // leading matra
	func(w string) string { return w + "\u0964" },                   // danda
	func(w string) string { return w[:3] + "\u200D" + w[3:] },       // ZWJ
	func(w string) string { return w + "a" },                        // Latin letter
	func(w string) string { return w + "\u0902\u0902" },             // two anusvaras
	func(w string) string { return w + "त्त्त" },                    // three identical consonants
	func(w string) string { return "-" + w },                        // leading hyphen
	func(w string) string { return w + "\u094D\u0905" },             // vowel after halant
	func(w string) string { return w + "\u0933" },                   // letter outside the table
	func(w string) string { return w[:3] + "\u0967\u0968" + w[3:] }, // native digits
}

// Hindi reads the words file (testdata/bench/hi-words.txt) and returns the
// mix and the words alone.
func Hindi(path string) (mix, words []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for i := 0; sc.Scan(); i++ {
		w := sc.Text()
		words = append(words, w)
		mix = append(mix, w)
		if i%3 == 0 {
			mix = append(mix, Corruptions[(i/3)%len(Corruptions)](w))
		}
	}
	return mix, words, sc.Err()
}

// Lines reads a word list, one label a line.
func Lines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if t := sc.Text(); t != "" {
			out = append(out, t)
		}
	}
	return out, sc.Err()
}
