// Package rdap serves registration data over RDAP (RFC 7480 HTTP use, RFC
// 9082 queries, RFC 9083 JSON responses): GET /rdap/domain/{name},
// /rdap/nameserver/{name} (nameserver.go), /rdap/entity/{handle} (a
// contact, entity.go, or a registrar, registrar.go), the domain search
// /rdap/domains?name=PREFIX*.ZONE (search.go) and /rdap/help. A domain's response lists its blocked variants (RFC 9083
// §5.3 "variants"): the members of its conflict set that no one else may
// register, with relation "unregistered" and "registration restricted"
// and idnTable = the language tag (of the variant's own script for a
// cross-script twin). A blocked variant is a domain object, status
// inactive, whose remark names the registered domain that blocks it; any
// other name that is not registered is a 404. Errors use the one code table (registry.InfoOf). docs/rdap.md.
package rdap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"

	"golang.org/x/net/idna"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/internal/addrlimit"
	"github.com/akshara-idn/akshara/registry"
)

// ContentType is RDAP's media type (RFC 7480 §4.2).
const ContentType = "application/rdap+json"

// Prefix is where the handler is mounted.
const Prefix = "/rdap/"

// Options configure the handler.
type Options struct {
	// Notices are added to every response (for example the terms of use).
	Notices []Notice
	// MaxName is the longest name accepted, in bytes (default 1024).
	MaxName int
	// BaseURL is the server's public URL (such as https://rdap.example),
	// which links are built from. Empty: the scheme and the local address
	// the request came in on. Never the request's Host header, which the
	// client writes.
	BaseURL string
	// SearchRate limits the domain searches (search.go) of one client
	// address a second (default 5; negative: no limit), with bursts of
	// SearchBurst (default 4 × SearchRate, at least 1): a search reads a
	// page of domains where a lookup reads one.
	SearchRate  float64
	SearchBurst int
	// SearchPage is the most domains a page of a search holds (default
	// registry.DefaultSearchPage, at most registry.MaxSearchPage).
	SearchPage int
	// ClientAddr is the client address of a request, which the search's
	// rate limit is kept by (httpapi.ClientAddr: behind a trusted proxy,
	// the address it forwards for). Nil: the TCP peer.
	ClientAddr func(*http.Request) string
}

// Handler serves RDAP under /rdap/ for a registry service.
func Handler(svc *registry.Service, o Options) http.Handler {
	if o.MaxName <= 0 {
		o.MaxName = 1024
	}
	o.BaseURL = strings.TrimSuffix(o.BaseURL, "/")
	h := &handler{svc: svc, opts: o}
	h.searchSetup() // search.go
	mux := http.NewServeMux()
	mux.HandleFunc("GET /rdap/domain/{name}", h.domain)
	mux.HandleFunc("GET /rdap/nameserver/{name}", h.nameserver)
	mux.HandleFunc("GET /rdap/help", h.help)
	mux.HandleFunc("GET /rdap/entity/{handle}", h.entity) // entity.go
	mux.HandleFunc("GET /rdap/domains", h.domains)        // search.go
	for _, t := range []string{"nameserver", "entity", "ip", "autnum", "domains", "nameservers", "entities"} {
		mux.HandleFunc("GET /rdap/"+t+"/", h.unsupported)
		if t != "domains" {
			mux.HandleFunc("GET /rdap/"+t, h.unsupported)
		}
	}
	mux.HandleFunc("/rdap/", h.badRequest)
	h.mux = mux
	return h
}

