package registry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// The contacts of an import (issue 34 item 4; docs/import.md, "Contacts"):
// a contacts file, CSV or TSV with a header, creates the registrars'
// contacts before the names are read; the names file's registrant, admin,
// tech and billing columns link them to the names, so that an imported
// name meets its zone's contact policy as a create does.

// The columns of a contacts file. id and email are required, and name,
// city and cc (of the int postal info, or the loc_ ones for a contact
// with a local-script address only).
var contactColumns = []string{"id", "registrar", "name", "org", "street", "street2", "street3", "city", "sp", "pc", "cc",
	"loc_name", "loc_org", "loc_street", "loc_street2", "loc_street3", "loc_city", "loc_sp", "loc_pc", "loc_cc",
	"voice", "fax", "email", "auth_info", "disclose"}

// ImportContactRow is one record of a contacts file.
type ImportContactRow struct {
	Line      int64
	Registrar string // "" for the import's default registrar
	Create    ContactCreate
	Err       *Error // CodeBadLine: not a record
}

// ReadImportContacts reads a contacts file: a header line naming its
// columns (contactColumns, any order, "id" among them), then one contact
// a line; comma-separated (fields in double quotes may hold commas), or
// tab-separated if the header has a tab. Blank lines and lines starting
// with # are skipped. A line that is not a record is returned with Err.
func ReadImportContacts(r io.Reader) ([]ImportContactRow, error) {
	data, err := io.ReadAll(io.LimitReader(r, 1<<30))
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var cols map[string]int
	tsv := false
	var out []ImportContactRow
	for i, raw := range strings.Split(string(data), "\n") {
		line := int64(i + 1)
		text := strings.TrimRight(raw, "\r")
		if strings.TrimSpace(text) == "" || strings.HasPrefix(strings.TrimSpace(text), "#") {
			continue
		}
		var fields []string
		if cols == nil {
			tsv = strings.Contains(text, "\t")
		}
		if tsv {
			fields = strings.Split(text, "\t")
			for k := range fields {
				fields[k] = strings.TrimSpace(fields[k])
			}
		} else {
			fields = splitFields(text)
		}
		if cols == nil {
			cols = map[string]int{}
			for k, f := range fields {
				name := strings.ToLower(f)
				known := false
				for _, c := range contactColumns {
					known = known || c == name
				}
				if !known {
					return nil, fmt.Errorf("contacts file line %d: header: unknown column %q (the columns are %s)", line, f, strings.Join(contactColumns, ", "))
				}
				if _, dup := cols[name]; dup {
					return nil, fmt.Errorf("contacts file line %d: header: column %q given twice", line, f)
				}
				cols[name] = k
			}
			if _, ok := cols["id"]; !ok {
				return nil, fmt.Errorf("contacts file line %d: the first line is a header naming the columns, id among them (%s)", line, strings.Join(contactColumns, ", "))
			}
			continue
		}
		out = append(out, contactRow(line, cols, fields))
	}
	if cols == nil {
		return nil, fmt.Errorf("contacts file: no header line")
	}
	return out, nil
}

func contactRow(line int64, cols map[string]int, fields []string) ImportContactRow {
	row := ImportContactRow{Line: line}
	get := func(c string) string {
		if k, ok := cols[c]; ok && k < len(fields) {
			return fields[k]
		}
		return ""
	}
	if len(fields) > len(cols) {
		row.Err = Errorf(CodeBadLine, "contacts file line %d has %d fields; the header names %d", line, len(fields), len(cols))
		return row
	}
	for _, f := range fields {
		if !utf8.ValidString(f) || strings.IndexByte(f, 0) >= 0 {
			row.Err = Errorf(CodeBadLine, "contacts file line %d is not valid UTF-8 or has a NUL character", line)
			return row
		}
	}
	row.Registrar = get("registrar")
	c := &row.Create
	c.ID, c.Email, c.AuthInfo = get("id"), get("email"), get("auth_info")
	for _, typ := range []string{"int", "loc"} {
		p := ""
		if typ == "loc" {
			p = "loc_"
		}
		pi := PostalInfo{Type: typ, Name: get(p + "name"), Org: get(p + "org"), City: get(p + "city"), SP: get(p + "sp"), PC: get(p + "pc"), CC: get(p + "cc")}
		for _, st := range []string{"street", "street2", "street3"} {
			if v := get(p + st); v != "" {
				pi.Street = append(pi.Street, v)
			}
		}
		if pi.Name != "" || pi.City != "" || pi.CC != "" || len(pi.Street) > 0 || pi.Org != "" {
			c.Postal = append(c.Postal, pi)
		}
	}
	for _, ph := range []struct {
		col string
		to  **Phone
	}{{"voice", &c.Voice}, {"fax", &c.Fax}} {
		if v := get(ph.col); v != "" {
			num, ext, _ := strings.Cut(v, "x")
			*ph.to = &Phone{Number: num, Ext: ext}
		}
	}
	if v := get("disclose"); v != "" {
		c.Disclose = &Disclose{Flag: true, Fields: strings.Fields(strings.ReplaceAll(v, ";", " "))}
	}
	return row
}

