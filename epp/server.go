// Package epp serves the registry over EPP (RFC 5730 the protocol, RFC
// 5731 domain objects, RFC 5734 its TCP transport over TLS 1.2+), with the
// IDN mapping extension (draft-ietf-eppext-idnmap, namespace
// urn:ietf:params:xml:ns:idn-1.0): a thin front end over registry.Service,
// answering the registry's error codes through the one code table
// (registry.InfoOf).
//
// Commands: hello, login (with newPW and RFC 8807 login security,
// loginsec.go), logout, domain check, create (with
// <idn:data> and an authInfo), info, delete, update (the authInfo),
// transfer (request, query, approve, reject, cancel), poll (req, ack).
// Everything else answers 2101 (unimplemented command) or 2307
// (unimplemented object service). docs/epp.md has a session transcript.
package epp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"

	"github.com/akshara-idn/akshara/internal/tcpserve"
	"github.com/akshara-idn/akshara/registry"
)

// Options configure a Server.
type Options struct {
	Logger *slog.Logger
	// TLS has the server's certificate (required); for client
	// certificates set ClientAuth and ClientCAs. MinVersion is raised to
	// TLS 1.2 (RFC 8996).
	TLS *tls.Config
	// ServerID is the greeting's svID (default "akshara").
	ServerID string
	// MaxFrame is the largest data unit accepted, header included
	// (default 64 KiB); a longer one is refused before its body is read.
	MaxFrame int
	// IdleTimeout closes a session that sends nothing for this long
	// (default 10 minutes).
	IdleTimeout time.Duration
	// ReadTimeout bounds the TLS handshake and the reading of one frame
	// once its header has arrived (default 30 s): slow clients are closed.
	ReadTimeout time.Duration
	// WriteTimeout bounds the writing of one frame (default 30 s).
	WriteTimeout time.Duration
	// CommandTimeout bounds the registry's work on one command (default 10 s).
	CommandTimeout time.Duration
	// MaxSessions caps concurrent sessions (default 128); one more is
	// answered 2502 and closed.
	MaxSessions int
	// ReservedSessions of the MaxSessions slots are held for the addresses
	// registrars use (default MaxSessions/4; negative: none): a connection
	// from an address no registrar logged in from lately, and in no
	// registrar's allow-list, is answered 2502 while only they are free,
	// so that a flood of unauthenticated connections from many addresses
	// cannot keep registrars from logging in (slots.go).
	ReservedSessions int
	// MaxSessionsPerAddr caps the sessions of one client address, logged
	// in or not (default 16; negative: no cap): one more is answered 2502
	// and closed, and connections beyond twice the cap are closed at
	// once, before the TLS handshake. One address cannot take the slots
	// of everyone.
	MaxSessionsPerAddr int
	// MaxSessionsPerRegistrar caps the logged-in sessions of one
	// registrar (default 16; negative: no cap): a login beyond it is
	// answered 2502 and the session closed.
	MaxSessionsPerRegistrar int
	// LoginTimeout closes a session that has not logged in this long after
	// it connected (default 10 s): unauthenticated sessions cannot hold
	// slots.
	LoginTimeout time.Duration
	// CommandRate limits the commands per second of one registrar, over
	// all its sessions (default 50, burst CommandBurst, default 100;
	// negative: no limit). A command over the rate waits for its turn; one
	// that would wait longer than CommandTimeout is answered 2502
	// (RATE_LIMITED) and the session closed. Logins are limited by the
	// lockout instead.
	CommandRate  float64
	CommandBurst int
	// SessionLoginFailures closes a session after this many failed logins
	// (default 3), with 2501.
	SessionLoginFailures int
	// LockoutFailures failed logins from one address within LockoutWindow
	// refuse further logins from it until the window passes (defaults 10
	// and 15 minutes). Failures from one address do not lock a registrar
	// out of another.
	LockoutFailures int
	LockoutWindow   time.Duration
	// Metrics, if set, gets the server's counters: commands by command,
	// object (metrics.go) and result code, open sessions, failed logins.
	Metrics prometheus.Registerer
	// Trace, if set, sees every frame: received (in) and sent. It must be
	// safe for concurrent use; frames must not be kept without copying.
	Trace func(in bool, frame []byte)
}