type handler struct {
	svc    *registry.Service
	opts   Options
	mux    *http.ServeMux
	search *addrlimit.Limiters // the searches of each client address (search.go)
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// WriteError writes an error of the server around the handler (a rate
// limit, a timeout: httpapi.ErrorWriter) as an RDAP error.
func (h *handler) WriteError(w http.ResponseWriter, r *http.Request, err error) { h.failErr(w, err) }

// The JSON of RFC 9083 (what akshara uses of it).
type (
	// Notice is a notice or remark (RFC 9083 §4.3).
	Notice struct {
		Title       string   `json:"title,omitempty"`
		Type        string   `json:"type,omitempty"`
		Description []string `json:"description"`
		Links       []Link   `json:"links,omitempty"`
	}
	// Link is RFC 9083 §4.2.
	Link struct {
		Value string `json:"value"`
		Rel   string `json:"rel"`
		Href  string `json:"href"`
		Title string `json:"title,omitempty"`
		Type  string `json:"type,omitempty"`
	}
	// Event is RFC 9083 §4.5.
	Event struct {
		Action string `json:"eventAction"`
		Date   string `json:"eventDate"`
	}
	// Entity is RFC 9083 §5.1, as much as the registry knows.
	Entity struct {
		ObjectClassName string   `json:"objectClassName"`
		Handle          string   `json:"handle,omitempty"` // none for a registrar's abuse contact
		Roles           []string `json:"roles"`
		VCard           []any    `json:"vcardArray"`
		Status          []string `json:"status,omitempty"`
		Remarks         []Notice `json:"remarks,omitempty"`
		Entities        []Entity `json:"entities,omitempty"` // a registrar's abuse contact (registrar.go)
		Links           []Link   `json:"links,omitempty"`
	}
	// VariantName is one name of a variants group.
	VariantName struct {
		LDHName     string `json:"ldhName"`
		UnicodeName string `json:"unicodeName"`
	}
	// Variants is RFC 9083 §5.3's variants group.
	Variants struct {
		Relation     []string      `json:"relation"`
		IDNTable     string        `json:"idnTable,omitempty"`
		VariantNames []VariantName `json:"variantNames"`
	}
	// Domain is RFC 9083 §5.3.
	Domain struct {
		Conformance     []string   `json:"rdapConformance"`
		ObjectClassName string     `json:"objectClassName"`
		Handle          string     `json:"handle,omitempty"` // none for a blocked variant (not a registered object)
		LDHName         string     `json:"ldhName"`
		UnicodeName     string     `json:"unicodeName,omitempty"`
		Variants        []Variants `json:"variants,omitempty"`
		Status          []string   `json:"status"`
		Remarks         []Notice   `json:"remarks,omitempty"`
		Entities        []Entity   `json:"entities"`
		Events          []Event    `json:"events"`
		Links           []Link     `json:"links"`
		Notices         []Notice   `json:"notices"`
		Lang            string     `json:"lang,omitempty"`
		// delegation (issue 24)
		Nameservers []Nameserver `json:"nameservers,omitempty"`
		SecureDNS   *SecureDNS   `json:"secureDNS,omitempty"`
		// contacts (entity.go): RFC 9537
		Redacted []Redacted `json:"redacted,omitempty"`
	}
	// Nameserver is RFC 9083 §5.2, as a domain's name server.
	Nameserver struct {
		ObjectClassName string `json:"objectClassName"`
		LDHName         string `json:"ldhName"`
		UnicodeName     string `json:"unicodeName,omitempty"`
		Links           []Link `json:"links,omitempty"` // self: /rdap/nameserver/{ldhName}
	}
	// SecureDNS is RFC 9083 §5.3's secureDNS member (DS data only).
	SecureDNS struct {
		DelegationSigned bool     `json:"delegationSigned"`
		DSData           []DSData `json:"dsData,omitempty"`
	}
	// DSData is one DS record of SecureDNS.
	DSData struct {
		KeyTag     int    `json:"keyTag"`
		Algorithm  int    `json:"algorithm"`
		Digest     string `json:"digest"`
		DigestType int    `json:"digestType"`
	}
	// Error is RFC 9083 §6's error response.
	Error struct {
		Conformance []string `json:"rdapConformance"`
		ErrorCode   int      `json:"errorCode"`
		Title       string   `json:"title"`
		Description []string `json:"description"`
		Notices     []Notice `json:"notices,omitempty"`
	}
	// Help is the /help response (RFC 9083 §7).
	Help struct {
		Conformance []string `json:"rdapConformance"`
		Notices     []Notice `json:"notices"`
	}
)

var conformance = []string{"rdap_level_0"}

// Relations of a blocked variant: IANA "RDAP JSON Values", type "domain
// variant relation".
var blockedRelation = []string{"unregistered", "registration restricted"}

func write(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", ContentType)
	h.Set("Access-Control-Allow-Origin", "*")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

func (h *handler) fail(w http.ResponseWriter, status int, desc ...string) {
	write(w, status, Error{Conformance: conformance, ErrorCode: status, Title: http.StatusText(status), Description: desc, Notices: h.opts.Notices})
}

func (h *handler) failErr(w http.ResponseWriter, err error) {
	if errors.Is(err, context.DeadlineExceeded) { // the request's timeout (httpapi)
		h.fail(w, http.StatusServiceUnavailable, "the request took too long", "code: TIMEOUT")
		return
	}
	code := registry.CodeOf(err)
	status := registry.InfoOf(code).HTTP
	msg := "internal error"
	var re *registry.Error
	if errors.As(err, &re) && code != registry.CodeInternal {
		msg = re.Message
	}
	h.fail(w, status, msg, "code: "+code)
}

func (h *handler) unsupported(w http.ResponseWriter, r *http.Request) {
	h.fail(w, http.StatusNotImplemented, "this server answers domain, name server and entity lookups and domain searches by name only: /rdap/domain/{name}, /rdap/nameserver/{name}, /rdap/entity/{handle}, /rdap/domains?name=PREFIX*.ZONE")
}

func (h *handler) badRequest(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		h.fail(w, http.StatusMethodNotAllowed, "RDAP is read with GET")
		return
	}
	h.fail(w, http.StatusBadRequest, "not an RDAP query this server knows: "+r.URL.Path, "try /rdap/domain/{name} or /rdap/help")
}

func (h *handler) help(w http.ResponseWriter, r *http.Request) {
	notices := append([]Notice{{
		Title: "akshara RDAP",
		Description: []string{
			"Domain lookups: /rdap/domain/{name}, the name as A-labels (xn--…) or U-labels, in any zone of this registry.",
			"Name server lookups: /rdap/nameserver/{name}, a host object of this registry (its glue addresses for a host inside a zone of the registry).",
			searchHelp, // search.go
			"Registrar lookups: /rdap/entity/R{id}-AKSHARA-REGISTRAR, the registrar entity of every answer, with its abuse contact (role abuse).",
			"Entity lookups: /rdap/entity/{handle}, a contact by its id. The personal data of contacts (name, organization, address, telephone, fax, email) is redacted unless the contact published it (EPP contact disclose flag=1); RFC 9537: the \"redacted\" member lists what was removed.",
			"A registered domain lists its blocked variants (RFC 9083 variants, relation \"unregistered\" and \"registration restricted\", idnTable = the language tag): names that only the holder of the domain could ever hold.",
			"A blocked variant answers a domain object with status inactive and a remark naming the registered domain that blocks it; any other name that is not registered answers 404.",
		},
		Links: []Link{h.selfLink(r, "/rdap/help", "application/rdap+json")},
	}}, h.opts.Notices...)
	write(w, http.StatusOK, Help{Conformance: conformance, Notices: notices})
}

func scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

// base is the URL links start with: Options.BaseURL, or the scheme and
// the local address of the connection (not the Host header: the client
// writes it, and a link must not say what the client wants).
func (h *handler) base(r *http.Request) string {
	if h.opts.BaseURL != "" {
		return h.opts.BaseURL
	}
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		return scheme(r) + "://" + a.String()
	}
	return scheme(r) + "://localhost"
}