// importContactsFile creates the contacts of rows, each as its registrar
// (ids: registrar name to ID), each in its own transaction (CreateContact):
// a contact there already with the same id and registrar is left as it
// is (an import run again), one of another registrar's is refused
// (EXISTS), one the registry refuses is refused with its code.
func (s *Service) importContactsFile(ctx context.Context, rows []ImportContactRow, def string, ids map[string]int64, sum *ImportSummary, refused func(ImportRefusal)) error {
	cs, err := s.contactStore()
	if err != nil {
		return err
	}
	refuse := func(row ImportContactRow, e *Error) {
		sum.ContactsRefused++
		if refused != nil {
			refused(ImportRefusal{File: "contacts", Line: row.Line, Name: row.Create.ID, Code: e.Code, Reason: e.Message})
		}
	}
	for _, row := range rows {
		if row.Err != nil {
			refuse(row, row.Err)
			continue
		}
		reg := row.Registrar
		if reg == "" {
			reg = def
		}
		r := &Registrar{ID: ids[reg], Name: reg}
		_, err := s.CreateContact(ctx, r, row.Create)
		if CodeOf(err) == CodeExists {
			if c, cerr := cs.Contact(ctx, row.Create.ID); cerr == nil && c.Registrar == reg {
				sum.ContactsExisting++
				continue
			}
			refuse(row, &Error{Code: CodeExists, Message: fmt.Sprintf("contacts file line %d: contact %s exists, another registrar's", row.Line, row.Create.ID)})
			continue
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Code == CodeInternal {
				return err
			}
			refuse(row, &Error{Code: e.Code, Message: fmt.Sprintf("contacts file line %d: %s", row.Line, e.Message)})
			continue
		}
		sum.ContactsCreated++
	}
	return nil
}

// importContactRef is what an import knows of a contact the names file
// names: its registrar and its row's id (Contact.ROID).
type importContactRef struct {
	registrar string
	ref       int64
}

// importKnownContacts looks up the contacts ids names.
func (s *Service) importKnownContacts(ctx context.Context, ids map[string]bool) (map[string]importContactRef, error) {
	out := map[string]importContactRef{}
	if len(ids) == 0 {
		return out, nil
	}
	cs, err := s.contactStore()
	if err != nil {
		return nil, err
	}
	for id := range ids {
		if contactID(id) != nil {
			continue
		}
		c, err := cs.Contact(ctx, id)
		if CodeOf(err) == CodeNotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[id] = importContactRef{c.Registrar, c.ROID}
	}
	return out, nil
}

// judgeImportContacts checks a record's contacts as a create's are
// checked (checkCreateContacts): their form, that each exists and is
// the registrar's, and, where the zone's policy binds the import, that
// they fill the roles the zone requires.
func judgeImportContacts(cs []DomainContact, reg string, z *Zone, binds bool, known map[string]importContactRef) ([]ImportContact, *Error) {
	asErr := func(err error) *Error {
		e, _ := err.(*Error)
		return e
	}
	if err := checkDomainContacts(cs); err != nil {
		return nil, asErr(err)
	}
	var out []ImportContact
	for i, c := range cs {
		for _, d := range cs[:i] {
			if d == c {
				return nil, &Error{Code: CodeContactPolicy, Message: fmt.Sprintf("%s is named twice as a %s contact", c.ID, c.Role)}
			}
		}
		k, ok := known[c.ID]
		if !ok {
			return nil, &Error{Code: CodeNotFound, Message: "there is no contact " + c.ID}
		}
		if k.registrar != reg {
			return nil, &Error{Code: CodeContactNotSponsored, Message: fmt.Sprintf("contact %s is sponsored by another registrar: a domain takes its own registrar's contacts only", c.ID)}
		}
		out = append(out, ImportContact{Role: c.Role, Ref: k.ref})
	}
	if binds {
		for _, role := range requiredRoles(z) {
			found := false
			for _, c := range cs {
				found = found || c.Role == role
			}
			if !found {
				return nil, &Error{Code: CodeContactRequired, Message: fmt.Sprintf("a domain of zone %s has a %s contact (the zone's policy requires %s; give the %s column, or import with -contacts-exempt)", z.Name, role, joinRoles(requiredRoles(z)), role)}
			}
		}
	}
	return out, nil
}

// ImportContact is a contact of an imported name: its role and the
// contact's row (Contact.ROID).
type ImportContact struct {
	Role string
	Ref  int64
}
