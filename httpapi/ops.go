package httpapi

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/akshara-idn/akshara/registry"
)

// requestInfo is what the request log line says about a request; the
// handlers fill it in as they learn it (auth the registrar, the handler
// the name), and wrap writes it when the request ends.
type requestInfo struct {
	id        string
	client    string
	registrar string
	name      string
}

const infoKey ctxKey = 1

func infoOf(r *http.Request) *requestInfo {
	if i, ok := r.Context().Value(infoKey).(*requestInfo); ok {
		return i
	}
	return &requestInfo{}
}

// setName records the name a request is about, for its log line: made
// printable and at most 256 bytes (the log is no place for a 60 KB name).
func setName(r *http.Request, name string) {
	name = strings.ToValidUTF8(name, "\uFFFD")
	if len(name) > 256 {
		cut := 256
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut] + "…"
	}
	infoOf(r).name = name
}

// requestID returns the client's X-Request-Id if it is a sane token (so a
// proxy's id carries through), or a new random one.
func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); id != "" && len(id) <= 64 && strings.IndexFunc(id, func(c rune) bool {
		return !(c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
	}) < 0 {
		return id
	}
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// clientAddr is the client's IP address: the TCP peer, or, when the peer
// is a trusted proxy, the last address of X-Forwarded-For that is not one
// (addresses before it were written by the client and prove nothing).
func (s *Server) clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if len(s.opts.TrustedProxies) == 0 || !s.trusted(host) {
		return host
	}
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		for _, h := range strings.Split(v, ",") {
			hops = append(hops, strings.TrimSpace(h))
		}
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(hops[i])
		if err != nil {
			return host // a malformed chain: the proxy is what we know
		}
		if !s.trusted(a.String()) {
			return a.Unmap().String()
		}
	}
	return host
}

func (s *Server) trusted(host string) bool {
	a, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	a = a.Unmap()
	for _, p := range s.opts.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// public applies the per-address rate limit of the public endpoints.
func (s *Server) public(h func(http.ResponseWriter, *http.Request) error) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		if addr := infoOf(r).client; !s.perAddr.Allow(addr) {
			return registry.Errorf(CodeRateLimited, "too many requests from %s; retry later", addr)
		}
		return h(w, r)
	}
}

// unmatched answers a path under /v1 that no route takes: 405
// METHOD_NOT_ALLOWED (with Allow) when the path exists for other methods,
// else 404 NOT_FOUND, in JSON like every other answer of the API.
func (s *Server) unmatched(w http.ResponseWriter, r *http.Request) error {
	var allow []string
	for _, m := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"} {
		r2 := r.Clone(r.Context())
		r2.Method = m
		if _, pattern := s.mux.Handler(r2); strings.HasPrefix(pattern, m+" ") || m == "HEAD" && strings.HasPrefix(pattern, "GET ") {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		return registry.Errorf(CodeMethodNotAllowed, "%s is not allowed on %s (allowed: %s)", r.Method, r.URL.Path, strings.Join(allow, ", "))
	}
	return registry.Errorf(registry.CodeNotFound, "there is no %s in the API (see /openapi.yaml)", r.URL.Path)
}

// readiness caches the answer of the store's readiness write for a
// second, so that a flood of /readyz is not a flood of writes.
type readiness struct {
	mu  sync.Mutex
	at  time.Time
	err error
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	s.ready.mu.Lock()
	if time.Since(s.ready.at) > time.Second {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		s.ready.err = s.svc.Ready(ctx)
		cancel()
		s.ready.at = time.Now()
	}
	err := s.ready.err
	s.ready.mu.Unlock()
	if err != nil {
		s.notReady.Inc()
		return &registry.Error{Code: registry.CodeUnavailable, Message: "not ready: the database does not take writes", Err: err}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("ready\n"))
	return nil
}

