package rdap

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// The registrar entity (RFC 9083 §5.1, role "registrar") of every domain
// and name server answer: handle R{id}-AKSHARA-REGISTRAR, a self link to
// /rdap/entity/{handle}, which answers it on its own, the registrar's
// name as its vCard fn, status active (inactive once revoked), and its
// abuse contact as an entity of its own with role "abuse" (an email and
// a telephone number, which the registry operator records: akshara
// registrar abuse), or a remark that none is recorded. docs/rdap.md, "The
// registrar".

// registrarSuffix ends a registrar's handle. A handle R{id}-AKSHARA-
// REGISTRAR has at least 20 characters and a contact id at most 16 (EPP's
// clIDType), so no contact's handle is a registrar's: /rdap/entity/ tells
// them apart by the form alone.
const registrarSuffix = "-AKSHARA-REGISTRAR"

// RegistrarHandle is the handle of the registrar of an ID.
func RegistrarHandle(id int64) string { return "R" + strconv.FormatInt(id, 10) + registrarSuffix }

// registrarID reads a registrar handle: its ID, or false if the handle
// is not one (exactly as RegistrarHandle writes it).
func registrarID(handle string) (int64, bool) {
	s, ok := strings.CutPrefix(handle, "R")
	if !ok {
		return 0, false
	}
	if s, ok = strings.CutSuffix(s, registrarSuffix); !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil && id > 0 && strconv.FormatInt(id, 10) == s
}

// RegistrarOf renders a registrar as its entity (without links, which
// depend on the request).
func RegistrarOf(pr *registry.PublicRegistrar) Entity {
	e := Entity{
		ObjectClassName: "entity",
		Handle:          RegistrarHandle(pr.ID),
		Roles:           []string{"registrar"},
		VCard:           []any{"vcard", []any{vcardVersion, []any{"fn", map[string]any{}, "text", pr.Name}}},
		Status:          []string{"active"},
	}
	if !pr.Revoked.IsZero() {
		e.Status = []string{"inactive"}
	}
	if pr.Abuse.IsZero() {
		e.Remarks = []Notice{{Title: "No abuse contact", Description: []string{
			"The registry operator has recorded no abuse contact for this registrar.",
		}}}
		return e
	}
	card := []any{vcardVersion, []any{"fn", map[string]any{}, "text", "Abuse contact of " + pr.Name}}
	if pr.Abuse.Phone != "" {
		card = append(card, []any{"tel", map[string]any{"type": []string{"voice"}}, "uri", "tel:" + pr.Abuse.Phone})
	}
	if pr.Abuse.Email != "" {
		card = append(card, []any{"email", map[string]any{}, "text", pr.Abuse.Email})
	}
	e.Entities = []Entity{{ObjectClassName: "entity", Roles: []string{"abuse"}, VCard: []any{"vcard", card}}}
	return e
}

var vcardVersion = []any{"version", map[string]any{}, "text", "4.0"}

// sponsor replaces each registrar entity of entities (as DomainOf and
// NameserverOf make it: the name only) by the registrar's whole entity,
// with its self link and abuse contact. cache, if not nil, keeps the
// entities of the registrars read (a search's page names few).
func (h *handler) sponsor(r *http.Request, entities []Entity, cache map[string]Entity) error {
	for i, e := range entities {
		if !slices.Contains(e.Roles, "registrar") {
			continue
		}
		name := e.Handle
		if full, ok := cache[name]; ok {
			entities[i] = full
			continue
		}
		pr, err := h.svc.PublicRegistrar(registry.Public(r.Context()), name)
		if registry.CodeOf(err) == registry.CodeNotFound {
			continue // renamed or gone meanwhile: the name is what is known
		}
		if err != nil {
			return err
		}
		full := RegistrarOf(pr)
		full.Links = []Link{h.selfLink(r, "/rdap/entity/"+full.Handle, ContentType)}
		entities[i] = full
		if cache != nil {
			cache[name] = full
		}
	}
	return nil
}

// registrar answers /rdap/entity/{handle} for a registrar's handle.
func (h *handler) registrar(w http.ResponseWriter, r *http.Request, handle string, id int64) {
	pr, err := h.svc.PublicRegistrarByID(registry.Public(r.Context()), id)
	if registry.CodeOf(err) == registry.CodeNotFound {
		h.fail(w, http.StatusNotFound, fmt.Sprintf("there is no entity %s", handle))
		return
	}
	if err != nil {
		h.failErr(w, err)
		return
	}
	e := RegistrarOf(pr)
	e.Links = []Link{h.selfLink(r, "/rdap/entity/"+e.Handle, ContentType)}
	events := []Event{{Action: "registration", Date: pr.Created.UTC().Format(time.RFC3339)},
		{Action: "last update of RDAP database", Date: time.Now().UTC().Format(time.RFC3339)}}
	write(w, http.StatusOK, EntityResponse{Conformance: conformance, Entity: e, Events: events, Notices: append([]Notice{}, h.opts.Notices...)})
}
