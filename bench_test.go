package akshara

import (
	"bufio"
	"math/rand"
	"os"
	"strings"
	"testing"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"

	"github.com/akshara-idn/akshara/internal/benchdata"
)

// benchLabels is the benchmark mix (internal/benchdata): the Hindi words
// of testdata/bench/hi-words.txt and, for every third word, an invalid
// label derived from it by one of the mistakes the policy refuses.
func benchLabels(tb testing.TB) (mix, valid []string) {
	mix, valid, err := benchdata.Hindi("testdata/bench/hi-words.txt")
	if err != nil {
		tb.Fatal(err)
	}
	return mix, valid
}

func TestBenchSample(t *testing.T) {
	hi := mustLang(t, "hi")
	mix, valid := benchLabels(t)
	if len(valid) < 2000 {
		t.Fatalf("only %d words in the sample", len(valid))
	}
	// Every sample word is valid Hindi but for the 2-letter ones, which
	// the .in minimum length refuses.
	short := 0
	for _, w := range valid {
		res := hi.Check(w)
		if !res.Valid {
			if got := codesOf(res); len(got) != 1 || got[0] != "TOO_SHORT@0" {
				t.Errorf("sample word %q (%s) refused: %v", w, hexOf(w), got)
			}
			short++
		}
	}
	if short > len(valid)/50 {
		t.Errorf("%d of %d sample words are too short", short, len(valid))
	}
	invalid := 0
	for _, l := range mix {
		if !hi.Valid(l) {
			invalid++
		}
	}
	if invalid < len(mix)/5 {
		t.Errorf("only %d of %d labels of the mix are invalid", invalid, len(mix))
	}
}

// wordLike returns up to n valid NFC labels of the language built like
// words: syllables of a consonant (with its nukta where the language gives
// it one), a vowel sign and sometimes a sign or a conjunct, or an
// independent vowel; plus the language's valid examples. Deterministic, and
// made from the language file only.
func wordLike(l *Language, n int) []string {
	var byClass [numClasses][]rune
	var nuktaBases []rune
	for _, m := range l.Repertoire() {
		byClass[m.Class] = append(byClass[m.Class], m.Rune)
		if off := m.Rune - l.block; off >= 0 && off < 128 && l.kinds[off].nuktaBase() {
			nuktaBases = append(nuktaBases, m.Rune)
		}
	}
	rng := rand.New(rand.NewSource(7))
	pick := func(c Class) string {
		if len(byClass[c]) == 0 {
			return ""
		}
		return string(byClass[c][rng.Intn(len(byClass[c]))])
	}
	consonant := func() string {
		if len(nuktaBases) > 0 && len(byClass[N]) > 0 && rng.Intn(4) == 0 {
			return string(nuktaBases[rng.Intn(len(nuktaBases))]) + pick(N)
		}
		return pick(C)
	}
	var out []string
	for _, ex := range l.Examples() {
		if ex.Kind == "valid" && l.Valid(ex.Text) && norm.NFC.IsNormalString(ex.Text) {
			out = append(out, ex.Text)
		}
	}
	for tries := 0; len(out) < n && tries < 50*n; tries++ {
		var b strings.Builder
		for s, syl := 0, 2+rng.Intn(4); s < syl; s++ {
			if s == 0 && rng.Intn(5) == 0 {
				b.WriteString(pick(V))
				continue
			}
			b.WriteString(consonant())
			if rng.Intn(4) == 0 && len(byClass[H]) > 0 {
				b.WriteString(pick(H) + pick(C))
			}
			if rng.Intn(3) > 0 {
				b.WriteString(pick(M))
			}
			if rng.Intn(6) == 0 {
				b.WriteString(pick(D))
			}
		}
		if w := b.String(); l.Valid(w) && norm.NFC.IsNormalString(w) {
			out = append(out, w)
		}
	}
	return out
}

