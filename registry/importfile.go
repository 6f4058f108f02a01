package registry

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Codes of import lines that are not records of a name (beside the codes
// a name can be refused with: BAD_NAME, UNKNOWN_ZONE, UNKNOWN_LANGUAGE and
// the policy's rule codes).
const (
	// CodeBadLine: the line is not a record: too long, too many fields,
	// no name, a date that cannot be read.
	CodeBadLine = "BAD_LINE"
	// CodeOtherZone: the line names a domain of another zone than the one
	// imported into.
	CodeOtherZone = "OTHER_ZONE"
	// CodeBadExpiry: the record's expiry date is not after its creation
	// date (the time of the import for a record without one).
	CodeBadExpiry = "BAD_EXPIRY"
)

// ImportRecord is one record of an import file.
type ImportRecord struct {
	Line      int64     // line number in the file, from 1
	Name      string    // label, or label.zone
	Registrar string    // "" for the import's default registrar
	Lang      string    // "" for the zone's language order
	Created   time.Time // zero for the time of the import
	Expires   time.Time // zero for none: the domain does not expire
	// Contacts are the record's registrant, admin, tech and billing
	// columns (ids of contacts of the record's registrar; several of a
	// role separated by spaces or ';').
	Contacts []DomainContact
	// Err is set for a line that is not a record (the other fields may be
	// partly set): CodeBadLine, or CodeBadName for a line that is not
	// UTF-8.
	Err *Error
}

// MaxImportLine is the longest line an import file may have, in bytes
// (a name has at most 253 octets; the rest is registrar, language, date).
const MaxImportLine = 4096

// ImportReader reads an import file: one name per line, or CSV records
// name,registrar[,lang[,created[,expires]]] (docs/import.md). A first line whose
// first field is "name", or whose fields all name columns, is a header
// naming the columns, in any order.
// Blank lines and lines starting with # are skipped; CRLF line ends are
// accepted; a line that is not a record is returned with Err set, never
// an error, so that one bad line never stops an import.
type ImportReader struct {
	r       *bufio.Reader
	line    int64
	offset  int64 // bytes consumed
	cols    [numColumns]int
	started bool // the first record (or header) has been seen
}

// Column indexes in ImportReader.cols.
const (
	colName = iota
	colRegistrar
	colLang
	colCreated
	colExpires
	colRegistrant
	colAdmin
	colTech
	colBilling
	numColumns
)

var columnNames = [numColumns]string{"name", "registrar", "lang", "created", "expires", RoleRegistrant, RoleAdmin, RoleTech, RoleBilling}

// NewImportReader reads an import file from r.
func NewImportReader(r io.Reader) *ImportReader {
	return &ImportReader{r: bufio.NewReaderSize(r, 64<<10), cols: [numColumns]int{0, 1, 2, 3, 4, -1, -1, -1, -1}} // contact columns by a header only
}

// Offset is the number of bytes read so far.
func (ir *ImportReader) Offset() int64 { return ir.offset }

// readLine returns the next line without its line end; a line longer than
// MaxImportLine is returned cut, with long set.
func (ir *ImportReader) readLine() (line []byte, long bool, err error) {
	var buf []byte
	for {
		part, isPrefix, err := ir.r.ReadLine()
		ir.offset += int64(len(part))
		if err != nil {
			if len(buf) > 0 || long {
				return buf, long, nil
			}
			return nil, false, err
		}
		if len(buf)+len(part) > MaxImportLine {
			long = true
		} else {
			buf = append(buf, part...)
		}
		if !isPrefix {
			ir.offset++ // the \n (ReadLine drops \r\n or \n)
			return buf, long, nil
		}
	}
}

// Next returns the next record; io.EOF at the end of the file. The only
// other errors are the reader's own and a header that names an unknown
// column.
func (ir *ImportReader) Next() (*ImportRecord, error) {
	for {
		raw, long, err := ir.readLine()
		if err != nil {
			return nil, err
		}
		ir.line++
		rec := &ImportRecord{Line: ir.line}
		if long {
			rec.Err = Errorf(CodeBadLine, "line %d is longer than %d bytes", ir.line, MaxImportLine)
			return rec, nil
		}
		if ir.line == 1 {
			raw = bytes.TrimPrefix(raw, []byte("\ufeff")) // a UTF-8 byte-order mark
		}
		text := strings.TrimSpace(string(bytes.TrimSuffix(raw, []byte{'\r'})))
		if text == "" || text[0] == '#' {
			continue
		}
		if strings.IndexByte(text, 0) >= 0 {
			// refused here: PostgreSQL refuses a NUL in text with an error
			ir.started = true
			rec.Err = Errorf(CodeBadLine, "line %d has a NUL character", ir.line)
			return rec, nil
		}
		fields := splitFields(text)
		if !ir.started {
			ir.started = true
			if isHeader(fields) {
				if err := ir.header(fields); err != nil {
					return nil, err
				}
				continue
			}
		}
		ir.fill(rec, fields)
		return rec, nil
	}
}

// isHeader: a first line is a header if its first field is "name" or
// every field names a column.
func isHeader(fields []string) bool {
	if strings.EqualFold(fields[0], "name") {
		return true
	}
	for _, f := range fields {
		known := false
		for _, c := range columnNames {
			known = known || strings.EqualFold(f, c)
		}
		if !known {
			return false
		}
	}
	return true
}

// header sets the columns from a header line.
func (ir *ImportReader) header(fields []string) error {
	for i := range ir.cols {
		ir.cols[i] = -1
	}
	for i, f := range fields {
		k := -1
		for c, name := range columnNames {
			if strings.EqualFold(f, name) {
				k = c
			}
		}
		if k < 0 {
			return fmt.Errorf("line %d: header: unknown column %q (the columns are %s)", ir.line, f, strings.Join(columnNames[:], ", "))
		}
		if ir.cols[k] >= 0 {
			return fmt.Errorf("line %d: header: column %q given twice", ir.line, f)
		}
		ir.cols[k] = i
	}
	return nil
}

func (ir *ImportReader) fill(rec *ImportRecord, fields []string) {
	width := 0
	for _, c := range ir.cols {
		if c+1 > width {
			width = c + 1
		}
	}
	get := func(col int) string {
		if i := ir.cols[col]; i >= 0 && i < len(fields) {
			return fields[i]
		}
		return ""
	}
	rec.Name, rec.Registrar, rec.Lang = get(colName), get(colRegistrar), get(colLang)
	switch {
	case len(fields) > width:
		rec.Err = Errorf(CodeBadLine, "line %d has %d fields; at most %d (%s) are read", rec.Line, len(fields), width, strings.Join(columnNames[:width], ","))
	case !utf8.ValidString(rec.Name) || !utf8.ValidString(rec.Registrar) || !utf8.ValidString(rec.Lang):
		rec.Err = Errorf(CodeBadName, "line %d is not valid UTF-8", rec.Line)
	case rec.Name == "":
		rec.Err = Errorf(CodeBadLine, "line %d has no name", rec.Line)
	case rec.Registrar != "" && CheckRegistrarName(rec.Registrar) != nil:
		rec.Err = Errorf(CodeBadName, "line %d: %s", rec.Line, CheckRegistrarName(rec.Registrar).(*Error).Message)
	}
	if rec.Err != nil {
		return
	}
	for col := colRegistrant; col <= colBilling; col++ {
		v := get(col)
		if !utf8.ValidString(v) {
			rec.Err = Errorf(CodeBadName, "line %d is not valid UTF-8", rec.Line)
			return
		}
		for _, id := range strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ';' }) {
			rec.Contacts = append(rec.Contacts, DomainContact{Role: columnNames[col], ID: id})
		}
	}
	for _, d := range []struct {
		col  int
		name string
		to   *time.Time
	}{{colCreated, "created", &rec.Created}, {colExpires, "expires", &rec.Expires}} {
		if c := get(d.col); c != "" {
			t, err := parseCreated(c)
			if err != nil {
				rec.Err = Errorf(CodeBadLine, "line %d: %s %q is not a date (2006-01-02, RFC 3339 or Unix seconds)", rec.Line, d.name, c)
				return
			}
			*d.to = t
		}
	}
}

