package epp

import (
	"strconv"
	"strings"
)

// The extensions a login lists (RFC 5730 §2.9.1.1: the <svcExtension>
// of <svcs> holds "<extURI> elements that identify object extensions to
// be used during the session"). A registrar's toolkit lists every
// extension it knows, for every registry it talks to; the RFC does not
// ask a server to refuse one it does not serve (only <version> and <lang>
// "MUST exactly match one of the values presented in the EPP greeting").
// So a login listing extensions this server does not serve succeeds, and
// they are ignored: the answer's <msg> names them, the greeting lists
// those served, and a command that carries an element of an extension the
// server does not serve is refused with 2103 (checkExtensions). docs/epp.md.

// maxIgnoredShown is how many ignored extensions the login's answer names.
const maxIgnoredShown = 8

// unservedExtensions returns the extension URIs of a login that the
// server does not serve, trimmed, each once, in the order given.
func unservedExtensions(uris []string) []string {
	var out []string
	for _, u := range uris {
		u = strings.TrimSpace(u)
		if u == "" || servedExtension(u) {
			continue
		}
		dup := false
		for _, o := range out {
			if o == u {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, u)
		}
	}
	return out
}

// ignoredNote is the <msg> of a login that listed extensions the server
// does not serve ("" for the RFC's text when it listed none).
func ignoredNote(ignored []string) string {
	if len(ignored) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(messages[CodeOK])
	b.WriteString("; extensions not served by this server, ignored: ")
	for i, u := range ignored {
		if i == maxIgnoredShown {
			b.WriteString(" and " + strconv.Itoa(len(ignored)-i) + " more")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(clip(u, 128))
	}
	return b.String()
}
