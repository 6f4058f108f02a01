// Package httpapi serves the registry over HTTP (net/http): public check
// and info, and create, delete and list for registrars with an API token.
// The API is described by openapi.yaml (served at /openapi.yaml).
package httpapi

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/time/rate"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/internal/addrlimit"
	"github.com/akshara-idn/akshara/registry"
)

//go:embed openapi.yaml
var openAPI []byte

// HTTP-level error codes, beside the registry's (registry.Code*).
const (
	CodeBadJSON          = "BAD_JSON"
	CodeBadUTF8          = "BAD_UTF8"
	CodeTooLarge         = "TOO_LARGE"
	CodeRateLimited      = registry.CodeRateLimited
	CodeMethodNotAllowed = "METHOD_NOT_ALLOWED"
	CodeTimeout          = "TIMEOUT"
	CodeBadParam         = "BAD_PARAM"
)

// The HTTP-level codes' entries in the one code table (registry/codes.go).
func init() {
	registry.DefineCode(CodeBadJSON, registry.CodeInfo{HTTP: http.StatusBadRequest, EPP: 2001, Reason: "bad request"})
	registry.DefineCode(CodeBadUTF8, registry.CodeInfo{HTTP: http.StatusBadRequest, EPP: 2005, Reason: "bad utf-8"})
	registry.DefineCode(CodeTooLarge, registry.CodeInfo{HTTP: http.StatusRequestEntityTooLarge, EPP: 2001, Reason: "too large"})
	registry.DefineCode(CodeMethodNotAllowed, registry.CodeInfo{HTTP: http.StatusMethodNotAllowed, EPP: 2101, Reason: "method not allowed"})
	registry.DefineCode(CodeTimeout, registry.CodeInfo{HTTP: http.StatusServiceUnavailable, EPP: 2400, Reason: "timeout"})
	registry.DefineCode(CodeBadParam, registry.CodeInfo{HTTP: http.StatusBadRequest, EPP: 2005, Reason: "bad parameter"})
}

// StatusOf returns the HTTP status of an error code (from the one code
// table, registry.InfoOf).
func StatusOf(code string) int { return registry.InfoOf(code).HTTP }

// ErrorBody is every error response.
type ErrorBody struct {
	Code      string           `json:"code"`
	Message   string           `json:"message"`
	Errors    []*akshara.Error `json:"errors,omitempty"`     // INVALID_LABEL: the policy's errors
	BlockedBy string           `json:"blocked_by,omitempty"` // CONFLICT: the registered domain that blocks the name
	// DataVersion is the policy data version of a verdict (INVALID_LABEL,
	// CONFLICT, EXISTS).
	DataVersion string `json:"data_version,omitempty"`
	// BILLING_FAILURE (402): the account's balance and the command's
	// price, in rupees (account.go).
	Balance  *registry.Money `json:"balance,omitempty"`
	Price    *registry.Money `json:"price,omitempty"`
	Currency string          `json:"currency,omitempty"`
}

// Options configure a Server.
type Options struct {
	Logger         *slog.Logger
	Metrics        prometheus.Registerer // nil: a registry of the server's own
	MaxBody        int64                 // request body limit in bytes (default 64 KiB)
	MaxName        int                   // longest name accepted, in bytes (default 1024)
	RequestTimeout time.Duration         // per request (default 10 s)
	RateLimit      float64               // requests per second per registrar (default 50)
	RateBurst      int                   // (default 100)
	// PublicRate limits the requests per second of one client address to
	// the public endpoints (default 100, burst PublicBurst, default 200;
	// negative: no limit).
	PublicRate  float64
	PublicBurst int
	// AuthFailRate limits failed authentications per client address: after
	// AuthFailBurst failures (default 10) the address is refused with
	// RATE_LIMITED, refilled at AuthFailRate per second (default 1/6:
	// ten a minute; negative: no limit).
	AuthFailRate  float64
	AuthFailBurst int
	// TrustedProxies are the addresses of reverse proxies in front of the
	// server: for a request from one of them, the client is the last
	// address of X-Forwarded-For that is not a trusted proxy (for the
	// per-address limits and the request log). Empty: the client is the
	// TCP peer, and X-Forwarded-For is ignored.
	TrustedProxies []netip.Prefix
	// PrivateMetrics leaves /metrics out of the handler: serve
	// MetricsHandler on a private address instead.
	PrivateMetrics bool
	// Collectors are more metrics to serve at /metrics.
	Collectors []prometheus.Collector
	// Page, if set, is served at / (the web page).
	Page http.Handler
	// Mount adds handlers under patterns of http.ServeMux (such as
	// "GET /lgr/"), for front ends that live in their own packages.
	Mount map[string]http.Handler
	// Public adds handlers as Mount does, served as the API's public
	// endpoints are: the per-address rate limit, the request timeout, the
	// request log and the metrics (RDAP, at "/rdap/"). A refusal of
	// theirs (RATE_LIMITED) is written by the handler's WriteError if it
	// is an ErrorWriter, else as the API's JSON.
	Public map[string]http.Handler
}