// Server is an EPP server. It is safe for concurrent use.
type Server struct {
	svc   *registry.Service
	opts  Options
	log   *slog.Logger
	tls   *tls.Config
	slots slots      // sessions holding a slot (slots.go)
	known knownAddrs // addresses registrars logged in from (slots.go)
	allow allowCache // registrars' allow-lists (slots.go)

	tcp tcpserve.Conns // listeners and connections

	trPrefix string
	trSeq    atomic.Uint64
	lockout  *lockout
	table    sessionTable
	// failedIDs counts failed logins per client identifier over a day,
	// for the failedLogins event of the registrar's next login
	// (loginsec.go); it locks nobody out
	failedIDs *lockout

	commands     *prometheus.CounterVec
	sessions     prometheus.Gauge
	loginFailure prometheus.Counter
}

// New makes a server for a service.
func New(svc *registry.Service, o Options) (*Server, error) {
	if o.TLS == nil || (len(o.TLS.Certificates) == 0 && o.TLS.GetCertificate == nil) {
		return nil, errors.New("epp: a TLS certificate is required")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.ServerID == "" {
		o.ServerID = "akshara"
	}
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.IdleTimeout, 10*time.Minute)
	def(&o.ReadTimeout, 30*time.Second)
	def(&o.WriteTimeout, 30*time.Second)
	def(&o.CommandTimeout, 10*time.Second)
	def(&o.LockoutWindow, 15*time.Minute)
	def(&o.LoginTimeout, 10*time.Second)
	if o.MaxSessionsPerAddr == 0 {
		o.MaxSessionsPerAddr = 16
	}
	if o.MaxSessionsPerRegistrar == 0 {
		o.MaxSessionsPerRegistrar = 16
	}
	if o.CommandRate == 0 {
		o.CommandRate = 50
	}
	if o.CommandBurst <= 0 {
		o.CommandBurst = 100
	}
	if o.MaxFrame <= 0 {
		o.MaxFrame = 64 << 10
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = 128
	}
	switch {
	case o.ReservedSessions == 0:
		o.ReservedSessions = o.MaxSessions / 4
	case o.ReservedSessions < 0:
		o.ReservedSessions = 0
	case o.ReservedSessions >= o.MaxSessions:
		return nil, fmt.Errorf("epp: %d reserved session slots of %d leave none for a first login", o.ReservedSessions, o.MaxSessions)
	}
	if o.SessionLoginFailures <= 0 {
		o.SessionLoginFailures = 3
	}
	if o.LockoutFailures <= 0 {
		o.LockoutFailures = 10
	}
	cfg := o.TLS.Clone()
	if cfg.MinVersion < tls.VersionTLS12 {
		cfg.MinVersion = tls.VersionTLS12
	}
	if cfg.ClientAuth == tls.NoClientCert {
		cfg.ClientAuth = tls.RequestClientCert // for pinned fingerprints
	}
	var p [4]byte
	rand.Read(p[:])
	s := &Server{
		svc: svc, opts: o, log: o.Logger, tls: cfg,
		trPrefix:  "AK-" + hex.EncodeToString(p[:]) + "-",
		lockout:   &lockout{max: o.LockoutFailures, window: o.LockoutWindow, m: map[string]*failures{}},
		failedIDs: &lockout{window: failedLoginWindow, m: map[string]*failures{}},
		table: sessionTable{byAddr: map[string]int{}, byRegistrar: map[int64]map[*session]struct{}{},
			limiters: map[int64]*rate.Limiter{}},

		commands:     prometheus.NewCounterVec(prometheus.CounterOpts{Name: "akshara_epp_commands_total", Help: "EPP commands by command, object (domain, host, contact; none for login, logout, poll) and result code."}, []string{"command", "object", "code"}),
		sessions:     prometheus.NewGauge(prometheus.GaugeOpts{Name: "akshara_epp_sessions", Help: "Open EPP sessions."}),
		loginFailure: prometheus.NewCounter(prometheus.CounterOpts{Name: "akshara_epp_login_failures_total", Help: "Failed EPP logins."}),
	}
	if o.Metrics != nil {
		for _, c := range []prometheus.Collector{s.commands, s.sessions, s.loginFailure} {
			if err := o.Metrics.Register(c); err != nil {
				return nil, fmt.Errorf("epp: metrics: %w", err)
			}
		}
	}
	return s, nil
}

