package httpapi

import (
	"net/http"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// The registry lock's endpoints (docs/lifecycle.md, "Registry lock"): a
// registrar asks to lock or unlock its domain with its registrant's
// one-time code.

// LockRequest is the body of POST /v1/domains/{name}/lock and /unlock.
type LockRequest struct {
	// Code is the registrant's current one-time code (RFC 6238).
	Code string `json:"code"`
	// RelockAfter is, for an unlock, the seconds until the relock (0:
	// an hour).
	RelockAfter int64 `json:"relock_after"`
}

func (s *Server) lock(w http.ResponseWriter, r *http.Request) error {
	return s.lockOrUnlock(w, r, true)
}
func (s *Server) unlock(w http.ResponseWriter, r *http.Request) error {
	return s.lockOrUnlock(w, r, false)
}

func (s *Server) lockOrUnlock(w http.ResponseWriter, r *http.Request, lock bool) error {
	name, err := s.pathName(r)
	if err != nil {
		return err
	}
	var req LockRequest
	if err := s.decodeBody(w, r, &req, `{"code": "123456", "relock_after": SECONDS}`); err != nil {
		return err
	}
	lr := registry.DomainLockRequest{Name: name, Code: req.Code, RelockAfter: time.Duration(req.RelockAfter) * time.Second}
	var d *registry.Domain
	op := "unlock"
	if lock {
		op = "lock"
		d, err = s.svc.LockDomain(r.Context(), registrarOf(r), lr)
	} else {
		d, err = s.svc.UnlockDomain(r.Context(), registrarOf(r), lr)
	}
	s.count(op, resultOf(err))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, s.withStatuses(d))
}