func (h *handler) selfLink(r *http.Request, path, typ string) Link {
	u := h.base(r) + path
	return Link{Value: u, Rel: "self", Href: u, Type: typ}
}

// zoneALabel returns the A-label of a domain's zone.
func zoneALabel(d *registry.Domain) string {
	_, z, _ := strings.Cut(d.ALabel, ".")
	return z
}

func toASCII(label string) string {
	a, err := idna.Punycode.ToASCII(label)
	if err != nil {
		return label
	}
	return a
}

// DomainOf renders a registered domain as RDAP (without links, which
// depend on the request).
func DomainOf(d *registry.Domain) *Domain {
	out := &Domain{
		Conformance:     conformance,
		ObjectClassName: "domain",
		Handle:          fmt.Sprintf("D%d-AKSHARA", d.ID),
		LDHName:         d.ALabel,
		Status:          rdapStatuses(d.Statuses),
		Entities:        []Entity{registrarEntity(d.Registrar)},
		Events:          []Event{{Action: "registration", Date: d.Created.UTC().Format(time.RFC3339)}},
	}
	// the lifecycle's events (RFC 9083 §10.2.3): expiration, last changed,
	// and while a deleted domain waits for its purge, its deletion
	if !d.Expires.IsZero() {
		out.Events = append(out.Events, Event{Action: "expiration", Date: d.Expires.UTC().Format(time.RFC3339)})
	}
	if !d.Updated.IsZero() && !d.Updated.Equal(d.Created) {
		out.Events = append(out.Events, Event{Action: "last changed", Date: d.Updated.UTC().Format(time.RFC3339)})
	}
	if !d.PurgeAt.IsZero() {
		out.Events = append(out.Events, Event{Action: "deletion", Date: d.PurgeAt.UTC().Format(time.RFC3339)})
	}
	if d.Name != d.ALabel {
		out.UnicodeName = d.Name
	}
	delegation(out, d)
	zone, zoneA := d.Zone, zoneALabel(d)
	table := idnTable(d.Lang)
	// Exempted domains (registered before the relation that makes them
	// conflict, kept together) are registered variants: their own group.
	exempt := map[string]bool{}
	var registered []VariantName
	for _, o := range d.ExemptWith {
		label, z, _ := strings.Cut(o, ".")
		if z != zone {
			continue
		}
		exempt[label] = true
		registered = append(registered, VariantName{LDHName: toASCII(label) + "." + zoneA, UnicodeName: o})
	}
	// the blocked variants, one group per IDN table: a cross-script twin
	// (a Gurmukhi twin of a Hindi name) is a name of its own script's table
	var tables []string
	blocked := map[string][]VariantName{}
	for _, b := range d.Blocks {
		if b == d.Label || exempt[b] {
			continue
		}
		t := tableOf(b, d.Lang)
		if _, ok := blocked[t]; !ok {
			tables = append(tables, t)
		}
		blocked[t] = append(blocked[t], VariantName{LDHName: toASCII(b) + "." + zoneA, UnicodeName: b + "." + zone})
	}
	for _, t := range tables {
		out.Variants = append(out.Variants, Variants{Relation: blockedRelation, IDNTable: t, VariantNames: blocked[t]})
	}
	if len(registered) > 0 {
		out.Variants = append(out.Variants, Variants{Relation: exemptRelation, IDNTable: table, VariantNames: registered})
	}
	// the other members of its variant group (docs/variants.md, "Same
	// entity"): registered variants, one registrant's
	if len(d.VariantGroup) > 0 {
		group := make([]VariantName, len(d.VariantGroup))
		for i, o := range d.VariantGroup {
			group[i] = VariantName{LDHName: toASCII(o), UnicodeName: o}
		}
		out.Variants = append(out.Variants, Variants{Relation: exemptRelation, IDNTable: table, VariantNames: group})
	}
	return out
}

