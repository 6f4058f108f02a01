package escrow

import (
	"context"
	"strings"

	"github.com/akshara-idn/akshara/registry"
)

// source is a deposit as registry.EscrowSource: each call reads the file
// again (streamed), pairing each RFC 9022 object with the akshara object
// that follows it.
type source struct {
	paths []string
}

// Restore verifies the deposits (Verify: nothing is written if one is
// refused: the deposits of every zone family of one watermark) and writes
// them into the service's store, which must be empty
// (registry.Service.RestoreEscrow: one transaction).
func Restore(ctx context.Context, svc *registry.Service, paths []string, o VerifyOptions) (*registry.EscrowRestoreReport, error) {
	for _, p := range paths {
		if _, err := Verify(p, o); err != nil {
			return nil, err
		}
	}
	return svc.RestoreEscrow(ctx, &source{paths: paths})
}

// pairs calls f with each object of kind (space, local) and the akshara
// object (space nsAkshara, local akx) that follows it, if any.
func (s *source) pairs(space, local, akx string, f func(v, ak any) error) error {
	var pending any
	flush := func(ak any) error {
		if pending == nil {
			return nil
		}
		p := pending
		pending = nil
		return f(p, ak)
	}
	for _, path := range s.paths {
		_, _, err := scan(path, func(o *object) error {
			if o.deleted {
				return nil
			}
			if o.space == nsAkshara && o.local == akx && pending != nil {
				return flush(o.v)
			}
			if err := flush(nil); err != nil {
				return err
			}
			if o.space == space && o.local == local {
				pending = o.v
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := flush(nil); err != nil {
			return err
		}
	}
	return nil
}

func (s *source) Registrars(f func(registry.EscrowRegistrar) error) error {
	return s.pairs(nsRegistrar, "registrar", "registrar", func(v, ak any) error {
		x := v.(*xRegistrar)
		r := registry.EscrowRegistrar{Name: x.ID, Created: parseTime(x.CrDate), Revoked: x.Status == "terminated"}
		if a, ok := ak.(*xAkxRegistrar); ok {
			r.Abuse = registry.AbuseContact{Email: a.AbuseEmail, Phone: a.AbusePhone}
		}
		return f(r)
	})
}

func (s *source) Contacts(f func(*registry.Contact) error) error {
	return s.pairs(nsContact, "contact", "contact", func(v, ak any) error {
		c := v.(*xRdeContact).contact()
		if a, ok := ak.(*xAkxContact); ok {
			c.AuthHash = a.AuthHash
		}
		return f(c)
	})
}

func (s *source) Domains(f func(*registry.EscrowDomain) error) error {
	return s.pairs(nsDomain, "domain", "domain", func(v, ak any) error {
		a, _ := ak.(*xAkxDomain)
		return f(v.(*xDomain).domain(a))
	})
}

func (s *source) Hosts(f func(*registry.Host) error) error {
	return s.pairs(nsHost, "host", "-", func(v, _ any) error { return f(v.(*xHost).host()) })
}

func (s *source) Reserved(f func(registry.ReservedName) error) error {
	return s.pairs(nsNNDN, "NNDN", "-", func(v, _ any) error {
		x := v.(*xNNDN)
		if x.State != "withheld" {
			return nil
		}
		name := x.AName
		if x.UName != "" {
			name = x.UName
		}
		label, zone, _ := strings.Cut(name, ".")
		return f(registry.ReservedName{Zone: zone, Label: label, Reason: "escrow", Created: parseTime(x.CrDate)})
	})
}

func (s *source) Blocked(f func(name, holder string) error) error {
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
