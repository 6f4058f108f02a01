package httpapi

import (
	"net/http"

	"github.com/akshara-idn/akshara/registry"
)

// Hosts (RFC 5732) and contacts (RFC 5733) over HTTP: each endpoint one
// command of the registry service, as over EPP (docs/registry.md,
// docs/delegation.md, docs/contacts.md).

// HostRequest is the body of POST /v1/hosts.
type HostRequest struct {
	Name  string   `json:"name"`
	Addrs []string `json:"addrs,omitempty"` // glue: IPv4 or IPv6
}

// HostPatch is the body of PATCH /v1/hosts/{name}.
type HostPatch struct {
	Add     HostParts `json:"add"`
	Remove  HostParts `json:"remove"`
	NewName string    `json:"new_name,omitempty"`
}

// HostParts are what a host update adds or removes.
type HostParts struct {
	Addrs    []string `json:"addrs,omitempty"`
	Statuses []string `json:"statuses,omitempty"`
}

func addrs(in []string) []registry.Addr {
	out := make([]registry.Addr, len(in))
	for i, a := range in {
		out[i] = registry.Addr{IP: a}
	}
	return out
}

func (s *Server) createHost(w http.ResponseWriter, r *http.Request) error {
	var req HostRequest
	if err := s.decodeBody(w, r, &req, `{"name": ..., "addrs": [...]}`); err != nil {
		return err
	}
	setName(r, req.Name)
	h, err := s.svc.CreateHost(lifeCtx(r), registrarOf(r), registry.HostCreate{Name: req.Name, Addrs: addrs(req.Addrs)})
	s.count("host-create", resultOf(err))
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/v1/hosts/"+h.Name)
	return writeJSON(w, http.StatusCreated, h)
}

func (s *Server) hostInfo(w http.ResponseWriter, r *http.Request) error {
	name, err := s.pathName(r)
	if err != nil {
		return err
	}
	h, err := s.svc.HostInfo(r.Context(), name)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, h)
}

func (s *Server) updateHost(w http.ResponseWriter, r *http.Request) error {
	name, err := s.pathName(r)
	if err != nil {
		return err
	}
	var req HostPatch
	if err := s.decodeBody(w, r, &req, `{"add": {"addrs": [...], "statuses": [...]}, "remove": {...}, "new_name": ...}`); err != nil {
		return err
	}
	err = s.svc.UpdateHost(lifeCtx(r), registrarOf(r), registry.HostUpdate{Name: name,
		AddAddrs: addrs(req.Add.Addrs), RemAddrs: addrs(req.Remove.Addrs),
		AddStatuses: req.Add.Statuses, RemStatuses: req.Remove.Statuses, NewName: req.NewName})
	s.count("host-update", resultOf(err))
	if err != nil {
		return err
	}
	if req.NewName != "" {
		name = req.NewName
	}
	h, err := s.svc.HostInfo(r.Context(), name)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, h)
}

func (s *Server) deleteHost(w http.ResponseWriter, r *http.Request) error {
	name, err := s.pathName(r)
	if err != nil {
		return err
	}
	err = s.svc.DeleteHost(lifeCtx(r), registrarOf(r), registry.HostDelete{Name: name})
	s.count("host-delete", resultOf(err))
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// ContactRequest is the body of POST /v1/contacts: the id, the contact's
// data and its authInfo.
type ContactRequest struct {
	ID string `json:"id"`
	registry.ContactData
	AuthInfo string `json:"auth_info"`
}

// ContactPatch is the body of PATCH /v1/contacts/{id}: the statuses
// added and removed, and the fields given replace the contact's (postal
// info by type).
type ContactPatch struct {
	Add      ContactStatuses       `json:"add"`
	Remove   ContactStatuses       `json:"remove"`
	Postal   []registry.PostalInfo `json:"postal,omitempty"`
	Voice    *registry.Phone       `json:"voice,omitempty"`
	Fax      *registry.Phone       `json:"fax,omitempty"`
	Email    string                `json:"email,omitempty"`
	Disclose *registry.Disclose    `json:"disclose,omitempty"`
	AuthInfo string                `json:"auth_info,omitempty"`
}

// ContactStatuses are the statuses a contact update adds or removes.
type ContactStatuses struct {
	Statuses []string `json:"statuses,omitempty"`
}

func (s *Server) createContact(w http.ResponseWriter, r *http.Request) error {
	var req ContactRequest
	if err := s.decodeBody(w, r, &req, `{"id": ..., "postal": [...], "voice": ..., "email": ..., "disclose": ..., "auth_info": ...}`); err != nil {
		return err
	}
	setName(r, req.ID)
	c, err := s.svc.CreateContact(lifeCtx(r), registrarOf(r), registry.ContactCreate{ID: req.ID, ContactData: req.ContactData, AuthInfo: req.AuthInfo})
	s.count("contact-create", resultOf(err))
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/v1/contacts/"+c.ID)
	return writeJSON(w, http.StatusCreated, c)
}

func (s *Server) contactInfo(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	setName(r, id)
	// the sponsor's, or another's with the contact's authInfo in a header
	c, err := s.svc.ContactInfo(r.Context(), registrarOf(r), id, r.Header.Get("Auth-Info"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, c)
}

func (s *Server) updateContact(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	setName(r, id)
	var req ContactPatch
	if err := s.decodeBody(w, r, &req, `{"add": {"statuses": [...]}, "remove": {...}, "postal": [...], "voice": ..., "fax": ..., "email": ..., "disclose": ..., "auth_info": ...}`); err != nil {
		return err
	}
	u := registry.ContactUpdate{ID: id, AddStatuses: req.Add.Statuses, RemStatuses: req.Remove.Statuses,
		Voice: req.Voice, Fax: req.Fax, Email: req.Email, Disclose: req.Disclose, AuthInfo: req.AuthInfo}
	for _, p := range req.Postal {
		p := p
		u.Postal = append(u.Postal, registry.PostalChange{Type: p.Type, Name: &p.Name, Org: &p.Org, Addr: &p})
	}
	err := s.svc.UpdateContact(lifeCtx(r), registrarOf(r), u)
	s.count("contact-update", resultOf(err))
	if err != nil {
		return err
	}
	c, err := s.svc.ContactInfo(r.Context(), registrarOf(r), id, "")
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, c)
}

func (s *Server) deleteContact(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	setName(r, id)
	err := s.svc.DeleteContact(lifeCtx(r), registrarOf(r), registry.ContactDelete{ID: id})
	s.count("contact-delete", resultOf(err))
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
