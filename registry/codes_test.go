package registry_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

// TestEveryCodeHasAnEntry finds every Code* string constant of the package
// in its source, so that a code added later without a table entry fails.
func TestEveryCodeHasAnEntry(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !strings.HasPrefix(n.Name, "Code") || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					code, _ := strconv.Unquote(lit.Value)
					found++
					if !registry.KnownCode(code) {
						t.Errorf("%s (%q) has no entry in the code table (registry/codes.go)", n.Name, code)
					}
				}
			}
		}
	}
	if found < 10 {
		t.Errorf("found %d code constants; the scan is broken", found)
	}
}

func TestCodeTable(t *testing.T) {
	tests := []struct {
		code      string
		http, epp int
	}{
		{registry.CodeConflict, 409, 2302},
		{registry.CodeInvalid, 422, 2306},
		{registry.CodeBadName, 400, 2005},
		{registry.CodeUnauthorized, 401, 2200},
		{registry.CodeForbidden, 403, 2201},
		{registry.CodeNotFound, 404, 2303},
		{registry.CodeInternal, 500, 2400},
		// a required contact missing is a required parameter missing
		// (RFC 5730 §3), not a policy error (issue 34 item 12)
		{registry.CodeContactRequired, 422, 2003},
		{"NO_SUCH_CODE", 500, 2400},
	}
	for _, tt := range tests {
		if i := registry.InfoOf(tt.code); i.HTTP != tt.http || i.EPP != tt.epp {
			t.Errorf("InfoOf(%s) = %+v, want HTTP %d EPP %d", tt.code, i, tt.http, tt.epp)
		}
	}
	for _, c := range registry.Codes() {
		i := registry.InfoOf(c)
		if n := len(i.Reason); n == 0 || n > 32 {
			t.Errorf("%s: reason %q has %d characters; EPP allows 1 to 32", c, i.Reason, n)
		}
		if i.EPP < 2000 || i.EPP > 2502 || i.HTTP < 400 || i.HTTP > 599 {
			t.Errorf("%s: %+v is not an error status and result code", c, i)
		}
	}
}
