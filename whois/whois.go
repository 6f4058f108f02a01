// Package whois serves registration data over WHOIS (RFC 3912): a client
// connects over TCP, sends one query line ending in CRLF, and reads the
// answer until the server closes the connection. It is a thin front end
// over the registry service, answering from the same data and with the
// same codes as RDAP (registry.InfoOf's table): a registered domain with
// its name servers, DNSSEC state, contacts (redacted as RDAP redacts them)
// and blocked variants, in the "Key: Value" layout of .IN's WHOIS (ICANN's
// RDDS layout); a blocked variant with the domain that blocks it; an
// available or invalid name with the policy's rule codes, an unknown zone
// or a third-level name; a host (name server) or a contact. Answers are
// UTF-8 text with CRLF line ends. docs/whois.md.
package whois

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"

	akshara "github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/internal/addrlimit"
	"github.com/akshara-idn/akshara/internal/tcpserve"
	"github.com/akshara-idn/akshara/registry"
)

// CodeRateLimited is the code of a refused query: the code table's.
const CodeRateLimited = registry.CodeRateLimited

// Options configure a Server.
type Options struct {
	Logger *slog.Logger
	// Metrics, if set, gets the server's counters: queries by result,
	// refusals by reason.
	Metrics prometheus.Registerer
	// RateLimit is the queries per second allowed from one client address
	// (default 5; negative: no limit) and RateBurst the burst (default 20).
	RateLimit float64
	RateBurst int
	// ReadTimeout bounds the reading of the query line (default 10 s).
	ReadTimeout time.Duration
	// WriteTimeout bounds the writing of the answer (default 10 s).
	WriteTimeout time.Duration
	// QueryTimeout bounds the registry's work on one query (default 5 s).
	QueryTimeout time.Duration
	// MaxQuery is the longest query line accepted, in bytes, without its
	// line end (default 512).
	MaxQuery int
	// MaxConns caps concurrent connections (default 256); one more is
	// refused with a line saying so.
	MaxConns int
	// MaxConnsPerAddr caps the concurrent connections of one client
	// address (default 16; negative: no cap), so that one address cannot
	// take all of MaxConns; one more from it is refused with a line
	// saying so.
	MaxConnsPerAddr int
	// Notices are comment lines ("% …") at the start of every answer,
	// such as the terms of use.
	Notices []string
}

// Server is a WHOIS server. It is safe for concurrent use.
type Server struct {
	svc     *registry.Service
	opts    Options
	log     *slog.Logger
	slots   chan struct{}
	perAddr *addrlimit.Slots
	limiter *addrlimit.Limiters

	tcp tcpserve.Conns // listeners and connections

	queries *prometheus.CounterVec
	refused *prometheus.CounterVec
}

// New makes a server for a service.
func New(svc *registry.Service, o Options) (*Server, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.RateLimit == 0 {
		o.RateLimit = 5
	}
	if o.RateBurst <= 0 {
		o.RateBurst = 20
	}
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.ReadTimeout, 10*time.Second)
	def(&o.WriteTimeout, 10*time.Second)
	def(&o.QueryTimeout, 5*time.Second)
	if o.MaxQuery <= 0 {
		o.MaxQuery = 512
	}
	if o.MaxConns <= 0 {
		o.MaxConns = 256
	}
	if o.MaxConnsPerAddr == 0 {
		o.MaxConnsPerAddr = 16
	}
	s := &Server{
		svc: svc, opts: o, log: o.Logger,
		slots:   make(chan struct{}, o.MaxConns),
		perAddr: addrlimit.NewSlots(o.MaxConnsPerAddr),
		queries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "akshara_whois_queries_total",
			Help: "WHOIS queries answered, by result (registered, blocked, available, invalid, reserved, host, contact, help, or an error code)."}, []string{"result"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "akshara_whois_refused_total",
			Help: "WHOIS connections refused, by reason (rate_limited, too_long, timeout, bad_query, busy, addr_busy)."}, []string{"reason"}),
	}
	if o.RateLimit > 0 {
		s.limiter = addrlimit.New(o.RateLimit, o.RateBurst)
	}
	if o.Metrics != nil {
		for _, c := range []prometheus.Collector{s.queries, s.refused} {
			if err := o.Metrics.Register(c); err != nil {
				return nil, fmt.Errorf("whois: metrics: %w", err)
			}
		}
	}
	return s, nil
}