// ErrorWriter is a Public handler that writes the API's refusals in its
// own form (RDAP's error body).
type ErrorWriter interface {
	WriteError(w http.ResponseWriter, r *http.Request, err error)
}

// Server is the HTTP API.
type Server struct {
	svc     *registry.Service
	opts    Options
	log     *slog.Logger
	handler http.Handler

	mu       sync.Mutex
	limiters map[int64]*rate.Limiter
	perAddr  *addrlimit.Limiters // public endpoints, per client address
	authFail *addrlimit.Limiters // failed authentications, per client address
	mux      *http.ServeMux
	ready    readiness
	metrics  http.Handler

	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	ops      *prometheus.CounterVec
	notReady prometheus.Counter
}

// New makes the API server for a service.
func New(svc *registry.Service, o Options) *Server {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxBody <= 0 {
		o.MaxBody = 64 << 10
	}
	if o.MaxName <= 0 {
		o.MaxName = registry.MaxNameBytes
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 10 * time.Second
	}
	if o.RateLimit <= 0 {
		o.RateLimit = 50
	}
	if o.RateBurst <= 0 {
		o.RateBurst = 100
	}
	if o.PublicRate == 0 {
		o.PublicRate = 100
	}
	if o.PublicBurst <= 0 {
		o.PublicBurst = 200
	}
	if o.AuthFailRate == 0 {
		o.AuthFailRate = 1.0 / 6
	}
	if o.AuthFailBurst <= 0 {
		o.AuthFailBurst = 10
	}
	s := &Server{svc: svc, opts: o, log: o.Logger, limiters: map[int64]*rate.Limiter{},
		perAddr: addrlimit.New(o.PublicRate, o.PublicBurst), authFail: addrlimit.New(o.AuthFailRate, o.AuthFailBurst)}
	reg := prometheus.NewRegistry()
	var r prometheus.Registerer = reg
	if o.Metrics != nil {
		r = o.Metrics
	}
	s.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "akshara_http_requests_total", Help: "HTTP requests by route, method and status."}, []string{"route", "method", "status"})
	s.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "akshara_http_request_duration_seconds", Help: "HTTP request latency by route.", Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10)}, []string{"route"})
	r.MustRegister(s.requests, s.duration)
	s.registerCollectors(r, o.Metrics == nil)

	mux := http.NewServeMux()
	s.mux = mux
	route := func(pattern string, h func(w http.ResponseWriter, r *http.Request) error) {
		mux.Handle(pattern, s.wrap(pattern, h))
	}
	route("GET /v1/zones", s.public(s.zones))
	route("GET /v1/check", s.public(s.check))
	route("GET /v1/analyze", s.public(s.analyze))
	route("POST /v1/domains", s.auth(s.create))
	route("GET /v1/domains", s.auth(s.list))
	route("GET /v1/domains/{name}", s.public(s.info))
	route("DELETE /v1/domains/{name}", s.auth(s.delete))
	route("POST /v1/domains/{name}/renew", s.auth(s.renew))     // lifecycle.go
	route("POST /v1/domains/{name}/restore", s.auth(s.restore)) // lifecycle.go
	route("POST /v1/domains/{name}/lock", s.auth(s.lock))       // lock.go
	route("POST /v1/domains/{name}/unlock", s.auth(s.unlock))
	route("PATCH /v1/domains/{name}", s.auth(s.update)) // update.go
	route("POST /v1/domains/{name}/statuses", s.auth(s.statuses))
	route("GET /v1/audit", s.auth(s.audit))
	route("PUT /v1/domains/{name}/auth-info", s.auth(s.setAuthInfo))
	route("DELETE /v1/domains/{name}/auth-info", s.auth(s.setAuthInfo))
	route("POST /v1/domains/{name}/transfer", s.auth(s.requestTransfer))
	route("GET /v1/domains/{name}/transfer", s.auth(s.queryTransfer))
	route("POST /v1/domains/{name}/transfer/{op}", s.auth(s.actOnTransfer))
	route("POST /v1/hosts", s.auth(s.createHost)) // objects.go
	route("GET /v1/hosts/{name}", s.auth(s.hostInfo))
	route("PATCH /v1/hosts/{name}", s.auth(s.updateHost))
	route("DELETE /v1/hosts/{name}", s.auth(s.deleteHost))
	route("POST /v1/contacts", s.auth(s.createContact))
	route("GET /v1/contacts/{id}", s.auth(s.contactInfo))
	route("PATCH /v1/contacts/{id}", s.auth(s.updateContact))
	route("DELETE /v1/contacts/{id}", s.auth(s.deleteContact))
	route("GET /v1/poll", s.auth(s.pollReq))
	route("GET /v1/account", s.auth(s.account)) // account.go
	route("DELETE /v1/poll/{id}", s.auth(s.pollAck))
	route("/v1/", s.public(s.unmatched)) // 404 and 405 in JSON
	route("GET /readyz", s.readyz)
	// liveness: the process answers (nothing else is asked of it)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "ok\n")
	})
	var gatherer prometheus.Gatherer = reg
	if g, ok := o.Metrics.(prometheus.Gatherer); ok {
		gatherer = g
	}
	s.metrics = promhttp.HandlerFor(gatherer, promhttp.HandlerOpts{})
	if !o.PrivateMetrics {
		mux.Handle("GET /metrics", s.metrics)
	}
	mux.HandleFunc("GET /openapi.yaml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		w.Write(openAPI)
	})
	for pattern, h := range o.Mount {
		mux.Handle(pattern, h)
	}
	for pattern, h := range o.Public {
		serve := s.public(func(w http.ResponseWriter, r *http.Request) error { h.ServeHTTP(w, r); return nil })
		var render func(http.ResponseWriter, *http.Request, error)
		if ew, ok := h.(ErrorWriter); ok {
			render = func(w http.ResponseWriter, r *http.Request, err error) {
				retryAfter(w, registry.CodeOf(err))
				ew.WriteError(w, r, err)
			}
		}
		mux.Handle(pattern, s.wrapWith(pattern, serve, render))
	}
	if o.Page != nil {
		mux.Handle("/", o.Page)
	}
	s.handler = mux
	return s
}

