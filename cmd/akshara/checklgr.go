package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/lgr"
	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"
)

// lgrResult is check -lgr's answer for one label.
type lgrResult struct {
	Input string `json:"input"`
	lgr.Verdict
	Code     string   `json:"code,omitempty"` // the akshara rule code the rule is named after, if any
	Message  string   `json:"message,omitempty"`
	Variants []string `json:"variants"` // of a valid label: its variant labels the LGR does not make invalid
}

// checkLGR is check -lgr FILE: each label judged by an RFC 7940 LGR
// (docs/lgr.md) instead of the native engine.
func checkLGR(file string, asJSON bool, labels []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, err := os.Open(file)
	if err != nil {
		fmt.Fprintf(stderr, "akshara check: %v\n", err)
		return exitUsage
	}
	g, err := lgr.Read(f)
	f.Close()
	if err != nil {
		fmt.Fprintf(stderr, "akshara check: %s: %v\n", file, err)
		return exitUsage
	}
	name := strings.Join(g.Languages, ",")
	if name == "" {
		name = "lgr"
	}
	w := bufio.NewWriterSize(stdout, 64<<10)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	status := exitOK
	emit := func(label string) error {
		res := judgeLGR(g, label)
		if !res.Valid {
			status = exitInvalid
		}
		if asJSON {
			return enc.Encode(res)
		}
		line := printable(label)
		if res.Valid {
			line += "\tvalid\t" + name + "\t" + res.Disposition
			if len(res.Variants) > 0 {
				line += "\tvariants=" + strings.Join(res.Variants, ",")
			}
		} else {
			line += fmt.Sprintf("\tinvalid\t%s\t%s@%d %s", name, res.Rule, res.Pos, res.Message)
		}
		_, err := io.WriteString(w, line+"\n")
		return err
	}
	return runLabels("check", labels, stdin, w, stderr, emit, &status)
}

// judgeLGR maps the input as akshara does (an A-label is decoded, the
// U-label normalized to NFC) and judges it by the LGR.
func judgeLGR(g *lgr.LGR, input string) lgrResult {
	u := input
	if len(u) >= 4 && strings.EqualFold(u[:4], "xn--") {
		dec, err := idna.Punycode.ToUnicode(strings.ToLower(u))
		if err != nil {
			return lgrResult{Input: input, Verdict: lgr.Verdict{Label: input, Disposition: "invalid", Rule: akshara.BadALabel.String()},
				Code: akshara.BadALabel.String(), Message: akshara.BadALabel.Summary()}
		}
		u = dec
	}
	u = norm.NFC.String(strings.ToValidUTF8(u, "\uFFFD"))
	res := lgrResult{Input: input, Verdict: g.Judge(u), Variants: []string{}}
	switch code, _, _ := strings.Cut(res.Rule, "-"); {
	case res.Valid:
		for _, v := range g.Variants(u) {
			if v.Disposition != "invalid" {
				res.Variants = append(res.Variants, v.Label)
			}
		}
	case res.Rule == lgr.NotInRepertoire:
		res.Message = "a code point outside the LGR's repertoire"
	default:
		if c, ok := akshara.ParseCode(code); ok {
			res.Code, res.Message = c.String(), c.Summary()
		} else {
			res.Message = "the label breaks the LGR's rule " + res.Rule
		}
	}
	return res
}
