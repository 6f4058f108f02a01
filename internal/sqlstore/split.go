package sqlstore

import (
	"strings"
	"unicode"
)

// SplitSQL splits a migration into its statements at the semicolons that
// end them, the way the databases read it: a semicolon inside a comment
// (-- to the end of the line, or /* ... */, nested as PostgreSQL nests
// them), a string ('...', with ” for a quote), a quoted identifier
// ("...", `...`, [...]), a PostgreSQL dollar-quoted body ($$...$$ or
// $tag$...$tag$) or the BEGIN ... END body of a CREATE TRIGGER does not
// end a statement. Statements are returned trimmed; empty ones (and ones
// that are only comments) are dropped.
func SplitSQL(src string) []string {
	var out []string
	start := 0
	depth := 0 // BEGIN/CASE ... END nesting inside a CREATE TRIGGER
	emit := func(end int) {
		stmt := strings.TrimSpace(src[start:end])
		if stmt != "" && hasCode(stmt) {
			out = append(out, stmt)
		}
		start = end + 1
		depth = 0
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '-' && strings.HasPrefix(src[i:], "--"):
			i = skipLine(src, i)
		case c == '/' && strings.HasPrefix(src[i:], "/*"):
			i = skipBlockComment(src, i)
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(src, i, c)
		case c == '[':
			if j := strings.IndexByte(src[i:], ']'); j >= 0 {
				i += j + 1
			} else {
				i = len(src)
			}
		case c == '$':
			i = skipDollar(src, i)
		case isWordByte(c):
			j := i
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			if isTrigger(src[start:i]) {
				switch strings.ToUpper(src[i:j]) {
				case "BEGIN", "CASE":
					depth++
				case "END":
					if depth > 0 {
						depth--
					}
				}
			}
			i = j
		case c == ';' && depth == 0:
			emit(i)
			i++
		default:
			i++
		}
	}
	if start < len(src) {
		emit(len(src))
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func skipLine(src string, i int) int {
	if j := strings.IndexByte(src[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(src)
}

func skipBlockComment(src string, i int) int {
	depth := 0
	for i < len(src) {
		switch {
		case strings.HasPrefix(src[i:], "/*"):
			depth++
			i += 2
		case strings.HasPrefix(src[i:], "*/"):
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return len(src)
}

// skipQuoted skips a quoted string or identifier; a doubled quote is an
// escaped quote.
func skipQuoted(src string, i int, q byte) int {
	i++
	for i < len(src) {
		if src[i] == q {
			if i+1 < len(src) && src[i+1] == q {
				i += 2
				continue
			}
			return i + 1
		}
		i++
	}
	return len(src)
}

// skipDollar skips a dollar-quoted body ($tag$ ... $tag$), or just the $
// of a placeholder ($1) or of anything else.
func skipDollar(src string, i int) int {
	j := i + 1
	for j < len(src) && (src[j] == '_' || unicode.IsLetter(rune(src[j])) || j > i+1 && src[j] >= '0' && src[j] <= '9') {
		j++
	}
	if j >= len(src) || src[j] != '$' {
		return i + 1
	}
	tag := src[i : j+1]
	if k := strings.Index(src[j+1:], tag); k >= 0 {
		return j + 1 + k + len(tag)
	}
	return len(src)
}

// isTrigger reports whether the statement so far is a CREATE TRIGGER,
// whose BEGIN ... END body holds statements of its own.
func isTrigger(stmt string) bool {
	f := strings.Fields(strings.ToUpper(stripComments(stmt)))
	if len(f) < 2 || f[0] != "CREATE" {
		return false
	}
	f = f[1:]
	if f[0] == "TEMP" || f[0] == "TEMPORARY" {
		f = f[1:]
	}
	return len(f) > 0 && f[0] == "TRIGGER"
}

// stripComments removes the leading comments of a statement.
func stripComments(s string) string {
	for {
		s = strings.TrimSpace(s)
		switch {
		case strings.HasPrefix(s, "--"):
			s = s[skipLine(s, 0):]
		case strings.HasPrefix(s, "/*"):
			s = s[skipBlockComment(s, 0):]
		default:
			return s
		}
	}
}

// hasCode reports whether a statement holds anything but comments.
func hasCode(stmt string) bool {
	for i := 0; i < len(stmt); {
		switch {
		case strings.HasPrefix(stmt[i:], "--"):
			i = skipLine(stmt, i)
		case strings.HasPrefix(stmt[i:], "/*"):
			i = skipBlockComment(stmt, i)
		case stmt[i] == ' ' || stmt[i] == '\t' || stmt[i] == '\n' || stmt[i] == '\r':
			i++
		default:
			return true
		}
	}
	return false
}
