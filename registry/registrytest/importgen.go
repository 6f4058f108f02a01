package registrytest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"golang.org/x/net/idna"
)

// ImportWant is what importing a file made by GenerateImport must give,
// counted by the generator as it writes (not by the code under test).
type ImportWant struct {
	Records    int64 // records (not blank, comment or header lines)
	Registered int64
	Exempted   int64
	Duplicates int64
	Refused    map[string]int64 // by code
	// Pairs lists exempted names (label.zone, U-labels) and the earlier
	// name each conflicts with.
	Pairs [][2]string
	// Registrars are the registrar names the file uses.
	Registrars []string
	// Unknown is a registrar the file names that no test creates first.
	Unknown string
}

// GenerateImport writes an import file of n records into zone भारत, as
// CSV with a header, seeded from seed. It mixes (about):
//
//   - 80% distinct valid names with no variant (Label), some given as
//     A-labels, some with a language or a creation date;
//   - 4% pairs of Hindi variants: त+X first, त्त+X later (the later one
//     conflicts: exempted);
//   - 4% duplicates of earlier names, half of them as A-labels;
//   - 3% names the policy refuses (HALANT_FOLLOWER, TOO_SHORT);
//   - 1% lines that are not UTF-8 (BAD_NAME), 1% with too many fields
//     (BAD_LINE);
//   - CRLF line ends on a third of the lines, blank lines and comments;
//   - registrars r0..r4 and, on a few lines, the registrar "unknown".
func GenerateImport(w io.Writer, n int, seed uint64) (*ImportWant, error) {
	bw := bufio.NewWriter(w)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	want := &ImportWant{Refused: map[string]int64{}, Unknown: "unknown"}
	for i := 0; i < 5; i++ {
		want.Registrars = append(want.Registrars, fmt.Sprintf("r%d", i))
	}
	want.Registrars = append(want.Registrars, want.Unknown)
	const zone = "भारत"
	eol := func() string {
		if rng.IntN(3) == 0 {
			return "\r\n"
		}
		return "\n"
	}
	fmt.Fprintf(bw, "# generated import file, seed %d\nname,registrar,lang,created%s", seed, eol())
	reg := func() string {
		if rng.IntN(500) == 0 {
			return want.Unknown
		}
		return want.Registrars[rng.IntN(5)]
	}
	var earlier []string  // names registered so far (labels)
	next := 0             // next Label index
	pending := []string{} // त+X names whose त्त+X twin is still to come
	for int(want.Records) < n {
		if rng.IntN(40) == 0 {
			bw.WriteString(eol()) // blank line
			continue
		}
		want.Records++
		r := rng.IntN(100)
		switch {
		case r < 2 && len(pending) > 0: // the variant twin of an earlier त+X
			x := pending[0]
			pending = pending[1:]
			fmt.Fprintf(bw, "त्त%s,%s%s", x, reg(), eol())
			want.Exempted++
			want.Pairs = append(want.Pairs, [2]string{"त्त" + x + "." + zone, "त" + x + "." + zone})
		case r < 4: // त+X, whose twin comes later
			x := Label(next)
			next++
			fmt.Fprintf(bw, "त%s.%s,%s%s", x, zone, reg(), eol())
			want.Registered++
			earlier = append(earlier, "त"+x)
			pending = append(pending, x)
		case r < 8 && len(earlier) > 0: // a duplicate
			d := earlier[rng.IntN(len(earlier))]
			if rng.IntN(2) == 0 {
				a, err := idna.Punycode.ToASCII(d)
				if err != nil {
					return nil, err
				}
				d = a
			}
			fmt.Fprintf(bw, "%s,%s%s", d, reg(), eol())
			want.Duplicates++
		case r < 10:
			fmt.Fprintf(bw, "क्अ%s,%s%s", Label(next), reg(), eol())
			next++
			want.Refused["HALANT_FOLLOWER"]++
		case r < 11:
			fmt.Fprintf(bw, "कर,%s%s", reg(), eol())
			want.Refused["TOO_SHORT"]++
		case r < 12:
			fmt.Fprintf(bw, "\xff%s\xfe,%s%s", Label(next), reg(), eol())
			next++
			want.Refused["BAD_NAME"]++
		case r < 13:
			fmt.Fprintf(bw, "%s,%s,hi,2020-01-01,extra%s", Label(next), reg(), eol())
			next++
			want.Refused["BAD_LINE"]++
		default: // a valid name of its own
			x := Label(next)
			next++
			name := x
			switch rng.IntN(10) {
			case 0:
				a, err := idna.Punycode.ToASCII(x)
				if err != nil {
					return nil, err
				}
				name = a + ".xn--h2brj9c"
			case 1:
				name = x + "." + zone + "."
			}
			lang, created := "", ""
			if rng.IntN(4) == 0 {
				lang = "hi"
			}
			if rng.IntN(4) == 0 {
				created = fmt.Sprintf("20%02d-%02d-%02d", 10+rng.IntN(15), 1+rng.IntN(12), 1+rng.IntN(28))
			}
			fmt.Fprintf(bw, "%s,%s,%s,%s%s", name, reg(), lang, created, eol())
			want.Registered++
			earlier = append(earlier, x)
		}
		if rng.IntN(200) == 0 {
			fmt.Fprintf(bw, "# a comment%s", eol())
		}
	}
	return want, bw.Flush()
}

// GeneratedImport makes a file of n records with GenerateImport and
// returns an opener of it for Service.Import (each call reads it afresh).
func GeneratedImport(tb testing.TB, n int, seed uint64) func() (io.ReadCloser, error) {
	tb.Helper()
	var file bytes.Buffer
	if _, err := GenerateImport(&file, n, seed); err != nil {
		tb.Fatal(err)
	}
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(file.Bytes())), nil }
}
