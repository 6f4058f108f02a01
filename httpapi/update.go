package httpapi

import (
	"net/http"

	"github.com/akshara-idn/akshara/registry"
)

// UpdateRequest is the body of PATCH /v1/domains/{name}: every part of a
// domain's update (RFC 5731 §3.2.5, as EPP's <domain:update>), applied
// all together in one transaction or not at all (docs/registry.md).
type UpdateRequest struct {
	Add    UpdateParts `json:"add"`
	Remove UpdateParts `json:"remove"`
	// Registrant, if set, replaces the registrant.
	Registrant string `json:"registrant,omitempty"`
	// AuthInfo, if present, replaces the authInfo ("" removes it).
	AuthInfo *string `json:"auth_info,omitempty"`
}

// UpdateParts are what an update adds or removes.
type UpdateParts struct {
	Statuses    []string                 `json:"statuses,omitempty"`
	Contacts    []registry.DomainContact `json:"contacts,omitempty"`
	NameServers []string                 `json:"name_servers,omitempty"`
	DS          []registry.DS            `json:"ds,omitempty"`
	AllDS       bool                     `json:"all_ds,omitempty"` // remove only: every DS record, first
}

const updateShape = `{"add": {"statuses": [...], "contacts": [{"role": ..., "id": ...}], "name_servers": [...], "ds": [...]}, "remove": {..., "all_ds": true}, "registrant": ..., "auth_info": ...}`

func (s *Server) update(w http.ResponseWriter, r *http.Request) error {
	name, err := s.pathName(r)
	if err != nil {
		return err
	}
	var req UpdateRequest
	if err := s.decodeBody(w, r, &req, updateShape); err != nil {
		return err
	}
	if req.Add.AllDS {
		return registry.Errorf(CodeBadJSON, "all_ds goes in remove")
	}
	d, err := s.svc.UpdateDomain(lifeCtx(r), registrarOf(r), registry.DomainUpdate{Name: name,
		AddStatuses: req.Add.Statuses, RemStatuses: req.Remove.Statuses,
		AddContacts: req.Add.Contacts, RemContacts: req.Remove.Contacts, Registrant: req.Registrant,
		AddNS: req.Add.NameServers, RemNS: req.Remove.NameServers,
		AddDS: req.Add.DS, RemDS: req.Remove.DS, RemAllDS: req.Remove.AllDS,
		AuthInfo: req.AuthInfo})
	s.count("update", resultOf(err))
	if err != nil {
		return err
	}
	if d, err = s.after(r, d); err != nil { // with its contacts and delegation
		return err
	}
	return writeJSON(w, http.StatusOK, d)
}