// ErrServerClosed is returned by Serve after Close.
var ErrServerClosed = errors.New("epp: server closed")

// Serve accepts TCP connections on ln and speaks EPP over TLS on each.
func (s *Server) Serve(ln net.Listener) error {
	return s.tcp.Serve(ln, "epp", s.log, ErrServerClosed, func(c net.Conn) { s.session(c) })
}

// Close stops the listeners, closes every connection and waits for their
// goroutines to end.
func (s *Server) Close() error {
	s.tcp.Close()
	return nil
}

// Sessions returns the number of sessions open.
func (s *Server) Sessions() int {
	s.slots.mu.Lock()
	defer s.slots.mu.Unlock()
	return s.slots.open
}

// session is one connection.
type session struct {
	s       *Server
	conn    *tls.Conn
	remote  string // host of the peer
	certSHA string
	// certNotAfter is the client certificate's expiry (zero: none), for
	// the certificate events of the login (loginsec.go)
	certNotAfter time.Time
	registrar    *registry.Registrar
	failures     int
	log          *slog.Logger
	trid         registry.Channel // the command being answered (its audit records carry it)
	loginBy      time.Time        // the session is closed if it has not logged in by then
	tableID      int64            // the registrar the session table has it under (0: none)
	// RFC 8748 (fee.go): the session logged in with fee-1.0; the fees of
	// the command being answered; a <fee:check>'s answer
	feeSession bool
	fees       *registry.Fees
	feeChkData string
}

func (s *Server) session(raw net.Conn) {
	start := time.Now()
	host, _, _ := net.SplitHostPort(raw.RemoteAddr().String())
	log := s.log.With("remote", raw.RemoteAddr().String())
	defer func() {
		if v := recover(); v != nil { // a bug must not take the server down
			log.Error("epp: session panicked", "panic", fmt.Sprint(v))
		}
	}()
	// the address's connections are counted from here, the handshake's
	// included; far over the cap they are closed at once
	n := s.table.open(host)
	defer s.table.close(host)
	perAddr := s.opts.MaxSessionsPerAddr
	if perAddr > 0 && n > 2*perAddr {
		log.Warn("epp: connection refused: too many from one address", "max", perAddr)
		return
	}
	loginBy := start.Add(s.opts.LoginTimeout)
	conn := tls.Server(raw, s.tls)
	hs := time.Now().Add(s.opts.ReadTimeout)
	if loginBy.Before(hs) {
		hs = loginBy
	}
	conn.SetDeadline(hs)
	if err := conn.Handshake(); err != nil {
		log.Info("epp: TLS handshake failed", "error", err)
		return
	}
	ss := &session{s: s, conn: conn, remote: host, log: log, loginBy: loginBy}
	defer s.table.logout(ss)
	if perAddr > 0 && n > perAddr {
		log.Warn("epp: session limit of the address reached", "max", perAddr)
		ss.write(fail(CodeSessionLimit, fmt.Sprintf("%s: %s has %d sessions open, the most allowed", messages[CodeSessionLimit], host, perAddr)).bytes("", s.svTRID()))
		return
	}
	if pc := conn.ConnectionState().PeerCertificates; len(pc) > 0 {
		h := sha256.Sum256(pc[0].Raw)
		ss.certSHA = hex.EncodeToString(h[:])
		ss.certNotAfter = pc[0].NotAfter
	}
	if ok, reserved := s.take(host); !ok { // slots.go
		msg := ""
		if reserved {
			msg = messages[CodeSessionLimit] + ": the free session slots are held for the addresses registrars use; try again later"
		}
		log.Warn("epp: session limit reached", "max", s.opts.MaxSessions, "reserved", reserved)
		ss.write(fail(CodeSessionLimit, msg).bytes("", s.svTRID()))
		return
	}
	defer s.release()
	log.Info("epp: session open", "tls", tls.VersionName(conn.ConnectionState().Version))
	if !ss.write(s.greet()) { // staging.go
		return
	}
	for {
		frame, err := ss.read()
		if err != nil {
			if r, ok := err.(*response); ok {
				ss.write(r.bytes("", s.svTRID()))
			}
			if ss.registrar == nil && !time.Now().Before(ss.loginBy) {
				err = fmt.Errorf("no login within %v", s.opts.LoginTimeout)
			}
			log.Info("epp: session closed", "reason", err.Error(), "duration", time.Since(start))
			return
		}
		out, done := ss.handle(frame)
		if !ss.write(out) || done {
			log.Info("epp: session closed", "duration", time.Since(start))
			return
		}
	}
}