// MetricsHandler serves the metrics (Prometheus text format), for a
// private address when Options.PrivateMetrics keeps them off the API's.
func (s *Server) MetricsHandler() http.Handler { return s.metrics }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if len(r.TransferEncoding) > 0 {
		// RFC 9112 §6.1: a request with both Transfer-Encoding and
		// Content-Length may be smuggling, and the connection must be
		// closed after the answer. net/http drops the Content-Length before
		// a handler sees the request, so every request with a
		// Transfer-Encoding closes its connection (the API's bodies are
		// small; clients send them with a Content-Length).
		w.Header().Set("Connection", "close")
	}
	if off, ok := s.svc.Staging(); ok { // a staging registry says so in every answer (registry/staging.go)
		w.Header().Set(StagingHeader, "offset="+registry.FormatOffset(off)+"; now="+s.svc.Clock().Now().UTC().Format(time.RFC3339))
	}
	s.handler.ServeHTTP(w, r)
}

// StagingHeader is the header of every answer of a staging registry
// (akshara serve -staging): the offset of its clock ahead of real time and
// the registry's time, "offset=+30d; now=2026-02-10T09:00:00Z".
const StagingHeader = "Akshara-Staging"

// NewHTTPServer returns an http.Server for the handler with the timeouts a
// public server needs.
func NewHTTPServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

type ctxKey int

// request is what wrap allocates for a request.
type request struct {
	info requestInfo
	ctx  requestCtx
	sw   statusWriter
	id   [1]string // the X-Request-Id header's values
}

const registrarKey ctxKey = 0