// registrarEntity is the entity of a sponsoring registrar.
func registrarEntity(name string) Entity {
	return Entity{
		ObjectClassName: "entity",
		Handle:          name,
		Roles:           []string{"registrar"},
		VCard:           []any{"vcard", []any{[]any{"version", map[string]any{}, "text", "4.0"}, []any{"fn", map[string]any{}, "text", name}}},
	}
}

// idnTable is the idnTable of a language tag: none for plain ASCII.
func idnTable(lang string) string {
	if lang == registry.LDH {
		return ""
	}
	return lang
}

// tableOf is the IDN table of a variant label of a domain registered in
// lang: lang itself for a label of lang's script, else the first language
// of the label's own script that accepts it (a cross-script twin).
func tableOf(label, lang string) string {
	own, err := akshara.Lookup(lang)
	if err != nil {
		return idnTable(lang)
	}
	det, err := akshara.Detect(label)
	if err != nil || len(det.Langs) == 0 || slices.Contains(det.Langs, lang) {
		return idnTable(lang)
	}
	if l, err := akshara.Lookup(det.Langs[0]); err != nil || l.Script == own.Script {
		return idnTable(lang)
	}
	return det.Langs[0]
}

// exemptRelation is the relation of the domains an exempted domain is
// kept with: registered variants.
var exemptRelation = []string{"registered"}

