package lgr

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// element is an XML element as the LGR reader and writer see it: a name
// (the namespace is checked once, at the root), attributes in document
// order, child elements and the concatenated text.
type element struct {
	name  string
	attrs []xml.Attr
	kids  []*element
	text  string
	line  int // 1-based line of the start tag when parsed, 0 when built
}

func el(name string, attrs ...string) *element {
	e := &element{name: name}
	for i := 0; i+1 < len(attrs); i += 2 {
		if attrs[i+1] != "" {
			e.attrs = append(e.attrs, xml.Attr{Name: xml.Name{Local: attrs[i]}, Value: attrs[i+1]})
		}
	}
	return e
}

func (e *element) add(kids ...*element) *element {
	for _, k := range kids {
		if k != nil {
			e.kids = append(e.kids, k)
		}
	}
	return e
}

func (e *element) attr(name string) (string, bool) {
	for _, a := range e.attrs {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

func (e *element) get(name string) string {
	v, _ := e.attr(name)
	return v
}

func (e *element) set(name, value string) {
	for i := range e.attrs {
		if e.attrs[i].Name.Local == name {
			e.attrs[i].Value = value
			return
		}
	}
	e.attrs = append(e.attrs, xml.Attr{Name: xml.Name{Local: name}, Value: value})
}

// Namespace is RFC 7940's XML namespace.
const Namespace = "urn:ietf:params:xml:ns:lgr-1.0"

// maxDepth bounds the nesting of a document the reader accepts.
const maxDepth = 64

// parseXML reads one document into an element tree. Elements outside the
// LGR namespace are refused.
func parseXML(r io.Reader) (*element, error) {
	d := xml.NewDecoder(r)
	d.Strict = true
	var stack []*element
	var root *element
	for {
		line, _ := d.InputPos()
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != Namespace {
				return nil, fmt.Errorf("line %d: element <%s> is not in the namespace %s", line, t.Name.Local, Namespace)
			}
			if len(stack) >= maxDepth {
				return nil, fmt.Errorf("line %d: elements nested deeper than %d", line, maxDepth)
			}
			e := &element{name: t.Name.Local, line: line}
			for _, a := range t.Attr {
				if a.Name.Space == "" {
					e.attrs = append(e.attrs, xml.Attr{Name: xml.Name{Local: a.Name.Local}, Value: a.Value})
				}
			}
			if len(stack) == 0 {
				if root != nil {
					return nil, errors.New("more than one root element")
				}
				root = e
			} else {
				p := stack[len(stack)-1]
				p.kids = append(p.kids, e)
			}
			stack = append(stack, e)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(t)
			}
		}
	}
	if root == nil {
		return nil, errors.New("no root element")
	}
	return root, nil
}

// write renders the tree as an indented document.
func (e *element) write(b *strings.Builder, depth int) {
	indent := strings.Repeat("  ", depth)
	b.WriteString(indent + "<" + e.name)
	for _, a := range e.attrs {
		b.WriteString(" " + a.Name.Local + "=\"")
		xmlEscape(b, a.Value, true)
		b.WriteString("\"")
	}
	switch {
	case len(e.kids) == 0 && e.text == "":
		b.WriteString("/>\n")
	case len(e.kids) == 0:
		b.WriteString(">")
		xmlEscape(b, e.text, false)
		b.WriteString("</" + e.name + ">\n")
	default:
		b.WriteString(">\n")
		for _, k := range e.kids {
			k.write(b, depth+1)
		}
		b.WriteString(indent + "</" + e.name + ">\n")
	}
}

func xmlEscape(b *strings.Builder, s string, attr bool) {
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"' && attr:
			b.WriteString("&quot;")
		case r == '\n' && attr:
			b.WriteString("&#xA;")
		case r == '\t' && attr:
			b.WriteString("&#x9;")
		default:
			b.WriteRune(r)
		}
	}
}