// wrap adds the timeout, logging, metrics and error rendering. The
// route's metrics are looked up once, not per request: a request only
// finds its status's counter (routeMetrics); the log record is built only
// when the logger takes it.
func (s *Server) wrap(route string, h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return s.wrapWith(route, h, nil)
}

// wrapWith is wrap with the errors written by render (nil: writeError).
func (s *Server) wrapWith(route string, h func(http.ResponseWriter, *http.Request) error, render func(http.ResponseWriter, *http.Request, error)) http.Handler {
	m := &routeMetrics{route: route, requests: s.requests, duration: s.duration.WithLabelValues(route)}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		// the request's info, context and status writer in one allocation
		q := &request{info: requestInfo{id: requestID(r), client: s.clientAddr(r)}}
		info := &q.info
		q.id[0] = info.id
		w.Header()["X-Request-Id"] = q.id[:] // (canonical key)
		q.ctx = requestCtx{parent: r.Context(), info: info, deadline: start.Add(s.opts.RequestTimeout)}
		ctx := &q.ctx
		defer ctx.end()
		r = r.WithContext(ctx)
		q.sw = statusWriter{ResponseWriter: w, status: http.StatusOK}
		sw := &q.sw
		err := h(sw, r)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				err = &registry.Error{Code: CodeTimeout, Message: "the request took too long"}
			}
			if render != nil {
				render(sw, r, err)
			} else {
				s.writeError(sw, err)
			}
		}
		elapsed := time.Since(start)
		m.counter(r.Method, sw.status).Inc()
		m.duration.Observe(elapsed.Seconds())
		level := slog.LevelInfo
		if err != nil && sw.status >= 500 {
			level = slog.LevelError
		}
		if !s.log.Enabled(ctx, level) {
			return
		}
		attrs := []any{"id", info.id, "client", info.client, "method", r.Method, "route", route, "status", sw.status, "duration", elapsed}
		if info.registrar != "" {
			attrs = append(attrs, "registrar", info.registrar)
		}
		if info.name != "" {
			attrs = append(attrs, "name", info.name)
		}
		if err != nil {
			attrs = append(attrs, "code", registry.CodeOf(err))
			if sw.status >= 500 {
				attrs = append(attrs, "error", err.Error())
			}
		}
		s.log.Log(ctx, level, "request", attrs...)
	})
}

// routeMetrics holds a route's metrics: its latency histogram, and its
// request counters by method and status as they are first used.
type routeMetrics struct {
	route    string
	requests *prometheus.CounterVec
	duration prometheus.Observer
	counters sync.Map // methodStatus → prometheus.Counter
}

type methodStatus struct {
	method string
	status int
}

func (m *routeMetrics) counter(method string, status int) prometheus.Counter {
	k := methodStatus{methodLabel(method), status}
	if c, ok := m.counters.Load(k); ok {
		return c.(prometheus.Counter)
	}
	c := m.requests.WithLabelValues(m.route, k.method, strconv.Itoa(status))
	m.counters.Store(k, c)
	return c
}

// methodLabel is a request method as a metrics label: the methods of RFC
// 9110 and PATCH as they are, any other "OTHER". net/http takes any token
// as a method, and a label value per token would be a series per token:
// a client could grow the metrics (and this server's memory) without
// bound.
func methodLabel(method string) string {
	switch method {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE":
		return method
	}
	return "OTHER"
}

func (s *Server) writeError(w http.ResponseWriter, err error) {
	body := ErrorBody{Code: registry.CodeOf(err), Message: err.Error()}
	var re *registry.Error
	if errors.As(err, &re) {
		body.Code, body.Message, body.Errors, body.BlockedBy = re.Code, re.Message, re.Errors, re.BlockedBy
		if re.Code == registry.CodeInternal {
			body.Message = "internal error" // the cause is logged, not shown
		}
		if re.Code == registry.CodeInvalid || re.Code == registry.CodeConflict || re.Code == registry.CodeExists {
			body.DataVersion = s.svc.DataVersion()
		}
		shortfall(&body, err) // account.go
	}
	retryAfter(w, body.Code)
	writeJSON(w, StatusOf(body.Code), body)
}

