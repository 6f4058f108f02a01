package inputdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRequire(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, want string }{
		{"", "-corpora DIR is required: the word lists"},
		{filepath.Join(dir, "none"), "-corpora " + filepath.Join(dir, "none") + ": stat"},
		{file, "-corpora " + file + ": not a directory"},
		{dir, ""},
	} {
		err := Require("corpora", c.dir, "the word lists")
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: %v", c.dir, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q…", c.dir, err, c.want)
		}
	}
}
