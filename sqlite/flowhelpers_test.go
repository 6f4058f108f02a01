package sqlite_test

import (
	"context"

	"github.com/akshara-idn/akshara/registry"
)

// ignoreDomain is the error of a command that answers a domain.
func ignoreDomain(_ *registry.Domain, err error) error { return err }

// setAuthInfo sets (or, with "", removes) a domain's authInfo: an update
// of that part alone.
func setAuthInfo(svc *registry.Service, ctx context.Context, r *registry.Registrar, name, pw string) error {
	_, err := svc.UpdateDomain(ctx, r, registry.DomainUpdate{Name: name, AuthInfo: &pw})
	return err
}