// read reads one data unit, closing the session on idle and slow clients:
// the idle deadline runs until the header has come, the read deadline for
// the body.
func (ss *session) read() ([]byte, error) {
	o := ss.s.opts
	ss.conn.SetReadDeadline(ss.deadline(o.IdleTimeout))
	body, err := readFrame(ss.conn, o.MaxFrame, func() { ss.conn.SetReadDeadline(ss.deadline(o.ReadTimeout)) })
	if err == nil && o.Trace != nil {
		o.Trace(true, body)
	}
	return body, err
}

// deadline is now+d, or the login deadline if it is sooner and the
// session has not logged in.
func (ss *session) deadline(d time.Duration) time.Time {
	t := time.Now().Add(d)
	if ss.registrar == nil && ss.loginBy.Before(t) {
		return ss.loginBy
	}
	return t
}

// readFrame reads one data unit (RFC 5734 §4): a 4-octet total length,
// then the XML. The length is checked before the body is read (and before
// anything is allocated for it): a bad one is a *response (2500), to be
// sent before the session is closed. afterHeader, if set, runs between
// the header and the body.
func readFrame(r io.Reader, max int, afterHeader func()) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n <= 4 {
		return nil, fail(CodeFailedClosing, "a data unit's length counts its own 4 octets and the XML: "+strconv.FormatUint(uint64(n), 10)+" is too short")
	}
	if uint64(n) > uint64(max) {
		return nil, fail(CodeFailedClosing, fmt.Sprintf("a data unit of %d octets is longer than this server's limit of %d", n, max))
	}
	if afterHeader != nil {
		afterHeader()
	}
	body := make([]byte, n-4)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("reading a frame of %d octets: %w", n, err)
	}
	return body, nil
}

// write sends one data unit.
func (ss *session) write(b []byte) bool {
	if t := ss.s.opts.Trace; t != nil {
		t(false, b)
	}
	ss.conn.SetWriteDeadline(time.Now().Add(ss.s.opts.WriteTimeout))
	buf := make([]byte, 4+len(b))
	binary.BigEndian.PutUint32(buf, uint32(4+len(b)))
	copy(buf[4:], b)
	_, err := ss.conn.Write(buf)
	return err == nil
}

func (s *Server) svTRID() string {
	return s.trPrefix + strconv.FormatUint(s.trSeq.Add(1), 10)
}

// failures counts failed logins of one key.
type failures struct {
	n     int
	first time.Time
}

// lockout counts failed logins per address.
type lockout struct {
	mu     sync.Mutex
	max    int
	window time.Duration
	m      map[string]*failures
}

const maxLockoutKeys = 100000

func (l *lockout) locked(keys ...string) bool { // keys: addresses
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	for _, k := range keys {
		if f := l.m[k]; f != nil {
			if now.Sub(f.first) > l.window {
				delete(l.m, k)
				continue
			}
			if f.n >= l.max {
				return true
			}
		}
	}
	return false
}

func (l *lockout) fail(keys ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if len(l.m) >= maxLockoutKeys {
		for k, f := range l.m {
			if now.Sub(f.first) > l.window {
				delete(l.m, k)
			}
		}
	}
	for _, k := range keys {
		f := l.m[k]
		if f == nil || now.Sub(f.first) > l.window {
			if len(l.m) >= maxLockoutKeys {
				continue
			}
			f = &failures{first: now}
			l.m[k] = f
		}
		f.n++
	}
}