func (h *handler) domain(w http.ResponseWriter, r *http.Request) {
	name, ok := h.pathName(w, r)
	if !ok {
		return
	}
	// no registrar: a read replica may answer (docs/replicas.md)
	d, err := h.svc.Info(registry.Public(r.Context()), name)
	if registry.CodeOf(err) == registry.CodeNotFound {
		h.notFound(w, r, name)
		return
	}
	if err != nil {
		h.failErr(w, err)
		return
	}
	// as of now: grace periods, pendingTransfer, or ok
	if d.Statuses, err = h.svc.StatusesNow(r.Context(), d); err != nil {
		h.failErr(w, err)
		return
	}
	out := DomainOf(d)
	if err := h.sponsor(r, out.Entities, nil); err != nil { // registrar.go
		h.failErr(w, err)
		return
	}
	if err := h.contactEntities(r, out, d); err != nil { // entity.go
		h.failErr(w, err)
		return
	}
	path := "/rdap/domain/" + d.ALabel
	out.Links = []Link{h.selfLink(r, path, ContentType)}
	h.nameserverLinks(r, out)
	out.Events = append(out.Events, Event{Action: "last update of RDAP database", Date: h.svc.Clock().Now().UTC().Format(time.RFC3339)})
	out.Notices = h.opts.Notices
	if len(out.Variants) > 0 {
		out.Notices = append([]Notice{variantsNotice}, h.opts.Notices...)
	}
	if out.Notices == nil {
		out.Notices = []Notice{}
	}
	write(w, http.StatusOK, out)
}

var variantsNotice = Notice{
	Title: "Variants",
	Description: []string{
		"The variants listed are the other members of this domain's conflict set under India's IDN policy: they are blocked: no one can register them while this domain exists.",
	},
}

// notFound answers a name that is not registered: a blocked variant is a
// domain object (status inactive, no handle) whose remark and "registered"
// variants group name the domain that blocks it, so that a standard RDAP
// client shows why (clients print no 404 body); any other name is a 404.
func (h *handler) notFound(w http.ResponseWriter, r *http.Request, name string) {
	ctx := registry.Public(r.Context())
	res, err := h.svc.Check(ctx, name, "")
	if err == nil && res.Status == registry.Blocked && res.BlockedBy != "" {
		blocker, err := h.svc.Info(ctx, res.BlockedBy)
		if err != nil {
			h.failErr(w, err)
			return
		}
		out := BlockedOf(res, blocker, h.opts.Notices)
		out.Links = []Link{h.selfLink(r, "/rdap/domain/"+res.ALabel, ContentType)}
		write(w, http.StatusOK, out)
		return
	}
	if err == nil && res.Status == registry.Invalid {
		// a name that cannot exist is a malformed query (RFC 7480 §5.4:
		// 400), with the policy's rules as WHOIS gives them
		desc := []string{name + " cannot be registered: it breaks the IDN policy."}
		for _, e := range res.Errors {
			desc = append(desc, fmt.Sprintf("Rule: %s at %d: %s", e.Code, e.Pos, e.Message))
		}
		h.fail(w, http.StatusBadRequest, append(desc, "code: "+registry.CodeInvalid)...)
		return
	}
	if err == nil && res.Status == registry.Reserved {
		h.fail(w, http.StatusNotFound, res.ULabel+" is not registered: the registry operator has reserved it.", "code: "+registry.CodeReserved)
		return
	}
	h.fail(w, http.StatusNotFound, name+" is not registered.")
}