// ErrServerClosed is returned by Serve after Close.
var ErrServerClosed = errors.New("whois: server closed")

// Serve accepts connections on ln and answers one query on each.
func (s *Server) Serve(ln net.Listener) error {
	return s.tcp.Serve(ln, "whois", s.log, ErrServerClosed, func(c net.Conn) { s.conn(c) })
}

// Close stops the listeners, closes every connection and waits for their
// goroutines to end.
func (s *Server) Close() error {
	s.tcp.Close()
	return nil
}

// refuse writes a one-line refusal ("% code: message") and counts it.
func (s *Server) refuse(c net.Conn, client, reason, code, msg string) {
	s.refused.WithLabelValues(reason).Inc()
	s.log.Info("whois: refused", "client", client, "reason", reason, "code", code)
	c.SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout))
	fmt.Fprintf(c, "%% %s: %s\r\n", code, msg)
	// Read what the client sent (briefly, boundedly) before closing, so
	// that unread input does not turn the close into a reset that loses
	// the refusal line.
	if tc, ok := c.(interface{ CloseWrite() error }); ok {
		tc.CloseWrite()
		c.SetReadDeadline(time.Now().Add(time.Second))
		io.Copy(io.Discard, io.LimitReader(c, 64<<10))
	}
}

func (s *Server) conn(c net.Conn) {
	start := time.Now()
	client, _, err := net.SplitHostPort(c.RemoteAddr().String())
	if err != nil {
		client = c.RemoteAddr().String()
	}
	// the address's own cap first: an address at it takes no slot of
	// the others
	if !s.perAddr.Take(client) {
		s.refuse(c, client, "addr_busy", CodeRateLimited,
			fmt.Sprintf("%s has %d connections open, the most one address may; retry later", client, s.opts.MaxConnsPerAddr))
		return
	}
	defer s.perAddr.Release(client)
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	default:
		s.refuse(c, client, "busy", registry.CodeUnavailable, "the server is busy; retry later")
		return
	}
	if !s.limiter.Allow(client) {
		s.refuse(c, client, "rate_limited", CodeRateLimited,
			fmt.Sprintf("too many queries from %s (at most %g per second, bursts of %d); retry later", client, s.opts.RateLimit, s.opts.RateBurst))
		return
	}
	c.SetReadDeadline(time.Now().Add(s.opts.ReadTimeout))
	line, err := readLine(bufio.NewReaderSize(c, 1024), s.opts.MaxQuery)
	switch {
	case errors.Is(err, errTooLong):
		s.refuse(c, client, "too_long", registry.CodeBadName, fmt.Sprintf("the query is longer than %d bytes", s.opts.MaxQuery))
		return
	case err != nil:
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			s.refuse(c, client, "timeout", registry.CodeBadName, "no query line (ending in CRLF) was received in time")
		}
		return
	}
	q, err := ParseQuery(line)
	if err != nil {
		s.refuse(c, client, "bad_query", registry.CodeBadName, err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.QueryTimeout)
	defer cancel()
	out, result := s.answer(ctx, q)
	s.queries.WithLabelValues(result).Inc()
	c.SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout))
	if _, err := c.Write(out); err != nil {
		s.log.Info("whois", "client", client, "query", q.Name, "result", result, "duration", time.Since(start), "write_error", err)
		return
	}
	s.log.Info("whois", "client", client, "query", q.Name, "result", result, "duration", time.Since(start))
}

var errTooLong = errors.New("whois: query too long")

// readLine reads one line (ending in LF, CRLF, or the end of the stream)
// of at most max bytes without its end.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var buf []byte
	for {
		b, err := r.ReadSlice('\n')
		buf = append(buf, b...)
		if len(bytes.TrimRight(buf, "\r\n")) > max {
			return nil, errTooLong
		}
		switch {
		case err == nil:
			return bytes.TrimRight(buf, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) > 0:
			return bytes.TrimRight(buf, "\r\n"), nil
		default:
			return nil, err
		}
	}
}

// Kind is what a query asks for.
type Kind int

const (
	// KindName is a name without a keyword: a host (name server) query
	// if the name has three labels or more and a host object has that
	// name, else a domain query.
	KindName Kind = iota
	// KindDomain is "domain NAME": a domain query, whatever the name.
	KindDomain
	// KindHost is "nameserver NAME" or "host NAME": a host query.
	KindHost
	// KindContact is "contact ID": a contact by its id (the handle that
	// a domain's answer and RDAP give).
	KindContact
)