// contextFor is the context of one command: the audit records it makes
// carry the channel and the command's transaction identifiers.
func (ss *session) contextFor() (context.Context, context.CancelFunc) {
	ctx := registry.WithChannel(context.Background(), ss.trid)
	if ss.fees != nil { // the command's fees (fee.go)
		ctx = registry.WithFees(ctx, ss.fees)
	}
	return context.WithTimeout(ctx, ss.s.opts.CommandTimeout)
}

// sessionTable is the server's session bookkeeping: the connections open
// per client address, the logged-in sessions per registrar (for the caps,
// and to find a registrar's sessions: sessionsOf), and each registrar's
// command rate limiter.
type sessionTable struct {
	mu          sync.Mutex
	byAddr      map[string]int
	byRegistrar map[int64]map[*session]struct{}
	limiters    map[int64]*rate.Limiter
}

// open counts a connection of addr and returns how many addr has open.
func (t *sessionTable) open(addr string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.byAddr[addr]++
	return t.byAddr[addr]
}

// close uncounts a connection of addr.
func (t *sessionTable) close(addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byAddr[addr]--; t.byAddr[addr] <= 0 {
		delete(t.byAddr, addr)
	}
}

// login records ss as a session of registrar r, unless r has max
// sessions already (max ≤ 0: no cap); it reports whether it did.
func (t *sessionTable) login(ss *session, r *registry.Registrar, max int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.byRegistrar[r.ID]
	if max > 0 && len(m) >= max {
		return false
	}
	if m == nil {
		m = map[*session]struct{}{}
		t.byRegistrar[r.ID] = m
	}
	m[ss] = struct{}{}
	ss.tableID = r.ID
	return true
}

// logout forgets ss as a registrar's session (when it ends).
func (t *sessionTable) logout(ss *session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	id := ss.tableID
	if id == 0 {
		return
	}
	ss.tableID = 0
	delete(t.byRegistrar[id], ss)
	if len(t.byRegistrar[id]) == 0 {
		delete(t.byRegistrar, id)
	}
}

// sessionsOf returns the logged-in sessions of a registrar.
func (t *sessionTable) sessionsOf(registrarID int64) []*session {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*session, 0, len(t.byRegistrar[registrarID]))
	for ss := range t.byRegistrar[registrarID] {
		out = append(out, ss)
	}
	return out
}

// RegistrarSessions returns the number of sessions logged in as the
// registrar with this id.
func (s *Server) RegistrarSessions(registrarID int64) int {
	return len(s.table.sessionsOf(registrarID))
}

// limiter is a registrar's command rate limiter (nil: no limit).
func (s *Server) limiter(registrarID int64) *rate.Limiter {
	if s.opts.CommandRate < 0 {
		return nil
	}
	t := &s.table
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.limiters[registrarID]
	if l == nil {
		l = rate.NewLimiter(rate.Limit(s.opts.CommandRate), s.opts.CommandBurst)
		t.limiters[registrarID] = l
	}
	return l
}

// throttle applies the registrar's command rate to a command of a
// logged-in session (a logout goes through): it waits for the command's
// turn, or answers RATE_LIMITED (2502, closing) if the wait would be
// longer than the command timeout.
func (ss *session) throttle(c *command) *response {
	if ss.registrar == nil || c.Logout != nil {
		return nil
	}
	l := ss.s.limiter(ss.registrar.ID)
	if l == nil {
		return nil
	}
	ctx, cancel := ss.contextFor()
	defer cancel()
	if err := l.Wait(ctx); err != nil {
		ss.log.Warn("epp: command rate exceeded", "rate", ss.s.opts.CommandRate)
		// RATE_LIMITED of the code table
		return fail(registry.InfoOf(registry.CodeRateLimited).EPP, fmt.Sprintf("%s: too many commands for registrar %s (at most %g a second); retry later", messages[CodeSessionLimit], ss.registrar.Name, ss.s.opts.CommandRate))
	}
	return nil
}