// delegation renders a domain's name servers and DS records.
func delegation(out *Domain, d *registry.Domain) {
	for _, n := range d.NameServers {
		ns := Nameserver{ObjectClassName: "nameserver", LDHName: n}
		if u, err := idna.Lookup.ToUnicode(n); err == nil && u != n {
			ns.UnicodeName = u
		}
		out.Nameservers = append(out.Nameservers, ns)
	}
	sec := &SecureDNS{DelegationSigned: len(d.DS) > 0}
	for _, r := range d.DS {
		sec.DSData = append(sec.DSData, DSData{KeyTag: r.KeyTag, Algorithm: r.Algorithm, Digest: r.Digest, DigestType: r.DigestType})
	}
	out.SecureDNS = sec
}

// rdapStatuses maps EPP statuses to RDAP's (RFC 8056 §2): ok is
// "active", the others are their words in lower case ("pendingDelete" is
// "pending delete"). No status is "active".
func rdapStatuses(epp []string) []string {
	var out []string
	for _, st := range epp {
		if st == registry.StatusOK {
			out = append(out, "active")
			continue
		}
		var b strings.Builder
		for i, r := range st {
			if unicode.IsUpper(r) {
				if i > 0 {
					b.WriteByte(' ')
				}
				r = unicode.ToLower(r)
			}
			b.WriteRune(r)
		}
		out = append(out, b.String())
	}
	if len(out) == 0 {
		return []string{"active"}
	}
	return out
}

// BlockedOf renders a blocked variant (res, a check answer with status
// blocked) of the registered domain blocker.
func BlockedOf(res *registry.CheckResult, blocker *registry.Domain, notices []Notice) *Domain {
	out := &Domain{
		Conformance:     conformance,
		ObjectClassName: "domain",
		LDHName:         res.ALabel,
		Status:          []string{"inactive"},
		Remarks: []Notice{{
			Title: "Blocked variant",
			Description: []string{
				fmt.Sprintf("%s is not registered: it is a blocked variant of the registered domain %s (%s); no one can register it while that domain exists.", res.ULabel, blocker.Name, blocker.ALabel),
				"Look that domain up: /rdap/domain/" + blocker.ALabel,
			},
		}},
		Variants: []Variants{{Relation: exemptRelation, IDNTable: idnTable(blocker.Lang), VariantNames: []VariantName{{LDHName: blocker.ALabel, UnicodeName: blocker.Name}}}},
		Entities: []Entity{},
		Events:   []Event{},
		Links:    []Link{},
		Notices:  append([]Notice{}, notices...),
	}
	if res.HolderState != "" { // the blocker is deleted and not purged yet
		r := &out.Remarks[0]
		r.Description = append(r.Description[:1], fmt.Sprintf("That domain is deleted (%s): the variant stays blocked until it is purged at %s.", rdapStatuses([]string{res.HolderState})[0], res.FreesAt.UTC().Format(time.RFC3339)), r.Description[1])
	}
	if res.ULabel != res.ALabel {
		out.UnicodeName = res.ULabel
	}
	return out
}
