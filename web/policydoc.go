package web

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/akshara-idn/akshara/docs"
)

// The policy reading (docs/policy.md) at /docs/policy.md, the path the
// citations "docs/policy.md §N" name, so that every reference of the
// /policy pages leads somewhere; section N is the anchor #sN.

type docSection struct {
	ID, Title, Body string
}

type policyDoc struct {
	Title    string
	Intro    string
	Sections []docSection
}

var docHeading = regexp.MustCompile(`^## (\d+)\. (.*)$`)

// parsePolicyDoc splits the Markdown text at its "## N. Title" headings;
// the text between them is shown as written (Markdown reads as plain
// text), escaped by the template.
func parsePolicyDoc(text string) policyDoc {
	var d policyDoc
	body := &d.Intro
	for _, line := range strings.Split(text, "\n") {
		if d.Title == "" && strings.HasPrefix(line, "# ") {
			d.Title = strings.TrimPrefix(line, "# ")
			continue
		}
		if m := docHeading.FindStringSubmatch(line); m != nil {
			d.Sections = append(d.Sections, docSection{ID: "s" + m[1], Title: m[1] + ". " + m[2]})
			body = &d.Sections[len(d.Sections)-1].Body
			continue
		}
		*body += line + "\n"
	}
	d.Intro = strings.TrimSpace(d.Intro)
	for i := range d.Sections {
		d.Sections[i].Body = strings.TrimSpace(d.Sections[i].Body)
	}
	return d
}

func policyDocument(w http.ResponseWriter, r *http.Request) {
	render(w, "policy-doc.html", parsePolicyDoc(docs.Policy))
}
