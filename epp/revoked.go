package epp

import (
	"errors"

	"github.com/akshara-idn/akshara/registry"
)

// active checks, before each command of a logged-in session, that its
// registrar is still not revoked: one lookup by primary key in the store,
// so a revocation made by another process (akshara registrar revoke)
// against the same database ends the session at its next command, answered
// 2501 (authentication error, closing). nil lets the command run; a
// store that cannot tell fails the command (2400, with the reason when
// the database is unavailable) without running it.
func (ss *session) active() *response {
	ctx, cancel := ss.contextFor()
	defer cancel()
	err := ss.s.svc.RegistrarActive(ctx, ss.registrar)
	if err == nil {
		return nil
	}
	var re *registry.Error
	if errors.As(err, &re) && re.Code == registry.CodeRevoked {
		ss.log.Warn("epp: session ended: the registrar is revoked")
		return fail(CodeAuthClosing, messages[CodeAuthClosing]+": "+re.Message)
	}
	ss.log.Error("epp: checking the registrar's state", "error", err)
	return fromError(err) // UNAVAILABLE says to retry; INTERNAL stays bare
}
