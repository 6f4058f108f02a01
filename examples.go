package akshara

import (
	"fmt"
	"sort"
	"strings"
)

// ExampleFailure is an example of a language file that the engine does not
// judge as the file says.
type ExampleFailure struct {
	Example Example
	Got     *Result
	Reason  string
}

func (f ExampleFailure) String() string {
	var hexes []string
	for _, r := range f.Example.Text {
		hexes = append(hexes, fmt.Sprintf("%04X", r))
	}
	return fmt.Sprintf("line %d: %s %q (%s) %s: %s", f.Example.Line, f.Example.Kind, f.Example.Text,
		strings.Join(hexes, " "), f.Example.Ref, f.Reason)
}

// CheckExamples runs the examples of the language file (the policy
// documents' own examples) and returns those the engine judges otherwise.
func (l *Language) CheckExamples() []ExampleFailure {
	var fails []ExampleFailure
	for _, ex := range l.spec.examples {
		res := l.Check(ex.Text)
		fail := func(format string, args ...any) {
			fails = append(fails, ExampleFailure{ex, res, fmt.Sprintf(format, args...)})
		}
		if res.Valid != l.Valid(ex.Text) {
			fail("Check and Valid disagree")
			continue
		}
		switch ex.Kind {
		case "valid":
			if !res.Valid {
				fail("should be valid, got %s", errorList(res))
			}
		case "akshara":
			if len(res.Syllables) != 1 || res.Syllables[0] != res.ULabel {
				fail("should be one syllable, got %q", res.Syllables)
			}
			for _, e := range res.Errors {
				if e.Code != TooShort {
					fail("should be a well-formed syllable, got %s", errorList(res))
					break
				}
			}
		case "invalid":
			var want, got []string
			for _, w := range ex.Want {
				want = append(want, w.Code.String())
			}
			for _, e := range res.Errors {
				got = append(got, e.Code.String())
			}
			sort.Strings(want)
			sort.Strings(got)
			if strings.Join(want, " ") != strings.Join(got, " ") {
				fail("want %v, got %s", want, errorList(res))
				continue
			}
			for _, w := range ex.Want {
				found := w.Pos < 0
				for _, e := range res.Errors {
					found = found || (e.Code == w.Code && e.Pos == w.Pos)
				}
				if !found {
					fail("want %v at %d, got %s", w.Code, w.Pos, errorList(res))
				}
			}
		}
	}
	return fails
}

func errorList(res *Result) string {
	if len(res.Errors) == 0 {
		return "no error"
	}
	var parts []string
	for _, e := range res.Errors {
		parts = append(parts, fmt.Sprintf("%s@%d", e.Code, e.Pos))
	}
	return strings.Join(parts, " ")
}
