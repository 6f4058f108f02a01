package escrow

import (
	"context"
	"iter"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// source is a FULL deposit and the DIFF deposits after it (each of one
// file a zone family) as registry.EscrowSource: the registry as of the
// last watermark. An object is taken from the last deposit that names it
// (an object there, or a delete: then from none); the keys the DIFF
// deposits name are kept in memory (as many as they hold), the FULL
// deposit is read from its files on each pass. Domains come in the order
// of their roids (the order they were created) across the files.
type source struct {
	files  []layerFile
	latest map[string]map[string]mention // kind -> key -> its last mention
	names  map[string]string             // registrar clID -> name (akx:registrar), when they differ
	prog   *Progress
}

// name is the registrar name of a clID.
func (s *source) name(id string) string {
	if n, ok := s.names[id]; ok {
		return n
	}
	return id
}

type layerFile struct {
	path  string
	layer int // 0 for the FULL deposit, then each DIFF's watermark in order
}

type mention struct {
	layer   int
	deleted bool
}

// Restore verifies the deposits (Verify: nothing is written if one is
// refused) — the FULL deposit of each zone family at one watermark, and
// the DIFF deposits after it — and writes the registry they make into the
// service's store, which must be empty (registry.Service.RestoreEscrow:
// one transaction).
func Restore(ctx context.Context, svc *registry.Service, paths []string, o VerifyOptions) (*registry.EscrowRestoreReport, error) {
	type head struct {
		path string
		typ  string
		wm   time.Time
	}
	var heads []head
	names := map[string]string{}
	for _, p := range paths {
		v, err := Verify(p, o)
		if err != nil {
			return nil, err
		}
		heads = append(heads, head{p, v.Type, v.Watermark})
		maps.Copy(names, v.Names)
	}
	slices.SortStableFunc(heads, func(a, b head) int {
		if (a.typ == "FULL") != (b.typ == "FULL") {
			if a.typ == "FULL" {
				return -1
			}
			return 1
		}
		return a.wm.Compare(b.wm)
	})
	src := &source{latest: map[string]map[string]mention{}, names: names, prog: o.Progress}
	layer, full := 0, time.Time{}
	for i, h := range heads {
		switch {
		case h.typ == "FULL" && i > 0 && !h.wm.Equal(full):
			return nil, errorf(registry.CodeEscrowRestore, "%s: FULL deposits of two watermarks (%s, %s): restore one FULL deposit and the DIFF deposits after it", h.path, ts(full), ts(h.wm))
		case h.typ == "FULL":
			full = h.wm
		case h.typ == "DIFF" && len(src.files) == 0:
			return nil, errorf(registry.CodeEscrowRestore, "%s: a DIFF deposit without the FULL deposit before it", h.path)
		case h.typ == "DIFF" && !h.wm.After(full):
			return nil, errorf(registry.CodeEscrowRestore, "%s: a DIFF deposit at or before its FULL deposit's watermark", h.path)
		case h.typ != "FULL" && h.typ != "DIFF":
			return nil, errorf(CodeSchema, "%s: deposit type %s (FULL or DIFF restore)", h.path, h.typ)
		}
		if i > 0 && !h.wm.Equal(heads[i-1].wm) {
			layer++
		}
		src.files = append(src.files, layerFile{path: h.path, layer: layer})
	}
	// what the DIFF deposits name, last mention kept
	for _, f := range src.files {
		if f.layer == 0 {
			continue
		}
		o.Progress.begin("reading the changes of " + filepath.Base(f.path))
		_, _, err := scan(f.path, func(o *object) error {
			for _, k := range keysOf(o) {
				m := src.latest[k.kind]
				if m == nil {
					m = map[string]mention{}
					src.latest[k.kind] = m
				}
				m[k.key] = mention{layer: f.layer, deleted: o.deleted}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return svc.RestoreEscrow(ctx, src)
}

type objKey struct{ kind, key string }

// keysOf returns the keys an object (or a delete) names.
func keysOf(o *object) []objKey {
	switch x := o.v.(type) {
	case *xDelete:
		var out []objKey
		kind := map[string]string{nsDomain: "domain", nsHost: "host", nsContact: "contact", nsNNDN: "nndn", nsRegistrar: "registrar"}[o.space]
		for _, n := range x.Names {
			out = append(out, objKey{kind, strings.ToLower(n)})
		}
		for _, n := range x.ROIDs {
			out = append(out, objKey{kind, n})
		}
		for _, n := range x.IDs {
			out = append(out, objKey{kind, n})
		}
		for _, n := range x.ANames {
			out = append(out, objKey{kind, strings.ToLower(n)})
		}
		return out
	case *xDomain:
		return []objKey{{"domain", strings.ToLower(x.Name)}}
	case *xHost:
		return []objKey{{"host", x.ROID}}
	case *xRdeContact:
		return []objKey{{"contact", x.ID}}
	case *xNNDN:
		return []objKey{{"nndn", strings.ToLower(x.AName)}}
	case *xRegistrar:
		return []objKey{{"registrar", x.ID}}
	}
	return nil
}

// live reports whether an object of file f is the registry's: no later
// deposit names it.
func (s *source) live(f layerFile, o *object) bool {
	for _, k := range keysOf(o) {
		if m, ok := s.latest[k.kind][k.key]; ok && (m.layer != f.layer || m.deleted) {
			return false
		}
	}
	return true
}

// pairsOf yields each live object of kind (space, local) of one file with
// the akshara object (local akx) that follows it, if any.
func (s *source) pairsOf(f layerFile, space, local, akx string) iter.Seq2[any, any] {
	return func(yield func(any, any) bool) {
		var pending any
		stopped := false
		flush := func(ak any) error {
			if pending == nil {
				return nil
			}
			p := pending
			pending = nil
			if !yield(p, ak) {
				stopped = true
				return errStop
			}
			return nil
		}
		_, _, err := scan(f.path, func(o *object) error {
			if o.deleted {
				return nil
			}
			if o.space == nsAkshara && o.local == akx && pending != nil {
				return flush(o.v)
			}
			if err := flush(nil); err != nil {
				return err
			}
			if o.space == space && o.local == local && s.live(f, o) {
				pending = o.v
			}
			return nil
		})
		if err == nil && !stopped {
			flush(nil)
		}
		if err != nil && err != errStop {
			yield(err, nil)
		}
	}
}

// pairs calls f with each live object of kind of every file, file by file.
func (s *source) pairs(space, local, akx string, f func(v, ak any) error) error {
	for _, lf := range s.files {
		for v, ak := range s.pairsOf(lf, space, local, akx) {
			if err, ok := v.(error); ok {
				return err
			}
			s.prog.add(1)
			if err := f(v, ak); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *source) Registrars(f func(registry.EscrowRegistrar) error) error {
	s.prog.begin("restoring the registrars")
	return s.pairs(nsRegistrar, "registrar", "registrar", func(v, ak any) error {
		x := v.(*xRegistrar)
		r := registry.EscrowRegistrar{Name: s.name(x.ID), Created: parseTime(x.CrDate), Revoked: x.Status == "terminated"}
		if a, ok := ak.(*xAkxRegistrar); ok {
			r.Abuse = registry.AbuseContact{Email: a.AbuseEmail, Phone: a.AbusePhone}
		}
		return f(r)
	})
}

func (s *source) Contacts(f func(*registry.Contact) error) error {
	s.prog.begin("restoring the contacts")
	return s.pairs(nsContact, "contact", "contact", func(v, ak any) error {
		c := v.(*xRdeContact).contact()
		c.Registrar = s.name(c.Registrar)
		if a, ok := ak.(*xAkxContact); ok {
			c.AuthHash = a.AuthHash
		}
		return f(c)
	})
}

// Domains merges the files' domains by roid: the order they were created.
func (s *source) Domains(f func(*registry.EscrowDomain) error) error {
	s.prog.begin("restoring the domains")
	type head struct {
		d    *registry.EscrowDomain
		next func() (any, any, bool)
		stop func()
	}
	var heads []*head
	defer func() {
		for _, h := range heads {
			h.stop()
		}
	}()
	advance := func(h *head) error {
		v, ak, ok := h.next()
		if !ok {
			h.d = nil
			return nil
		}
		if err, isErr := v.(error); isErr {
			return err
		}
		a, _ := ak.(*xAkxDomain)
		h.d = v.(*xDomain).domain(a)
		h.d.Registrar = s.name(h.d.Registrar)
		if t := h.d.Pending; t != nil {
			t.Gaining, t.Losing = s.name(t.Gaining), s.name(t.Losing)
		}
		return nil
	}
	for _, lf := range s.files {
		next, stop := iter.Pull2(s.pairsOf(lf, nsDomain, "domain", "domain"))
		h := &head{next: next, stop: stop}
		heads = append(heads, h)
		if err := advance(h); err != nil {
			return err
		}
	}
	for {
		var min *head
		for _, h := range heads {
			if h.d != nil && (min == nil || h.d.ID < min.d.ID) {
				min = h
			}
		}
		if min == nil {
			return nil
		}
		s.prog.add(1)
		if err := f(min.d); err != nil {
			return err
		}
		if err := advance(min); err != nil {
			return err
		}
	}
}

func (s *source) Hosts(f func(*registry.Host) error) error {
	s.prog.begin("restoring the hosts")
	return s.pairs(nsHost, "host", "-", func(v, _ any) error {
		h := v.(*xHost).host()
		h.Registrar = s.name(h.Registrar)
		return f(h)
	})
}

func (s *source) Reserved(f func(registry.ReservedName) error) error {
	s.prog.begin("restoring the reserved names")
	return s.pairs(nsNNDN, "NNDN", "reserved", func(v, ak any) error {
		x := v.(*xNNDN)
		if x.State != "withheld" {
			return nil
		}
		name := x.AName
		if x.UName != "" {
			name = x.UName
		}
		label, zone, _ := strings.Cut(name, ".")
		r := registry.ReservedName{Zone: zone, Label: label, Created: parseTime(x.CrDate)}
		if a, ok := ak.(*xAkxReserved); ok {
			r.Reason = a.Reason
		}
		return f(r)
	})
}

func (s *source) Blocked(f func(name, holder string) error) error {
	s.prog.begin("restoring the blocked names (NNDN)")
	return s.pairs(nsNNDN, "NNDN", "-", func(v, _ any) error {
		x := v.(*xNNDN)
		if x.State != "blocked" {
			return nil
		}
		name := x.AName
		if x.UName != "" {
			name = x.UName
		}
		return f(name, x.Original)
	})
}
