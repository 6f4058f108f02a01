package registry

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestImportReader(t *testing.T) {
	type rec struct {
		line                  int64
		name, reg, lang, code string
		created, expires      string
	}
	cases := []struct {
		name  string
		input string
		want  []rec
		err   bool
	}{
		{"lines", "किताब\nकमल\n", []rec{{line: 1, name: "किताब"}, {line: 2, name: "कमल"}}, false},
		{"CRLF, blank, comment, no final newline", "किताब\r\n\r\n  \n# c\nकमल", []rec{{line: 1, name: "किताब"}, {line: 5, name: "कमल"}}, false},
		{"CSV without header", "किताब,alpha,hi,2020-01-02\n", []rec{{line: 1, name: "किताब", reg: "alpha", lang: "hi", created: "2020-01-02T00:00:00Z"}}, false},
		{"header in another order", "registrar,name\nalpha,किताब\n", []rec{{line: 2, name: "किताब", reg: "alpha"}}, false},
		{"header only", "NAME,Registrar\r\n", nil, false},
		{"unknown column", "name,owner\nकिताब,x\n", nil, true},
		{"column twice", "name,name\n", nil, true},
		{"too many fields", "name,registrar\nकिताब,a,b\n", []rec{{line: 2, name: "किताब", reg: "a", code: CodeBadLine}}, false},
		{"bad UTF-8", "\xffab,alpha\n", []rec{{line: 1, name: "\xffab", reg: "alpha", code: CodeBadName}}, false},
		{"no name", ",alpha\n", []rec{{line: 1, reg: "alpha", code: CodeBadLine}}, false},
		{"bad date", "किताब,a,hi,yesterday\n", []rec{{line: 1, name: "किताब", reg: "a", lang: "hi", code: CodeBadLine}}, false},
		{"expires", "किताब,a,hi,2020-01-02,2030-01-02\nकमल,a,,,1900000000\n", []rec{
			{line: 1, name: "किताब", reg: "a", lang: "hi", created: "2020-01-02T00:00:00Z", expires: "2030-01-02T00:00:00Z"},
			{line: 2, name: "कमल", reg: "a", expires: "2030-03-17T17:46:40Z"}}, false},
		{"expires in a header", "expires,name\n2030-01-02,किताब\n", []rec{{line: 2, name: "किताब", expires: "2030-01-02T00:00:00Z"}}, false},
		{"bad expiry date", "किताब,a,hi,,later\n", []rec{{line: 1, name: "किताब", reg: "a", lang: "hi", code: CodeBadLine}}, false},
		{"six fields", "किताब,a,hi,,,x\n", []rec{{line: 1, name: "किताब", reg: "a", lang: "hi", code: CodeBadLine}}, false},
		{"RFC 3339 and Unix dates", "क1,a,,2021-03-04T05:06:07+05:30\nक2,a,,1600000000\n", []rec{
			{line: 1, name: "क1", reg: "a", created: "2021-03-03T23:36:07Z"}, {line: 2, name: "क2", reg: "a", created: "2020-09-13T12:26:40Z"}}, false},
		{"quoted fields", "\"किताब\",\"a, \"\"b\"\"\"\n", []rec{{line: 1, name: "किताब", reg: `a, "b"`}}, false},
		{"long line", strings.Repeat("क", MaxImportLine) + "\nकमल\n", []rec{{line: 1, code: CodeBadLine}, {line: 2, name: "कमल"}}, false},
		{"byte-order mark", "\ufeffname,registrar\nकिताब,a\n", []rec{{line: 2, name: "किताब", reg: "a"}}, false},
		{"byte-order mark before a name", "\ufeffकिताब\n", []rec{{line: 1, name: "किताब"}}, false},
		{"NUL in a column", "कि\x00ताब,a\nकमल,a\x00\nकमल,a,hi,2020-01-0\x002\nक,a\n", []rec{{line: 1, code: CodeBadLine}, {line: 2, code: CodeBadLine}, {line: 3, code: CodeBadLine}, {line: 4, name: "क", reg: "a"}}, false},
		{"registrar with a bidi override", "किताब,a\u202eb\n", []rec{{line: 1, name: "किताब", reg: "a\u202eb", code: CodeBadName}}, false},
		{"registrar with a zero-width space", "किताब,a\u200bb\n", []rec{{line: 1, name: "किताब", reg: "a\u200bb", code: CodeBadName}}, false},
	}
	for _, c := range cases {
		ir := NewImportReader(strings.NewReader(c.input))
		var got []rec
		var err error
		for {
			var r *ImportRecord
			r, err = ir.Next()
			if err != nil {
				break
			}
			g := rec{line: r.Line, name: r.Name, reg: r.Registrar, lang: r.Lang}
			if r.Err != nil {
				g.code = r.Err.Code
			}
			if !r.Created.IsZero() {
				g.created = r.Created.Format(time.RFC3339)
			}
			if !r.Expires.IsZero() {
				g.expires = r.Expires.Format(time.RFC3339)
			}
			if r.Err != nil && r.Err.Code == CodeBadLine && strings.HasPrefix(c.name, "long") {
				g.name = ""
			}
			got = append(got, g)
		}
		if (err != io.EOF) != c.err {
			t.Errorf("%s: error %v, want error %v", c.name, err, c.err)
			continue
		}
		if c.err {
			continue
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: %d records %+v, want %d %+v", c.name, len(got), got, len(c.want), c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: record %d = %+v, want %+v", c.name, i, got[i], c.want[i])
			}
		}
	}
}

// FuzzImportReader: any input reads to the end without panicking; line
// numbers increase; a record with no error has a non-empty UTF-8 name.
func FuzzImportReader(f *testing.F) {
	for _, s := range []string{"किताब\n", "name,registrar\r\nकिताब,a\n", "\"a\"\"b,c\n", "a,b,c,d,e\n", "\xff\n#x\n\n", "name,lang\n,,,\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ir := NewImportReader(bytes.NewReader(data))
		var last int64
		for n := 0; ; n++ {
			r, err := ir.Next()
			if err != nil {
				if err != io.EOF && !strings.Contains(err.Error(), "header") {
					t.Fatalf("error %v", err)
				}
				return
			}
			if r.Line <= last {
				t.Fatalf("line %d after %d", r.Line, last)
			}
			last = r.Line
			if r.Err == nil && (r.Name == "" || !utf8.ValidString(r.Name)) {
				t.Fatalf("record without error has name %q", r.Name)
			}
			if ir.Offset() > int64(len(data))+1 {
				t.Fatalf("offset %d past the input (%d bytes)", ir.Offset(), len(data))
			}
		}
	})
}