// TestValidDoesNotAllocate: the verdict-only path allocates nothing for a
// valid NFC label (the zero-allocation target of the engine), in every
// language: the Hindi sample, and word-like labels of each language
// (wordLike), which must also all be on the fast path.
func TestValidDoesNotAllocate(t *testing.T) {
	hi := mustLang(t, "hi")
	_, valid := benchLabels(t)
	allocs := testing.AllocsPerRun(5, func() {
		for _, w := range valid {
			hi.Valid(w)
		}
	})
	if allocs != 0 {
		t.Errorf("Valid allocates %.1f times over %d valid labels", allocs, len(valid))
	}
	for _, tag := range Tags() {
		l := mustLang(t, tag)
		words := wordLike(l, 300)
		if len(words) < 100 {
			t.Errorf("%s: only %d word-like labels", tag, len(words))
		}
		for _, w := range words {
			if v, sure := l.fast(w); !v || !sure {
				t.Errorf("%s: %s (%s) is valid NFC but not on the fast path", tag, w, hexOf(w))
			}
		}
		allocs := testing.AllocsPerRun(5, func() {
			for _, w := range words {
				l.Valid(w)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: Valid allocates %.1f times over %d valid labels", tag, allocs, len(words))
		}
	}
}

var sink bool

func benchEach(b *testing.B, labels []string, f func(string) bool) {
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		for _, l := range labels {
			sink = f(l)
		}
		n += len(labels)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/label")
	b.ReportMetric(float64(len(labels)), "labels")
}

// BenchmarkHindi measures, over the same labels in one run: the verdict-only
// path (Valid), the full verdict with diagnostics (Check), and
// golang.org/x/net/idna's Registration.ToASCII, which checks far less.
func BenchmarkHindi(b *testing.B) {
	hi := mustLang(b, "hi")
	mix, valid := benchLabels(b)
	b.Run("Valid/mix", func(b *testing.B) { benchEach(b, mix, hi.Valid) })
	b.Run("Valid/valid-only", func(b *testing.B) { benchEach(b, valid, hi.Valid) })
	b.Run("Check/mix", func(b *testing.B) {
		benchEach(b, mix, func(s string) bool { return hi.Check(s).Valid })
	})
	b.Run("Check/valid-only", func(b *testing.B) {
		benchEach(b, valid, func(s string) bool { return hi.Check(s).Valid })
	})
	// Brief is Check without the syllables, the A-label and the messages:
	// the verdict and one allocation, the floor of any Check that returns a
	// Result
	b.Run("CheckBrief/valid-only", func(b *testing.B) {
		benchEach(b, valid, func(s string) bool { return hi.CheckOptions(s, Options{Brief: true}).Valid })
	})
	var invalid []string
	for _, l := range mix {
		if !hi.Valid(l) {
			invalid = append(invalid, l)
		}
	}
	b.Run("Check/invalid-only", func(b *testing.B) {
		benchEach(b, invalid, func(s string) bool { return hi.Check(s).Valid })
	})
	b.Run("xnet-idna-Registration.ToASCII/mix", func(b *testing.B) {
		benchEach(b, mix, func(s string) bool { _, err := idna.Registration.ToASCII(s); return err == nil })
	})
}

// BenchmarkVariants measures variant generation (the label's variants,
// each checked under the language) over the valid words of the Hindi
// sample.
func BenchmarkVariants(b *testing.B) {
	_, valid := benchLabels(b)
	benchVariants(b, mustLang(b, "hi"), valid)
}

// benchVariants runs l.Variants over labels, reporting the time and the
// variants per label.
func benchVariants(b *testing.B, l *Language, labels []string) {
	n, total := 0, 0
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, w := range labels {
			total += len(l.Variants(w))
		}
		n += len(labels)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/label")
	b.ReportMetric(float64(total)/float64(n), "variants/label")
}

// BenchmarkVariantsArabic measures Variants per label, as BenchmarkVariants
// does for Hindi, for the Arabic-script languages, whose variant tables
// come from ICANN's Arabic second-level LGR (issue 25: ه = ھ): over the
// valid labels of languageLabels (the corpus words with AKSHARA_CORPORA).
func BenchmarkVariantsArabic(b *testing.B) {
	for _, tag := range []string{"ur", "sd", "ks"} {
		l := mustLang(b, tag)
		var valid []string
		for _, w := range languageLabels(b, l) {
			if l.Valid(w) {
				valid = append(valid, w)
			}
		}
		b.Run(tag, func(b *testing.B) { benchVariants(b, l, valid) })
	}
}

// languageLabels returns the labels BenchmarkLanguages runs for a
// language: the words of $AKSHARA_CORPORA/TAG.txt when that directory is
// set (a measuring run over real word lists), else wordLike's labels.
func languageLabels(tb testing.TB, l *Language) []string {
	if dir := os.Getenv("AKSHARA_CORPORA"); dir != "" {
		if f, err := os.Open(dir + "/" + l.Tag + ".txt"); err == nil {
			defer f.Close()
			var words []string
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				words = append(words, sc.Text())
			}
			return words
		}
	}
	return wordLike(l, 2000)
}

var sinkN int

// decodeLoop is the floor Valid is measured against: it only decodes the
// label's UTF-8.
func decodeLoop(s string) bool {
	for _, r := range s {
		sinkN += int(r)
	}
	return true
}

// BenchmarkLanguages measures, per language over the same labels: a loop
// that only decodes UTF-8, Valid and Check.
func BenchmarkLanguages(b *testing.B) {
	for _, tag := range Tags() {
		l := mustLang(b, tag)
		labels := languageLabels(b, l)
		b.Run(tag+"/decode", func(b *testing.B) { benchEach(b, labels, decodeLoop) })
		b.Run(tag+"/Valid", func(b *testing.B) { benchEach(b, labels, l.Valid) })
		b.Run(tag+"/Check", func(b *testing.B) {
			benchEach(b, labels, func(s string) bool { return l.Check(s).Valid })
		})
	}
}

// BenchmarkALabel measures the A-label on Check's valid path over the
// valid words of the Hindi sample: segment alone, then segment and the
// A-label from its record (the difference is the A-label's cost, its
// recording in segment included).
func BenchmarkALabel(b *testing.B) {
	hi := mustLang(b, "hi")
	_, valid := benchLabels(b)
	var words []string
	for _, w := range valid {
		if v, sure := hi.fast(w); v && sure {
			words = append(words, w)
		}
	}
	b.Run("segment", func(b *testing.B) {
		benchEach(b, words, func(s string) bool {
			var rec fastRec
			return hi.segment(s, &rec)
		})
	})
	b.Run("segment+alabel", func(b *testing.B) {
		benchEach(b, words, func(s string) bool {
			var rec fastRec
			var a punyBuf
			hi.segment(s, &rec)
			return hi.aLabel(s, &rec, &a) > 0
		})
	})
}

// BenchmarkVariantsAlphabet: Variants per label in the Arabic-script
// languages, over valid labels of three to ten letters of the language's
// repertoire, each with a mark one time in three where the language has
// marks (a fixed random sample: the corpora stay outside the repository).
func BenchmarkVariantsAlphabet(b *testing.B) {
	for _, tag := range []string{"ur", "sd", "ks"} {
		l := mustLang(b, tag)
		var letters, marks []string
		for _, m := range l.Repertoire() {
			switch m.Class {
			case C:
				letters = append(letters, string(m.Rune))
			case M:
				marks = append(marks, string(m.Rune))
			}
		}
		rng := rand.New(rand.NewSource(25))
		var valid []string
		for len(valid) < 2000 {
			var s strings.Builder
			for i := 0; i < 3+rng.Intn(8); i++ {
				s.WriteString(letters[rng.Intn(len(letters))])
				if len(marks) > 0 && rng.Intn(3) == 0 {
					s.WriteString(marks[rng.Intn(len(marks))])
				}
			}
			if l.Valid(s.String()) {
				valid = append(valid, s.String())
			}
		}
		b.Run(tag, func(b *testing.B) { benchVariants(b, l, valid) })
	}
}
