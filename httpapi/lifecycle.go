package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// The lifecycle's endpoints (docs/lifecycle.md): renew, restore and the
// registrar's client* statuses of a domain. Each is the registry
// service's operation, as over EPP.

// RenewRequest is the body of POST /v1/domains/{name}/renew.
type RenewRequest struct {
	CurrentExpiry string `json:"current_expiry"` // the domain's expiry date, YYYY-MM-DD (RFC 5731 curExpDate)
	Years         int    `json:"years,omitempty"`
	Months        int    `json:"months,omitempty"`
}

// RestoreRequest is the body of POST /v1/domains/{name}/restore.
type RestoreRequest struct {
	Op string `json:"op"` // request or report (RFC 3915)
}

// StatusRequest is the body of POST /v1/domains/{name}/statuses.
type StatusRequest struct {
	Add    []string `json:"add,omitempty"`
	Remove []string `json:"remove,omitempty"`
}

// lifeCtx is the request's context: it says the action comes over HTTP,
// with the request's id (the audit log records them; wrap).
func lifeCtx(r *http.Request) context.Context { return r.Context() }

// period reads years or months (neither: the zone's default).
func period(years, months int) (registry.Period, error) {
	switch {
	case years != 0 && months != 0:
		return registry.Period{}, registry.Errorf(registry.CodePeriodRange, "give years or months, not both")
	case months != 0:
		return registry.Period{N: months, Unit: 'm'}, nil
	case years != 0:
		return registry.Period{N: years, Unit: 'y'}, nil
	}
	return registry.Period{}, nil
}

// after is the answer of a command that changed d: the domain as Info
// reads it (with its conflict set, which commands do not read), with its
// statuses as of now.
func (s *Server) after(r *http.Request, d *registry.Domain) (*registry.Domain, error) {
	full, err := s.svc.Info(r.Context(), d.Name)
	if err != nil {
		return nil, err
	}
	return s.withStatuses(full), nil
}

// withStatuses is d with its statuses as of now (grace periods derived
// from the clock, or ok), as every front end reports them.
func (s *Server) withStatuses(d *registry.Domain) *registry.Domain {
	if d != nil {
		d.Statuses = s.svc.Statuses(d)
	}
	return d
}

func (s *Server) renew(w http.ResponseWriter, r *http.Request) error {
	name, err := s.pathName(r)
	if err != nil {
		return err
	}
	var req RenewRequest
	if err := s.decodeBody(w, r, &req, `{"current_expiry": "YYYY-MM-DD", "years": N}`); err != nil {
		return err
	}
	cur, err := time.Parse(time.DateOnly, req.CurrentExpiry)
	if err != nil {
		return registry.Errorf(CodeBadJSON, "current_expiry is the domain's expiry date, YYYY-MM-DD")
	}
	p, err := period(req.Years, req.Months)
	if err != nil {
		return err
	}
	d, err := s.svc.RenewDomain(lifeCtx(r), registrarOf(r), registry.DomainRenew{Name: name, CurExpiry: cur, Period: p})
	s.count("renew", resultOf(err))
	if err != nil {
		return err
	}
	if d, err = s.after(r, d); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, d)
}

func (s *Server) restore(w http.ResponseWriter, r *http.Request) error {
	name, err := s.pathName(r)
	if err != nil {
		return err
	}
	var req RestoreRequest
	if err := s.decodeBody(w, r, &req, `{"op": "request" | "report"}`); err != nil {
		return err
	}
	d, err := s.svc.RestoreDomain(lifeCtx(r), registrarOf(r), registry.DomainRestore{Name: name, Op: req.Op})
	s.count("restore", resultOf(err))
	if err != nil {
		return err
	}
	if d, err = s.after(r, d); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, d)
}

func (s *Server) statuses(w http.ResponseWriter, r *http.Request) error {
	name, err := s.pathName(r)
	if err != nil {
		return err
	}
	var req StatusRequest
	if err := s.decodeBody(w, r, &req, `{"add": [...], "remove": [...]}`); err != nil {
		return err
	}
	if len(req.Add)+len(req.Remove) == 0 {
		return registry.Errorf(registry.CodeBadStatus, "add or remove at least one status")
	}
	d, err := s.svc.UpdateDomain(lifeCtx(r), registrarOf(r), registry.DomainUpdate{Name: name, AddStatuses: req.Add, RemStatuses: req.Remove})
	s.count("statuses", resultOf(err))
	if err != nil {
		return err
	}
	if d, err = s.after(r, d); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, d)
}