// keywords are the words a query may start with, any case.
var keywords = map[string]Kind{"domain": KindDomain, "nameserver": KindHost, "host": KindHost, "contact": KindContact}

// Query is a parsed WHOIS query.
type Query struct {
	// Name is the name (or contact id) asked for, as given (trimmed,
	// without a final dot); "" with Help.
	Name string
	// Kind is what is asked for.
	Kind Kind
	// Help is an empty query or "help": the answer says what the server
	// answers.
	Help bool
}

// ParseQuery parses a query line (without its line end): a name in
// U-labels or A-labels, with or without a final dot, optionally after a
// keyword, "domain", "nameserver" or "host" (any case); or "contact" and
// a contact id. "" or "help" (or "?") asks for help. It never panics; an
// error says why the line is not a query.
func ParseQuery(line []byte) (Query, error) {
	if !utf8.Valid(line) {
		return Query{}, errors.New("the query is not valid UTF-8")
	}
	s := strings.TrimSpace(string(line))
	if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }) {
		return Query{}, errors.New("the query has control characters")
	}
	var q Query
	if i := strings.IndexAny(s, " \t"); i > 0 {
		if k, ok := keywords[strings.ToLower(s[:i])]; ok {
			q.Kind, s = k, strings.TrimSpace(s[i+1:])
		}
	}
	if (q.Kind == KindName || q.Kind == KindDomain) && (s == "" || strings.EqualFold(s, "help") || s == "?") {
		return Query{Help: true}, nil
	}
	if strings.ContainsAny(s, " \t") {
		return Query{}, errors.New("the query is one name (label.zone, a host name, or a keyword and a name: domain, nameserver, host, contact), without spaces")
	}
	if q.Kind != KindContact {
		if n := strings.TrimSuffix(s, "."); n != "" {
			s = n // a final dot is the root: the same name
		}
	}
	q.Name = s
	return q, nil
}

// Answer returns the answer to a query and its result (for logs and
// metrics): registered, blocked, available, invalid, reserved, host,
// contact, help, or an error code.
func (s *Server) Answer(ctx context.Context, q Query) ([]byte, string) { return s.answer(ctx, q) }

type writer struct{ bytes.Buffer }

func (w *writer) line(format string, args ...any) {
	fmt.Fprintf(&w.Buffer, format, args...)
	w.WriteString("\r\n")
}

func (w *writer) field(key, value string) { w.line("%s: %s", key, value) }

func toASCII(name string) string {
	a, err := idna.Punycode.ToASCII(name)
	if err != nil {
		return name
	}
	return a
}

