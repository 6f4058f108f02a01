package akshara

import (
	"bytes"
	"crypto/sha256"
	hexenc "encoding/hex"
	"io/fs"
	"path"
	"sort"
	"sync"

	"golang.org/x/text/unicode/norm"
)

// PolicyDataRelease is the human version of the policy data (the language
// files, the zones file and the cross-script homoglyph table compiled into
// the binary). Raise it when a file
// changes what any label is judged to be; the content hash in DataVersion
// changes by itself with any edit.
const PolicyDataRelease = "1.8.1"

// Versions says which data a verdict was reached under.
type Versions struct {
	// Policy is PolicyDataRelease and a hash of the policy data files, such
	// as "1.8.1+3f2a9c1b04de": two binaries with the same Policy judge every
	// label alike.
	Policy string `json:"policy"`
	// Unicode is the Unicode version of the IDNA2008 derived properties the
	// repertoires are checked against (IDNA2008Version).
	Unicode string `json:"unicode"`
	// NFC is the Unicode version of the normalization tables
	// (golang.org/x/text/unicode/norm) labels are normalized with.
	NFC string `json:"nfc"`
	// Files lists the policy data files hashed, with their own hashes.
	Files []DataFile `json:"files"`
}

// DataFile is one policy data file and the start of its SHA-256.
type DataFile struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// String is "policy POLICY, unicode UNICODE".
func (v Versions) String() string {
	s := "policy " + v.Policy + ", unicode " + v.Unicode
	if v.NFC != v.Unicode {
		s += " (nfc " + v.NFC + ")"
	}
	return s
}

var dataVersions struct {
	once  sync.Once
	v     Versions
	files map[string][]byte
}

// DataVersions returns the versions of the data compiled into the binary.
func DataVersions() Versions {
	dataVersions.once.Do(func() {
		files := map[string][]byte{}
		fs.WalkDir(languageFiles, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, err := languageFiles.ReadFile(p); err == nil {
					files[p] = b
				}
			}
			return nil
		})
		// the other policy tables compiled in
		files["homoglyphs/indic.txt"] = homoglyphFile
		files["zones/zones.txt"] = withoutLifecycle(zonesFile)
		dataVersions.v = VersionsOf(files)
		dataVersions.files = files
	})
	return dataVersions.v
}

// DataFiles returns the policy data files compiled into the binary (path
// -> content), for computing the version of a set where some are replaced
// (VersionsOf).
func DataFiles() map[string][]byte {
	DataVersions()
	out := make(map[string][]byte, len(dataVersions.files))
	for n, b := range dataVersions.files {
		out[n] = b
	}
	return out
}

// DataVersion is DataVersions().Policy: the version every verdict and
// every domain record carries.
func DataVersion() string { return DataVersions().Policy }

// VersionsOf computes the versions of a set of policy data files (path ->
// content), such as a set of languages where one file was replaced: the
// hash covers every file's base name and content, in name order.
func VersionsOf(files map[string][]byte) Versions {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	all := sha256.New()
	v := Versions{Unicode: IDNA2008Version, NFC: norm.Version, Files: []DataFile{}}
	for _, n := range names {
		sum := sha256.Sum256(files[n])
		base := path.Base(n)
		all.Write([]byte(base))
		all.Write([]byte{0})
		all.Write(sum[:])
		v.Files = append(v.Files, DataFile{Name: base, SHA256: hexenc.EncodeToString(sum[:8])})
	}
	v.Policy = PolicyDataRelease + "+" + hexenc.EncodeToString(all.Sum(nil)[:6])
	return v
}

// withoutLifecycle is a zones file without its lifecycle, contacts and
// variants lines (and the comment lines about them): the registration
// policy (periods, grace and deletion periods, docs/lifecycle.md; the
// contacts a domain needs, docs/contacts.md; who may hold a name's
// variants, docs/variants.md "Same entity") does not change what any
// label is judged to be, nor its conflict set, so it is not part of the
// policy data DataVersion hashes.
func withoutLifecycle(file []byte) []byte {
	var out []byte
	for _, line := range bytes.SplitAfter(file, []byte("\n")) {
		t := bytes.TrimLeft(bytes.TrimSpace(line), "#")
		if t = bytes.TrimSpace(t); bytes.HasPrefix(t, []byte("lifecycle")) || bytes.HasPrefix(t, []byte("contacts")) || variantsLine(t) {
			continue
		}
		out = append(out, line...)
	}
	return out
}

// variantsLine reports whether a zones file line (comment marks and
// blanks trimmed) is a `variants` setting or the comment describing one:
// "variants" and then a policy, a kind or POLICY (not prose that starts
// with the word).
func variantsLine(t []byte) bool {
	f := bytes.Fields(t)
	if len(f) < 2 || string(f[0]) != "variants" {
		return false
	}
	k, _, _ := bytes.Cut(f[1], []byte("="))
	switch string(bytes.TrimRight(k, ",:")) {
	case VariantsBlock, VariantsSameEntity, "same-label", "other", "POLICY":
		return true
	}
	return false
}
