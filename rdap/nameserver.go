package rdap

import (
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/akshara-idn/akshara/registry"
)

// The nameserver object (RFC 9083 §5.2): GET /rdap/nameserver/{name}, a
// host object of the registry (RFC 5732; docs/delegation.md) by its name
// in A-label or U-label form. Its addresses (glue, only for a host inside
// a zone of the registry) are ipAddresses v4 and v6; its statuses are the
// host's, "associated" when a domain names it (RFC 8056 §2: EPP "linked"),
// "active" when it has none.

// NameserverObject is RFC 9083 §5.2's nameserver object as a response.
type NameserverObject struct {
	Conformance     []string     `json:"rdapConformance"`
	ObjectClassName string       `json:"objectClassName"`
	Handle          string       `json:"handle"`
	LDHName         string       `json:"ldhName"`
	UnicodeName     string       `json:"unicodeName,omitempty"`
	IPAddresses     *IPAddresses `json:"ipAddresses,omitempty"`
	Status          []string     `json:"status"`
	Entities        []Entity     `json:"entities"`
	Events          []Event      `json:"events"`
	Links           []Link       `json:"links"`
	Notices         []Notice     `json:"notices"`
}

// IPAddresses is a nameserver's ipAddresses member.
type IPAddresses struct {
	V4 []string `json:"v4,omitempty"`
	V6 []string `json:"v6,omitempty"`
}

// NameserverOf renders a host (without links, which depend on the request).
func NameserverOf(h *registry.Host) *NameserverObject {
	out := &NameserverObject{
		Conformance:     conformance,
		ObjectClassName: "nameserver",
		Handle:          fmt.Sprintf("H%d-AKSHARA", h.ID),
		LDHName:         h.Name,
		Entities:        []Entity{registrarEntity(h.Registrar)},
		Events:          []Event{{Action: "registration", Date: h.Created.UTC().Format(time.RFC3339)}},
	}
	if h.ULabel != "" && h.ULabel != h.Name {
		out.UnicodeName = h.ULabel
	}
	if !h.Updated.IsZero() && !h.Updated.Equal(h.Created) {
		out.Events = append(out.Events, Event{Action: "last changed", Date: h.Updated.UTC().Format(time.RFC3339)})
	}
	for _, a := range h.Addrs {
		if out.IPAddresses == nil {
			out.IPAddresses = &IPAddresses{}
		}
		if strings.Contains(a, ":") {
			out.IPAddresses.V6 = append(out.IPAddresses.V6, a)
		} else {
			out.IPAddresses.V4 = append(out.IPAddresses.V4, a)
		}
	}
	if len(h.Statuses) > 0 {
		out.Status = rdapStatuses(h.Statuses)
	}
	if h.Linked {
		out.Status = append(out.Status, "associated")
	}
	if len(out.Status) == 0 {
		out.Status = []string{"active"}
	}
	return out
}

func (h *handler) nameserver(w http.ResponseWriter, r *http.Request) {
	name, ok := h.pathName(w, r)
	if !ok {
		return
	}
	host, err := h.svc.HostInfo(r.Context(), name)
	if registry.CodeOf(err) == registry.CodeNotFound {
		h.fail(w, http.StatusNotFound, name+" is not a name server of this registry.")
		return
	}
	if err != nil {
		h.failErr(w, err)
		return
	}
	out := NameserverOf(host)
	if err := h.sponsor(r, out.Entities, nil); err != nil { // registrar.go
		h.failErr(w, err)
		return
	}
	out.Links = []Link{h.selfLink(r, "/rdap/nameserver/"+host.Name, ContentType)}
	out.Events = append(out.Events, Event{Action: "last update of RDAP database", Date: h.svc.Clock().Now().UTC().Format(time.RFC3339)})
	out.Notices = append([]Notice{}, h.opts.Notices...)
	write(w, http.StatusOK, out)
}

// pathName is the {name} of a lookup's path; false (answered 400) if it
// is not UTF-8 or longer than Options.MaxName.
func (h *handler) pathName(w http.ResponseWriter, r *http.Request) (string, bool) {
	name := r.PathValue("name")
	if !utf8.ValidString(name) || len(name) > h.opts.MaxName {
		h.fail(w, http.StatusBadRequest, "the name is not valid UTF-8 or is too long")
		return "", false
	}
	return name, true
}

// nameserverLinks links each of a domain's name servers to its own object.
func (h *handler) nameserverLinks(r *http.Request, out *Domain) {
	for i := range out.Nameservers {
		ns := &out.Nameservers[i]
		ns.Links = []Link{h.selfLink(r, "/rdap/nameserver/"+ns.LDHName, ContentType)}
	}
}