// splitFields splits a CSV line at commas; a field in double quotes may
// hold commas and "" for a quote. Fields are trimmed.
func splitFields(s string) []string {
	var out []string
	for {
		s = strings.TrimLeft(s, " \t")
		var f string
		if strings.HasPrefix(s, `"`) {
			var b strings.Builder
			i := 1
			for i < len(s) {
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						b.WriteByte('"')
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteByte(s[i])
				i++
			}
			f = b.String()
			s = s[i:]
			if j := strings.IndexByte(s, ','); j >= 0 {
				s = s[j:]
			} else {
				s = ""
			}
		} else if j := strings.IndexByte(s, ','); j >= 0 {
			f, s = s[:j], s[j:]
		} else {
			f, s = s, ""
		}
		out = append(out, strings.TrimSpace(f))
		if s == "" {
			return out
		}
		s = s[1:] // the comma
	}
}

// parseCreated reads a creation (or expiry) date: 2006-01-02, RFC 3339,
// or Unix seconds.
func parseCreated(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 0 && n < 1<<40 {
		return time.Unix(n, 0).UTC(), nil
	}
	return time.Time{}, errors.New("not a date")
}

// The import's codes in the one code table (they appear in import
// reports, not in API answers; the entries say what they would be).
func init() {
	DefineCode(CodeBadLine, CodeInfo{400, 2005, "bad line"})
	DefineCode(CodeOtherZone, CodeInfo{400, 2306, "name of another zone"})
	DefineCode(CodeBadExpiry, CodeInfo{400, 2306, "expiry not after creation"})
	DefineCode(CodeDuplicate, CodeInfo{409, 2302, "duplicate"})
}
