package escrow

import (
	"embed"
	"fmt"
	"hash/maphash"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

//go:embed xsd/*.xsd
var schemas embed.FS

// VerifyOptions say what Verify checks beside the contents.
type VerifyOptions struct {
	// Xmllint is the xmllint command to validate the deposit against the
	// schemas with; "" skips the schema check (Verification.Schema false).
	Xmllint string
	// Progress, if not nil, is kept up to date: verifying each file (each
	// object read) and, in a restore, restoring each kind of object.
	Progress *Progress
}

// Verification is what Verify found.
type Verification struct {
	Type      string
	Watermark time.Time
	Counts    map[string]int64 // objects by URI
	Headers   map[string]int64 // the headers' counts, summed, by URI
	Schema    bool             // validated by xmllint
	// Names maps the clIDs of registrars whose name is not their clID
	// to their names (akx:registrar).
	Names map[string]string
}

// Verify checks a deposit as an escrow agent does: well-formed to its end
// (CodeTruncated), valid under the schemas (CodeSchema, with xmllint),
// every contact, host, registrar and language table an object names held
// by the deposit (CodeReference), and the header's counts equal to the
// contents (CodeCount).
func Verify(path string, o VerifyOptions) (*Verification, error) {
	v := &Verification{Counts: map[string]int64{}, Headers: map[string]int64{}, Names: map[string]string{}}
	contacts, hosts, regs, tables := newKeySet(), newKeySet(), newKeySet(), newKeySet()
	type ref struct{ kind, name, by string }
	var refs []ref // resolved after the pass (the objects come in any order)
	need := func(kind, name, by string) { refs = append(refs, ref{kind, name, by}) }
	o.Progress.begin("verifying " + filepath.Base(path))
	typ, wm, err := scan(path, func(ob *object) error {
		o.Progress.add(1)
		if ob.deleted {
			return nil
		}
		if ob.space != nsHeader {
			v.Counts[ob.space]++
		}
		switch x := ob.v.(type) {
		case *xHeader:
			for _, c := range x.Counts {
				v.Headers[c.URI] += c.N
			}
		case *xRegistrar:
			regs.add(x.ID)
		case *xAkxRegistrar:
			if x.Name != "" {
				v.Names[x.ID] = x.Name
			}
		case *xIDN:
			tables.add(x.ID)
		case *xRdeContact:
			contacts.add(x.ID)
			need("registrar", x.ClID, "contact "+x.ID)
		case *xHost:
			hosts.add(strings.ToLower(x.Name))
			need("registrar", x.ClID, "host "+x.Name)
		case *xDomain:
			by := "domain " + x.Name
			need("registrar", x.ClID, by)
			if x.Registrant != "" {
				need("contact", x.Registrant, by)
			}
			for _, c := range x.Contacts {
				need("contact", c.ID, by)
			}
			for _, n := range x.NS {
				need("host", strings.ToLower(strings.TrimSuffix(n, ".")), by)
			}
			if x.IDNTable != "" {
				need("idnTable", x.IDNTable, by)
			}
			if x.Trn != nil {
				need("registrar", x.Trn.ReRr, by)
				need("registrar", x.Trn.AcRr, by)
			}
		case *xNNDN:
			if x.IDNTable != "" {
				need("idnTable", x.IDNTable, "NNDN "+x.AName)
			}
		}
		if len(refs) > 4096 {
			refs = slices.DeleteFunc(refs, func(r ref) bool {
				switch r.kind {
				case "registrar":
					return regs.has(r.name)
				case "contact":
					return contacts.has(r.name)
				case "host":
					return hosts.has(r.name)
				}
				return tables.has(r.name)
			})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	v.Type, v.Watermark = typ, wm
	for _, r := range refs {
		if typ == "DIFF" {
			break // a DIFF deposit's objects name those of the deposits before it
		}
		var ok bool
		switch r.kind {
		case "registrar":
			ok = regs.has(r.name)
		case "contact":
			ok = contacts.has(r.name)
		case "host":
			ok = hosts.has(r.name)
		default:
			ok = tables.has(r.name)
		}
		if !ok {
			return nil, errorf(CodeReference, "%s: %s names %s %q, which the deposit does not hold", path, r.by, r.kind, r.name)
		}
	}
	for _, u := range objURIs {
		if u == nsHeader {
			continue
		}
		if v.Counts[u] != v.Headers[u] {
			return nil, errorf(CodeCount, "%s: the header counts %d objects of %s, the deposit holds %d", path, v.Headers[u], u, v.Counts[u])
		}
	}
	if o.Xmllint != "" {
		if err := Validate(o.Xmllint, path); err != nil {
			return nil, err
		}
		v.Schema = true
	}
	return v, nil
}

// Validate runs xmllint --schema on the deposit against the vendored
// schemas (written to a temporary directory).
func Validate(xmllint, path string) error {
	dir, err := os.MkdirTemp("", "escrow-xsd-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	err = fs.WalkDir(schemas, "xsd", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := schemas.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644)
	})
	if err != nil {
		return err
	}
	out, err := exec.Command(xmllint, "--noout", "--nonet", "--huge", "--stream", "--schema", filepath.Join(dir, "deposit.xsd"), path).CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if len(msg) > 2000 {
			msg = msg[:2000] + " …"
		}
		return errorf(CodeSchema, "%s: %s", path, msg)
	}
	return nil
}

var _ = fmt.Sprint

// keySet is a set of the keys a deposit holds (contact ids, host names …)
// that references are resolved against: each key kept as a 128-bit hash
// (two seeds of hash/maphash), not as its string, so that verifying a 10
// million-domain deposit holds 16 bytes a key instead of the string and
// its header. Two keys are taken as one only if both 64-bit hashes
// collide (about 1 in 2^128 a pair).
type keySet struct {
	seeds [2]maphash.Seed
	m     map[[2]uint64]struct{}
}

func newKeySet() *keySet {
	return &keySet{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, m: map[[2]uint64]struct{}{}}
}

func (k *keySet) key(s string) [2]uint64 {
	return [2]uint64{maphash.String(k.seeds[0], s), maphash.String(k.seeds[1], s)}
}

func (k *keySet) add(s string)      { k.m[k.key(s)] = struct{}{} }
func (k *keySet) has(s string) bool { _, ok := k.m[k.key(s)]; return ok }