// retryAfter sets the Retry-After of an error code's answer.
func retryAfter(w http.ResponseWriter, code string) {
	switch code {
	case CodeRateLimited:
		w.Header().Set("Retry-After", "1")
	case registry.CodeUnavailable:
		w.Header().Set("Retry-After", "30") // space or the database must come back first
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// auth requires a registrar's API token (Authorization: Bearer TOKEN) and
// applies the registrar's rate limit.
func (s *Server) auth(h func(http.ResponseWriter, *http.Request) error) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		addr := infoOf(r).client
		if s.authFail.Exhausted(addr) {
			return registry.Errorf(CodeRateLimited, "too many failed authentications from %s; retry later", addr)
		}
		// the scheme is case-insensitive (RFC 9110 §11.1)
		scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
		token = strings.TrimSpace(token)
		if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
			s.authFail.Allow(addr)
			return registry.Errorf(registry.CodeUnauthorized, "an API token is required: Authorization: Bearer TOKEN")
		}
		reg, err := s.svc.Authenticate(r.Context(), token)
		if err != nil {
			if registry.CodeOf(err) == registry.CodeUnauthorized {
				s.authFail.Allow(addr)
			}
			return err
		}
		infoOf(r).registrar = reg.Name
		// the registrar's address allow-list (registry/allowlist.go), on
		// the client address as the per-address limits see it
		if err := registry.CheckClientAddr(reg, addr); err != nil {
			s.log.Warn("API request refused: address not in the registrar's allow-list", "registrar", reg.Name, "client", addr)
			return err
		}
		if !s.limiter(reg.ID).Allow() {
			return registry.Errorf(CodeRateLimited, "too many requests for registrar %s; retry later", reg.Name)
		}
		// the audit records of the request say it came over HTTP, with its id
		ctx := registry.WithChannel(r.Context(), registry.Channel{Name: "http", SvTRID: infoOf(r).id})
		return h(w, r.WithContext(context.WithValue(ctx, registrarKey, reg)))
	}
}

func (s *Server) limiter(id int64) *rate.Limiter {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.limiters[id]
	if l == nil {
		l = rate.NewLimiter(rate.Limit(s.opts.RateLimit), s.opts.RateBurst)
		s.limiters[id] = l
	}
	return l
}

func registrarOf(r *http.Request) *registry.Registrar {
	return r.Context().Value(registrarKey).(*registry.Registrar)
}

// param reads a query parameter: valid UTF-8, not too long.
func (s *Server) param(r *http.Request, key string) (string, error) {
	return s.paramOf(r.URL.Query(), key)
}

// paramOf is param from a query already parsed (a handler that reads
// several parameters parses the query once).
func (s *Server) paramOf(q url.Values, key string) (string, error) {
	return s.paramValue(key, q.Get(key))
}

// paramValue checks parameter key's value v: valid UTF-8, not too long.
func (s *Server) paramValue(key, v string) (string, error) {
	if !utf8.ValidString(v) {
		return "", registry.Errorf(CodeBadUTF8, "parameter %s is not valid UTF-8", key)
	}
	if len(v) > s.opts.MaxName {
		return "", registry.Errorf(registry.CodeBadName, "parameter %s is longer than %d bytes", key, s.opts.MaxName)
	}
	return v, nil
}

func (s *Server) zones(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, s.svc.Zones())
}

func (s *Server) check(w http.ResponseWriter, r *http.Request) error {
	name, lang := query2(r.URL.RawQuery, "name", "lang")
	name, err := s.paramValue("name", name)
	if err != nil {
		return err
	}
	if name == "" {
		return registry.Errorf(registry.CodeBadName, "parameter name is required: /v1/check?name=label.zone&lang=TAG")
	}
	lang, err = s.paramValue("lang", lang)
	if err != nil {
		return err
	}
	setName(r, name)
	res, err := s.svc.Check(r.Context(), name, lang)
	if err != nil {
		s.count("check", resultOf(err))
		return err
	}
	s.count("check", string(res.Status))
	return writeCheck(w, res)
}