// forms returns a name's U-label and A-label forms (lower-cased ASCII,
// A-labels decoded), each as given where it cannot be converted.
func forms(name string) (string, string) {
	labels := strings.Split(name, ".")
	for i, l := range labels {
		if isASCII(l) {
			l = strings.ToLower(l)
			if strings.HasPrefix(l, "xn--") {
				if u, err := idna.Punycode.ToUnicode(l); err == nil {
					l = u
				}
			}
		}
		labels[i] = norm.NFC.String(l)
	}
	u := strings.Join(labels, ".")
	return u, toASCII(u)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func (s *Server) answer(ctx context.Context, q Query) ([]byte, string) {
	ctx = registry.Public(ctx) // no registrar: a read replica may answer (docs/replicas.md)
	var w writer
	for _, n := range s.opts.Notices {
		w.line("%% %s", n)
	}
	if len(s.opts.Notices) > 0 {
		w.line("")
	}
	result := s.body(ctx, &w, q)
	w.line("")
	w.line(">>> Last update of WHOIS database: %s <<<", s.svc.Clock().Now().UTC().Format(time.RFC3339))
	return w.Bytes(), result
}

func (s *Server) body(ctx context.Context, w *writer, q Query) string {
	if q.Help {
		w.line("%% akshara WHOIS (RFC 3912). Send one domain name, label.zone, in U-labels or A-labels (xn--...),")
		w.line("%% with or without a final dot. Zones served:")
		for _, z := range s.svc.Zones() {
			w.line("%%   %s (%s)", z.Name, z.ALabel)
		}
		w.line("%% A registered domain lists its name servers, contacts and blocked variants; a blocked variant")
		w.line("%% names the domain that blocks it. A name of three labels or more that is a name server's")
		w.line("%% (ns1.example.in) answers the host. Keywords: \"domain NAME\", \"nameserver NAME\" or \"host NAME\",")
		w.line("%% \"contact ID\" (the ID a domain's answer gives).")
		return "help"
	}
	switch q.Kind {
	case KindContact:
		return s.contactQuery(ctx, w, q.Name)
	case KindHost:
		return s.hostQuery(ctx, w, q.Name)
	case KindName:
		if strings.Count(q.Name, ".") >= 2 {
			// a host of that name, or else the domain answer (a
			// third-level name, an unknown zone, …)
			if h, err := s.svc.HostInfo(ctx, q.Name); err == nil {
				s.host(w, h)
				return "host"
			}
		}
	}
	d, err := s.svc.Info(ctx, q.Name)
	if registry.CodeOf(err) == registry.CodeNotFound {
		return s.notRegistered(ctx, w, q.Name)
	}
	if err != nil {
		return s.fail(w, q.Name, err)
	}
	s.domain(ctx, w, d)
	return "registered"
}

// InaccuracyFormURL is the last field of a domain's answer, as .IN's
// WHOIS (and every ICANN RDDS layout) ends it.
const InaccuracyFormURL = "https://www.icann.org/wicf/"

func date(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// domain writes a registered domain in the layout of .IN's WHOIS (ICANN's
// RDDS "Key: Value" layout): the fields of that layout the registry has,
// in its order, then this registry's own (language, variants).
func (s *Server) domain(ctx context.Context, w *writer, d *registry.Domain) {
	w.field("Domain Name", d.ALabel)
	w.field("Domain Name (U-label)", d.Name)
	w.field("Registry Domain ID", fmt.Sprintf("D%d-AKSHARA", d.ID))
	if !d.Updated.IsZero() {
		w.field("Updated Date", date(d.Updated))
	}
	w.field("Creation Date", date(d.Created))
	if !d.Expires.IsZero() {
		w.field("Registry Expiry Date", date(d.Expires))
	}
	w.field("Registrar", d.Registrar)
	sts, err := s.svc.StatusesNow(ctx, d)
	if err != nil {
		sts = s.svc.Statuses(d) // the transfer state could not be read: the rest still holds
	}
	for _, st := range sts {
		w.field("Domain Status", st)
	}
	s.contacts(ctx, w, d)
	// name servers as stored and as RDAP's ldhName: A-labels, lower case
	for _, ns := range d.NameServers {
		w.field("Name Server", ns)
	}
	if len(d.DS) > 0 {
		w.field("DNSSEC", "signedDelegation")
	} else {
		w.field("DNSSEC", "unsigned")
	}
	if d.Deleted() && !d.PurgeAt.IsZero() {
		w.field("Pending Delete Until", date(d.PurgeAt))
	}
	if d.Lang == registry.LDH {
		w.field("Language", "ldh (plain ASCII letters, digits and hyphens)")
	} else if l, err := akshara.Lookup(d.Lang); err == nil {
		w.field("Language", d.Lang+" ("+l.Name+")")
	} else {
		w.field("Language", d.Lang)
	}
	for _, v := range d.BlockedVariants() {
		w.field("Blocked Variant", v+" ("+toASCII(v)+")")
	}
	for _, v := range d.ExemptWith {
		w.field("Registered Variant", v+" ("+toASCII(v)+")")
	}
	for _, v := range d.VariantGroup { // its variant group's other members (same entity)
		w.field("Registered Variant", v+" ("+toASCII(v)+")")
	}
	w.field("URL of the ICANN Whois Inaccuracy Complaint Form", InaccuracyFormURL)
	if len(d.BlockedVariants()) > 0 {
		w.line("")
		w.line("%% The blocked variants are the other members of this domain's conflict set under India's IDN")
		w.line("%% policy: no one can register them while this domain exists.")
	}
}

// notRegistered answers a name that is not registered: blocked (naming
// the domain that blocks it), available, invalid (the policy's rule codes)
// or reserved.
func (s *Server) notRegistered(ctx context.Context, w *writer, name string) string {
	res, err := s.svc.Check(ctx, name, "")
	if err != nil {
		return s.fail(w, name, err)
	}
	if res.ALabel != "" {
		w.field("Domain Name", res.ALabel)
		w.field("Domain Name (U-label)", res.ULabel)
	} else {
		// an invalid name has no canonical form: both forms of it as
		// given, so that the A-label and U-label queries answer alike
		u, a := forms(name)
		w.field("Domain Name", a)
		w.field("Domain Name (U-label)", u)
	}
	switch res.Status {
	case registry.Blocked:
		w.field("Status", "blocked")
		w.field("Code", registry.CodeConflict)
		w.field("Blocked By", res.BlockedBy+" ("+toASCII(res.BlockedBy)+")")
		w.field("Language", res.Lang)
		w.field("Message", fmt.Sprintf("%s is not registered and cannot be registered: it is a blocked variant of the registered domain %s (%s).",
			res.ULabel, res.BlockedBy, toASCII(res.BlockedBy)))
		return "blocked"
	case registry.Invalid:
		w.field("Status", "invalid")
		w.field("Code", registry.CodeInvalid)
		w.field("Message", "the name cannot be registered: it breaks the IDN policy")
		for _, e := range res.Errors {
			w.field("Rule", fmt.Sprintf("%s at %d: %s", e.Code, e.Pos, e.Message))
		}
		return "invalid"
	case registry.Reserved:
		w.field("Status", "reserved")
		w.field("Code", registry.CodeReserved)
		w.field("Message", "the name is not registered: the registry operator has reserved it.")
		return "reserved"
	case registry.Registered: // registered between Info and Check
		w.field("Status", "registered")
		w.field("Message", "the name is registered; ask again for its record.")
		return "registered"
	default:
		w.field("Status", "available")
		w.field("Code", registry.CodeNotFound)
		w.field("Language", res.Lang)
		w.field("Message", "the name is not registered; a registrar can register it.")
		return "available"
	}
}

// fail writes an error of the registry: its code and a message a
// registrar can show (an internal error's details stay in the log).
func (s *Server) fail(w *writer, name string, err error) string {
	code := registry.CodeOf(err)
	msg := "internal error"
	var re *registry.Error
	if errors.As(err, &re) && code != registry.CodeInternal {
		msg = re.Message
	} else {
		s.log.Error("whois: query", "name", name, "error", err)
	}
	w.field("Domain Name", name)
	switch {
	case code == registry.CodeBadName && strings.Count(strings.TrimSuffix(name, "."), ".") > 1:
		w.field("Status", "third-level name")
		w.field("Code", code)
		zone := name[strings.LastIndex(strings.TrimSuffix(name, "."), ".")+1:]
		w.field("Message", fmt.Sprintf("%s is a third-level name: this registry registers second-level names only (label.zone), such as the last two labels of it; zone %s", name, s.zoneSaid(zone)))
	case code == registry.CodeUnknownZone:
		w.field("Status", "unknown zone")
		w.field("Code", code)
		w.field("Message", msg+": this registry does not serve it (send \"help\" for the zones it serves)")
	default:
		w.field("Status", "error")
		w.field("Code", code)
		w.field("Reason", registry.InfoOf(code).Reason)
		w.field("Message", msg)
	}
	return code
}

// zoneSaid says whether the registry serves zone.
func (s *Server) zoneSaid(zone string) string {
	zone = strings.TrimSuffix(zone, ".")
	for _, z := range s.svc.Zones() {
		if strings.EqualFold(z.Name, zone) || strings.EqualFold(z.ALabel, zone) {
			return z.Name + " is served here"
		}
	}
	return zone + " is not served here"
}

// redactedForPrivacy is the value of a redacted contact field, as ccTLD
// WHOIS servers write it.
const redactedForPrivacy = "REDACTED FOR PRIVACY"

// whoisRole is the word of a contact role in WHOIS field names.
var whoisRole = map[string]string{
	registry.RoleRegistrant: "Registrant",
	registry.RoleAdmin:      "Admin",
	registry.RoleTech:       "Tech",
	registry.RoleBilling:    "Billing",
}

// contacts writes a domain's contacts in role order: for each, its id
// (RDAP's handle, published as RDAP publishes it: the key of a "contact
// ID" query) and the fields it has, each REDACTED FOR PRIVACY unless its
// <contact:disclose flag="1"> names it (registry.Contact.PublicFields:
// what RDAP removes or publishes; docs/contacts.md).
func (s *Server) contacts(ctx context.Context, w *writer, d *registry.Domain) {
	for _, dc := range d.Contacts {
		role := whoisRole[dc.Role]
		w.field("Registry "+role+" ID", dc.ID)
		c, err := s.svc.PublicContact(ctx, dc.ID)
		if err != nil { // deleted meanwhile: the role and id are still said
			continue
		}
		contactFields(w, role, c)
	}
}

// contactFields writes a contact's fields, each under "ROLE FIELD".
func contactFields(w *writer, role string, c *registry.Contact) {
	for _, f := range c.PublicFields() {
		v := f.Value
		if !f.Shown {
			v = redactedForPrivacy
		}
		w.field(role+" "+f.Name, v)
	}
}

// objectStatuses are a host's or contact's EPP statuses (RFC 5732 §2.3,
// RFC 5733 §2.2): those stored, "ok" if none, and "linked" while a domain
// names it.
func objectStatuses(stored []string, linked bool) []string {
	out := append([]string(nil), stored...)
	if len(out) == 0 {
		out = append(out, "ok")
	}
	if linked {
		out = append(out, "linked")
	}
	return out
}

// host writes a host object in ICANN's RDDS layout of a name server
// (Server Name, IP Address, Registrar): its name in A-labels, lower case
// (and its U-labels when they differ), its glue, its statuses and dates.
func (s *Server) host(w *writer, h *registry.Host) {
	w.field("Server Name", h.Name)
	if h.ULabel != "" && h.ULabel != h.Name {
		w.field("Server Name (U-label)", h.ULabel)
	}
	w.field("Registry Host ID", fmt.Sprintf("H%d-AKSHARA", h.ID))
	for _, a := range h.Addrs {
		w.field("IP Address", a)
	}
	w.field("Registrar", h.Registrar)
	for _, st := range objectStatuses(h.Statuses, h.Linked) {
		w.field("Host Status", st)
	}
	w.field("Creation Date", date(h.Created))
	if h.Updated.After(h.Created) {
		w.field("Updated Date", date(h.Updated))
	}
}

// hostQuery answers "nameserver NAME": the host, or why there is none.
func (s *Server) hostQuery(ctx context.Context, w *writer, name string) string {
	h, err := s.svc.HostInfo(ctx, name)
	if err != nil {
		u, a := forms(name)
		return s.failObject(w, "Server Name", a, u, name, err, a+" is not a name server of this registry.")
	}
	s.host(w, h)
	return "host"
}

// contactQuery answers "contact ID": the contact, redacted as RDAP's
// /rdap/entity/ID is ("Contact Name" …), its EPP statuses and dates.
func (s *Server) contactQuery(ctx context.Context, w *writer, id string) string {
	c, err := s.svc.PublicContact(ctx, id)
	if err != nil {
		return s.failObject(w, "Contact ID", id, "", id, err, "there is no contact "+id+".")
	}
	w.field("Contact ID", c.ID)
	contactFields(w, "Contact", c)
	for _, st := range objectStatuses(c.Statuses, c.Linked) {
		w.field("Contact Status", st)
	}
	w.field("Creation Date", date(c.Created))
	if c.Updated.After(c.Created) {
		w.field("Updated Date", date(c.Updated))
	}
	return "contact"
}

// failObject answers a host or contact query that found none (Status:
// not found, and notFound as the message) or failed (the code, its
// reason and the registry's message; an internal error's details go to
// the log). key is the object's first field, with value and, when it
// differs, the U-label form.
func (s *Server) failObject(w *writer, key, value, ulabel, query string, err error, notFound string) string {
	w.field(key, value)
	if ulabel != "" && ulabel != value {
		w.field(key+" (U-label)", ulabel)
	}
	code := registry.CodeOf(err)
	if code == registry.CodeNotFound {
		w.field("Status", "not found")
		w.field("Code", code)
		w.field("Message", notFound)
		return code
	}
	msg := "internal error"
	var re *registry.Error
	if errors.As(err, &re) && code != registry.CodeInternal {
		msg = re.Message
	} else {
		s.log.Error("whois: query", "name", query, "error", err)
	}
	w.field("Status", "error")
	w.field("Code", code)
	w.field("Reason", registry.InfoOf(code).Reason)
	w.field("Message", msg)
	return code
}
