package audit

import (
	"bytes"
	"context"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/net/idna"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/internal/longtest"
)

func hindi(t testing.TB) *akshara.Language {
	l, err := akshara.Lookup("hi")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestRunCounts checks the summary against Check label by label, with
// chunks small enough that lines straddle them, CRLF, blank lines, a last
// line without a newline, and a line longer than a chunk.
func TestRunCounts(t *testing.T) {
	hi := hindi(t)
	long := strings.Repeat("क", 300)
	input := "किताब\r\n\n  \nक्अब\nहिंदी\n" + long + "\nभारत।\nabc\nxn--h2brj9c\nकिताब"
	for _, chunk := range []int{8, 64, 1 << 20} {
		for _, workers := range []int{1, 3} {
			s, err := Run(context.Background(), strings.NewReader(input), Options{Lang: hi, Workers: workers, ChunkSize: chunk}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.Labels != 8 || s.Valid != 4 || s.Invalid != 4 {
				t.Fatalf("chunk %d workers %d: %+v", chunk, workers, s)
			}
			want := map[akshara.Code]int64{akshara.HalantFollower: 1, akshara.TooLong: 1, akshara.Punctuation: 1, akshara.MixedScript: 1}
			for _, c := range s.ByCode {
				if want[c.Code] != c.Count {
					t.Errorf("chunk %d: %v counted %d, want %d", chunk, c.Code, c.Count, want[c.Code])
				}
				if len(c.Examples) == 0 {
					t.Errorf("%v: no example", c.Code)
				}
			}
			if len(s.ByCode) != len(want) {
				t.Errorf("codes %+v", s.ByCode)
			}
			if s.ByCode[0].Examples[0] == "" || s.Bytes != int64(len(input)) {
				t.Errorf("bytes %d, want %d", s.Bytes, len(input))
			}
		}
	}
}

// TestExamplesAreFirst: the examples are the first labels in the input that
// break the rule, whatever the scheduling.
func TestExamplesAreFirst(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 20000; i++ {
		b.WriteString("किताब\n")
		if i%1000 == 0 {
			b.WriteString("क्अब" + strings.Repeat("क", i/1000%5) + "\n")
		}
	}
	s, err := Run(context.Background(), strings.NewReader(b.String()), Options{Lang: hindi(t), Workers: 4, ChunkSize: 4096}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(s.ByCode[0].Examples, " ")
	if got != "क्अब क्अबक क्अबकक" {
		t.Errorf("examples %q", got)
	}
}

func TestRunAuto(t *testing.T) {
	s, err := Run(context.Background(), strings.NewReader("किताब\nचाँद\nॻारो\nक्अब\n"), Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Lang != "auto" || s.Valid != 3 || s.Invalid != 1 {
		t.Fatalf("%+v", s)
	}
	counts := map[string]int64{}
	for _, l := range s.ByLang {
		counts[l.Lang] = l.Valid
	}
	if counts["hi"] != 2 || counts["sd-Deva"] != 2 {
		t.Errorf("by language %+v", s.ByLang)
	}
}

type failReader struct{ n int }

func (r *failReader) Read(p []byte) (int, error) {
	if r.n > 0 {
		r.n--
		return copy(p, "किताब\n"), nil
	}
	return 0, io.ErrUnexpectedEOF
}

func TestReadError(t *testing.T) {
	_, err := Run(context.Background(), &failReader{n: 3}, Options{Lang: hindi(t)}, nil)
	if err == nil || !strings.Contains(err.Error(), "reading labels") {
		t.Errorf("err %v", err)
	}
}

// manyLines generates n labels without holding them in memory.
type manyLines struct {
	left  int
	words []string
	i     int
	pend  []byte
}

func (m *manyLines) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(m.pend) == 0 {
			if m.left == 0 {
				break
			}
			m.pend = append(m.pend[:0], m.words[m.i%len(m.words)]...)
			m.pend = append(m.pend, '\n')
			m.i++
			m.left--
		}
		c := copy(p[n:], m.pend)
		m.pend = m.pend[c:]
		n += c
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// TestTenMillionLines: 10 million lines (2 million without
// AKSHARA_LONG_TESTS=1: still far more than a 64 MiB heap could hold)
// in bounded memory (the heap in use never grows past a fixed bound while
// the input streams).
func TestTenMillionLines(t *testing.T) {
	if testing.Short() {
		t.Skip("10 million lines: skipped with -short")
	}
	lines := longtest.Pick(2_000_000, 10_000_000)
	words := []string{"किताब", "हिंदी", "यन्त्रकार", "क्अब", "भारत।", "दुःख", "चाँद", "कुत्ता"}
	stop := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var max uint64
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				peak <- max
				return
			default:
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > max {
				max = ms.HeapInuse
			}
			runtime.Gosched()
		}
	}()
	s, err := Run(context.Background(), &manyLines{left: lines, words: words}, Options{Lang: hindi(t)}, nil)
	close(stop)
	max := <-peak
	if err != nil {
		t.Fatal(err)
	}
	if s.Labels != int64(lines) || s.Valid != int64(lines)/4*3 {
		t.Errorf("labels %d valid %d", s.Labels, s.Valid)
	}
	if max > 64<<20 {
		t.Errorf("heap in use reached %d MiB", max>>20)
	}
	t.Logf("%d labels, peak heap in use %d MiB", lines, max>>20)
}

// benchInput is the largest corpus when AKSHARA_BENCH_CORPUS names it (for
// example ../shared/corpora/ne.txt, with AKSHARA_BENCH_LANG=ne), else the
// committed Hindi sample repeated to about 100,000 lines.
func benchInput(b *testing.B) ([]byte, *akshara.Language) {
	tag := os.Getenv("AKSHARA_BENCH_LANG")
	if tag == "" {
		tag = "hi"
	}
	l, err := akshara.Lookup(tag)
	if err != nil {
		b.Fatal(err)
	}
	if path := os.Getenv("AKSHARA_BENCH_CORPUS"); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		return data, l
	}
	data, err := os.ReadFile("../testdata/bench/hi-words.txt")
	if err != nil {
		b.Fatal(err)
	}
	return bytes.Repeat(data, 20), l
}

// BenchmarkAudit measures audit throughput on one core and on all cores,
// and x/net/idna's Registration.ToASCII over the same labels in the same
// run.
func BenchmarkAudit(b *testing.B) {
	data, l := benchInput(b)
	lines := bytes.Count(data, []byte("\n"))
	run := func(b *testing.B, o Options) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := Run(context.Background(), bytes.NewReader(data), o, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "labels/s")
	}
	b.Run("lang=1core", func(b *testing.B) { run(b, Options{Lang: l, Workers: 1}) })
	b.Run("lang=allcores", func(b *testing.B) { run(b, Options{Lang: l}) })
	b.Run("auto=allcores", func(b *testing.B) { run(b, Options{}) })
	b.Run("xnet-idna-Registration.ToASCII=1core", func(b *testing.B) {
		labels := strings.Split(strings.TrimSpace(string(data)), "\n")
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			for _, s := range labels {
				idna.Registration.ToASCII(s)
			}
		}
		b.ReportMetric(float64(len(labels))*float64(b.N)/b.Elapsed().Seconds(), "labels/s")
	})
}

// TestBlank: the first-byte shortcut agrees with bytes.TrimSpace for every
// white space character and some that are not.
func TestBlank(t *testing.T) {
	var cases []string
	for r := rune(0); r <= 0x3000; r++ {
		if unicode.IsSpace(r) || r < 0x80 || r == 0x0915 || r == 0x2028 || r == 0x1680 {
			cases = append(cases, string(r), " "+string(r), string(r)+"क", string(r)+" ")
		}
	}
	cases = append(cases, "", "\xff", "\xe2\x80", "\u3000\u00a0 ")
	for _, c := range cases {
		if got, want := blank([]byte(c)), len(bytes.TrimSpace([]byte(c))) == 0; got != want {
			t.Errorf("blank(%q) = %v, want %v", c, got, want)
		}
	}
}