// CreateRequest is the body of POST /v1/domains.
type CreateRequest struct {
	Name     string `json:"name"`
	Lang     string `json:"lang"`
	AuthInfo string `json:"auth_info,omitempty"` // stored hashed; "" for none
	// The registration period: years or months (neither: the zone's
	// default, 1 year).
	Years  int `json:"years,omitempty"`
	Months int `json:"months,omitempty"`
	// The domain's contacts (registrant, admin, tech, billing: the
	// registrar's own; docs/contacts.md), name servers (hosts of the
	// registry) and DS records (docs/delegation.md): all created with the
	// domain in one transaction, or none.
	Contacts    []registry.DomainContact `json:"contacts,omitempty"`
	NameServers []string                 `json:"name_servers,omitempty"`
	DS          []registry.DS            `json:"ds,omitempty"`
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return registry.Errorf(CodeTooLarge, "the request body is larger than %d bytes", s.opts.MaxBody)
		}
		return registry.Errorf(CodeBadJSON, "reading the request body: %v", err)
	}
	if !utf8.Valid(body) {
		return registry.Errorf(CodeBadUTF8, "the request body is not valid UTF-8")
	}
	var req CreateRequest
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return registry.Errorf(CodeBadJSON, "the request body is not the JSON object {\"name\": ..., \"lang\": ...}: %v", err)
	}
	if dec.More() {
		return registry.Errorf(CodeBadJSON, "the request body has more than one JSON value")
	}
	if req.Name == "" {
		return registry.Errorf(registry.CodeBadName, "name is required")
	}
	setName(r, req.Name) // the service checks it, and records a refusal
	p, err := period(req.Years, req.Months)
	if err != nil {
		return err
	}
	d, err := s.svc.CreateDomain(lifeCtx(r), registrarOf(r), registry.DomainCreate{Name: req.Name, Lang: req.Lang, Period: p, AuthInfo: req.AuthInfo,
		Contacts: req.Contacts, NameServers: req.NameServers, DS: req.DS})
	s.count("create", resultOf(err))
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/v1/domains/"+d.ALabel)
	return writeJSON(w, http.StatusCreated, s.withStatuses(d))
}

func (s *Server) info(w http.ResponseWriter, r *http.Request) error {
	name, err := s.pathName(r)
	if err != nil {
		return err
	}
	d, err := s.svc.Info(r.Context(), name)
	if err != nil {
		return err
	}
	if d.Statuses, err = s.svc.StatusesNow(r.Context(), d); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, d)
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request) error {
	name, err := s.pathName(r)
	if err != nil {
		return err
	}
	d, err := s.svc.DeleteDomain(lifeCtx(r), registrarOf(r), registry.DomainDelete{Name: name})
	s.count("delete", resultOf(err))
	if err != nil {
		return err
	}
	if d != nil {
		// in its redemption period, holding its conflict set until its
		// purge (docs/lifecycle.md): accepted, not done
		if d, err = s.after(r, d); err != nil {
			return err
		}
		return writeJSON(w, http.StatusAccepted, d)
	}
	w.WriteHeader(http.StatusNoContent) // purged inside its add grace period
	return nil
}

// list: GET /v1/domains?limit=&cursor=, a page of the registrar's domains
// (the body, an array, as before); the next page's cursor is in the
// Next-Cursor header and a Link rel="next", absent on the last page.
func (s *Server) list(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit := 0
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > registry.MaxPageSize {
			return registry.Errorf(CodeBadParam, "limit must be a number from 1 to %d (default %d)", registry.MaxPageSize, registry.DefaultPageSize)
		}
		limit = n
	}
	var after int64
	if v := q.Get("cursor"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return registry.Errorf(CodeBadParam, "cursor %q is not one of this listing: use the Next-Cursor of the page before", v)
		}
		after = n
	}
	p, err := s.svc.ListPage(r.Context(), registrarOf(r), after, limit)
	if err != nil {
		return err
	}
	if p.Next != 0 {
		next := strconv.FormatInt(p.Next, 10)
		u := url.Values{"cursor": {next}}
		if limit != 0 {
			u.Set("limit", strconv.Itoa(limit))
		}
		w.Header().Set("Next-Cursor", next)
		w.Header().Set("Link", "</v1/domains?"+u.Encode()+">; rel=\"next\"")
	}
	for _, d := range p.Domains {
		s.withStatuses(d)
	}
	return writeJSON(w, http.StatusOK, p.Domains)
}

// pathName reads the {name} of a path. The registry service checks it as
// it checks every name (length, UTF-8, control characters, form), and
// records a refused delete.
func (s *Server) pathName(r *http.Request) (string, error) {
	name := r.PathValue("name")
	setName(r, name)
	if !utf8.ValidString(name) {
		return "", registry.Errorf(CodeBadUTF8, "the name is not valid UTF-8")
	}
	return name, nil
}