// audit serves GET /v1/audit: the registrar's own audit records, oldest
// first, filtered by name, action, since and until (RFC 3339), after (a
// record id: the cursor for the next page) and limit (at most 1000).
func (s *Server) audit(w http.ResponseWriter, r *http.Request) error {
	f := registry.AuditFilter{Registrar: registrarOf(r).Name, Limit: 100}
	var err error
	param := func(key string) string {
		if err != nil {
			return ""
		}
		var v string
		v, err = s.param(r, key)
		return v
	}
	f.Name, f.Action = param("name"), param("action")
	for key, t := range map[string]*time.Time{"since": &f.Since, "until": &f.Until} {
		if v := param(key); v != "" && err == nil {
			if *t, err = time.Parse(time.RFC3339Nano, v); err != nil {
				err = registry.Errorf(CodeBadParam, "%s must be a time in RFC 3339 form, such as 2026-01-02T15:04:05Z", key)
			}
		}
	}
	for key, n := range map[string]*int64{"after": &f.AfterID} {
		if v := param(key); v != "" && err == nil {
			if *n, err = strconv.ParseInt(v, 10, 64); err != nil || *n < 0 {
				err = registry.Errorf(CodeBadParam, "%s must be a record id (a number)", key)
			}
		}
	}
	if v := param("limit"); v != "" && err == nil {
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 1 || n > 1000 {
			err = registry.Errorf(CodeBadParam, "limit must be a number from 1 to 1000")
		}
		f.Limit = n
	}
	if err != nil {
		return err
	}
	entries, err := s.svc.Audit(r.Context(), f)
	if err != nil {
		return err
	}
	if entries == nil {
		entries = []registry.AuditEntry{}
	}
	return writeJSON(w, http.StatusOK, entries)
}

// dbStats is a store that can show its connection pool (sqlstore.Store).
type dbStats interface{ DB() *sql.DB }

// registerCollectors adds the server's own metrics, and for a registry of
// its own the Go runtime, the process and the database pool.
func (s *Server) registerCollectors(r prometheus.Registerer, own bool) {
	s.ops = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "akshara_registry_operations_total",
		Help: "Checks, creates and deletes by result: the check's status or ok, or the error code."}, []string{"op", "result"})
	s.notReady = prometheus.NewCounter(prometheus.CounterOpts{Name: "akshara_readyz_failures_total", Help: "Readiness checks that failed."})
	r.MustRegister(s.ops, s.notReady,
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "akshara_audit_write_failures_total", Help: "Audit writes that failed (each is logged)."},
			func() float64 { return float64(s.svc.AuditFailures()) }))
	if rs, ok := s.svc.Store().(interface{ Retries() uint64 }); ok {
		r.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "akshara_db_retries_total", Help: "Database operations retried after a transient fault."},
			func() float64 { return float64(rs.Retries()) }))
	}
	if rs, ok := s.svc.Store().(interface{ ReplicaReads() uint64 }); ok {
		r.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "akshara_db_replica_reads_total", Help: "Reads of checks, infos, RDAP and WHOIS answered by the read replica (docs/replicas.md)."},
			func() float64 { return float64(rs.ReplicaReads()) }))
	}
	if rs, ok := s.svc.Store().(interface{ ReplicaFallbacks() uint64 }); ok {
		r.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "akshara_db_replica_fallbacks_total", Help: "Reads the read replica failed (down, slow, cancelled) that the primary answered."},
			func() float64 { return float64(rs.ReplicaFallbacks()) }))
	}
	for _, c := range s.opts.Collectors {
		r.MustRegister(c)
	}
	if !own {
		return // the caller's registry has its own runtime collectors
	}
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if db, ok := s.svc.Store().(dbStats); ok {
		r.MustRegister(collectors.NewDBStatsCollector(db.DB(), "akshara"))
	}
}

// count records the result of a registry operation.
func (s *Server) count(op string, result string) { s.ops.WithLabelValues(op, result).Inc() }

// resultOf is the label of an operation's outcome.
func resultOf(err error) string {
	if err == nil {
		return "ok"
	}
	return registry.CodeOf(err)
}
