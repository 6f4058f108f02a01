package epp

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/akshara-idn/akshara/registry"
)

// Login security (issue 38): RFC 8807's extension, namespace
// urn:ietf:params:xml:ns:epp:loginSec-1.0 (docs/epp.md "Login
// security"). A login may carry <loginSec:loginSec> with a user agent, a
// password of up to 128 characters (<loginSec:pw>, <pw> then being the
// placeholder [LOGIN-SECURITY]) and a new one (<loginSec:newPW>, <newPW>
// the placeholder); the answer carries <loginSec:loginSecData> with the
// login's security events: the password or the client certificate
// expiring within 30, 7 or 1 days (warning) or expired (error, the login
// refused with 2200), a new password refused (newPW), a TLS 1.2 cipher
// suite without AEAD (cipher), failed logins with the registrar's name
// since its last login, within a day (stat failedLogins). A client that neither listed the
// extension at login nor used it gets no <loginSec:loginSecData> (RFC
// 5730 §2.9.1.1: the extensions to be used are those it lists): the
// warnings are added to the answer's <msg> instead.

// NSLoginSec is RFC 8807's namespace.
const NSLoginSec = "urn:ietf:params:xml:ns:epp:loginSec-1.0"

// loginSecExt is a login's <loginSec:loginSec>.
type loginSecExt struct {
	UserAgent *struct {
		App  string `xml:"urn:ietf:params:xml:ns:epp:loginSec-1.0 app"`
		Tech string `xml:"urn:ietf:params:xml:ns:epp:loginSec-1.0 tech"`
		OS   string `xml:"urn:ietf:params:xml:ns:epp:loginSec-1.0 os"`
	} `xml:"urn:ietf:params:xml:ns:epp:loginSec-1.0 userAgent"`
	PW    *string `xml:"urn:ietf:params:xml:ns:epp:loginSec-1.0 pw"`
	NewPW *string `xml:"urn:ietf:params:xml:ns:epp:loginSec-1.0 newPW"`
}

// failedLoginWindow is the window of the failedLogins stat event.
const failedLoginWindow = 24 * time.Hour

// loginPasswords reads a login's password and new password ("" for
// none) from <pw>, <newPW> and <loginSec:pw>, <loginSec:newPW> (RFC 8807
// §4.1): the placeholder in <pw> (<newPW>) says the password (the new
// one) is in the extension, and the extension's is used only with the
// placeholder. <pw> and <newPW> carry at most 16 characters (the EPP
// schema's pwType), the extension's 128.
func loginPasswords(l *login, ls *loginSecExt) (pw, newPW string, r *response) {
	pick := func(plain *string, ext *string, elem string) (string, *response) {
		switch {
		case plain == nil && ext == nil:
			return "", nil
		case ext != nil && (plain == nil || *plain != registry.LoginSecPlaceholder):
			return "", fail(CodeValueSyntax, fmt.Sprintf("%s: with <loginSec:%s>, <%s> is %s (RFC 8807 §4.1)", messages[CodeValueSyntax], elem, elem, registry.LoginSecPlaceholder))
		case ext != nil:
			if n := utf8.RuneCountInString(*ext); n > registry.EPPPasswordMax {
				return "", fail(CodeValueSyntax, fmt.Sprintf("%s: <loginSec:%s> has at most %d characters (this one %d)", messages[CodeValueSyntax], elem, registry.EPPPasswordMax, n))
			}
			return *ext, nil
		case *plain == registry.LoginSecPlaceholder:
			return "", fail(CodeMissing, fmt.Sprintf("%s: <%s> is %s: the password goes in <loginSec:%s> (RFC 8807 §4.1)", messages[CodeMissing], elem, registry.LoginSecPlaceholder, elem))
		}
		if n := utf8.RuneCountInString(*plain); n > registry.EPPPlainPasswordMax {
			return "", fail(CodeValueSyntax, fmt.Sprintf("%s: <%s> has at most %d characters (the EPP schema's pwType); a longer password goes in <loginSec:%s> with <%s>%s</%s> (RFC 8807, %s)",
				messages[CodeValueSyntax], elem, registry.EPPPlainPasswordMax, elem, elem, registry.LoginSecPlaceholder, elem, NSLoginSec))
		}
		return *plain, nil
	}
	var lsPW, lsNew *string
	if ls != nil {
		lsPW, lsNew = ls.PW, ls.NewPW
	}
	plain := l.PW
	if pw, r = pick(&plain, lsPW, "pw"); r != nil {
		return "", "", r
	}
	if newPW, r = pick(l.NewPW, lsNew, "newPW"); r != nil {
		return "", "", r
	}
	if l.NewPW != nil && newPW == "" {
		return "", "", fail(CodeValueSyntax, messages[CodeValueSyntax]+": an empty <newPW>")
	}
	return pw, newPW, nil
}

// loginSecWanted reports whether a login's answer may carry
// <loginSec:loginSecData>: the client used the extension or listed it.
func loginSecWanted(l *login, ls *loginSecExt) bool {
	if ls != nil {
		return true
	}
	for _, u := range l.Svcs.ExtURI {
		if strings.TrimSpace(u) == NSLoginSec {
			return true
		}
	}
	return false
}

// userAgent is a login's <loginSec:userAgent> for the log ("" for none).
func userAgent(ls *loginSecExt) string {
	if ls == nil || ls.UserAgent == nil {
		return ""
	}
	var parts []string
	for _, p := range []string{ls.UserAgent.App, ls.UserAgent.Tech, ls.UserAgent.OS} {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, clip(p, 64))
		}
	}
	return strings.Join(parts, "; ")
}

// event is an RFC 8807 <loginSec:event>.
type event struct {
	registry.LoginEvent
	name, value, duration string // the stat and cipher events'
}

// transportEvents are the events of the session's TLS connection: a TLS
// 1.2 cipher suite without authenticated encryption (CBC) is a cipher
// warning. (TLS below 1.2 is refused at the handshake, so there is no
// tlsProtocol event.)
func transportEvents(cs tls.ConnectionState) []event {
	if cs.Version >= tls.VersionTLS13 || aead(cs.CipherSuite) {
		return nil
	}
	return []event{{LoginEvent: registry.LoginEvent{Type: "cipher", Level: registry.LevelWarning,
		Message: "The TLS cipher suite has no authenticated encryption (CBC mode): use TLS 1.3 or an AES-GCM or ChaCha20-Poly1305 suite"},
		value: tls.CipherSuiteName(cs.CipherSuite)}}
}

// aead reports whether a TLS 1.2 cipher suite is an AEAD one.
func aead(id uint16) bool {
	n := tls.CipherSuiteName(id)
	return strings.Contains(n, "_GCM_") || strings.Contains(n, "CHACHA20_POLY1305")
}

// statEvent is the failedLogins stat event: n failed logins with the
// registrar's client identifier since its last login, within the last
// day (none for 0).
func statEvent(n int) []event {
	if n <= 0 {
		return nil
	}
	return []event{{LoginEvent: registry.LoginEvent{Type: "stat", Level: registry.LevelWarning,
		Message: strconv.Itoa(n) + " failed login(s) with this client identifier since the last login, in the last 24 hours"},
		name: "failedLogins", value: strconv.Itoa(n), duration: "P1D"}}
}

// loginSecData renders <loginSec:loginSecData> ("" for no events).
func loginSecData(evs []event) string {
	if len(evs) == 0 {
		return ""
	}
	var b bytes.Buffer
	b.WriteString(`<loginSec:loginSecData xmlns:loginSec="` + NSLoginSec + `">`)
	for _, e := range evs {
		b.WriteString(`<loginSec:event type="` + e.Type + `"`)
		if e.name != "" {
			b.WriteString(` name="`)
			esc(&b, e.name)
			b.WriteString(`"`)
		}
		b.WriteString(` level="` + e.Level + `"`)
		if !e.ExDate.IsZero() {
			b.WriteString(` exDate="` + e.ExDate.UTC().Format(time.RFC3339) + `"`)
		}
		if e.value != "" {
			b.WriteString(` value="`)
			esc(&b, e.value)
			b.WriteString(`"`)
		}
		if e.duration != "" {
			b.WriteString(` duration="` + e.duration + `"`)
		}
		b.WriteString(`>`)
		esc(&b, e.Message)
		b.WriteString(`</loginSec:event>`)
	}
	b.WriteString(`</loginSec:loginSecData>`)
	return b.String()
}

// withEvents puts a login's events in its answer: as
// <loginSec:loginSecData> for a client that wants it, else in the <msg>.
func withEvents(r *response, evs []event, wanted bool) *response {
	if len(evs) == 0 {
		return r
	}
	if wanted {
		r.exts = loginSecData(evs)
		return r
	}
	msg := r.message()
	for _, e := range evs { // the expiries: they stop logins
		if e.Level == registry.LevelWarning && (e.Type == registry.EventPassword || e.Type == registry.EventCertificate) {
			msg += "; " + e.Message
		}
	}
	r.msg = msg
	return r
}

// of makes events of the registry's.
func of(evs []registry.LoginEvent) []event {
	out := make([]event, len(evs))
	for i, e := range evs {
		out[i] = event{LoginEvent: e}
	}
	return out
}

// take returns how many failures key has in the window, and forgets
// them.
func (l *lockout) take(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := l.m[key]
	delete(l.m, key)
	if f != nil && time.Since(f.first) <= l.window {
		return f.n
	}
	return 0
}

func (ss *session) login(l *login, ext *cmdExt) *response {
	if ss.registrar != nil {
		return fail(CodeUse, messages[CodeUse]+": already logged in as "+ss.registrar.Name)
	}
	var ls *loginSecExt
	if ext != nil {
		if ext.IDN != nil || ext.SecCreate != nil || ext.SecUpdate != nil || ext.RGP != nil || len(ext.Other) > 0 || ext.LoginSec == nil {
			return fail(CodeUnimplExtension, messages[CodeUnimplExtension]+": a login takes no extension but "+NSLoginSec+" (RFC 8807)")
		}
		ls = ext.LoginSec
	}
	clID := strings.TrimSpace(l.ClID)
	switch {
	case clID == "" || l.PW == "":
		return fail(CodeMissing, messages[CodeMissing]+": <clID> and <pw>")
	case strings.TrimSpace(l.Options.Version) != "1.0":
		return fail(CodeVersion, messages[CodeVersion]+": this server speaks EPP 1.0")
	case strings.TrimSpace(l.Options.Lang) != "en":
		return fail(CodeUnimplOption, messages[CodeUnimplOption]+": the language of responses is en")
	}
	for _, u := range l.Svcs.ObjURI {
		if !servedObject(strings.TrimSpace(u)) {
			return fail(CodeUnimplObject, fmt.Sprintf("%s: %q (this server serves %s, %s and %s)", messages[CodeUnimplObject], u, NSDomain, NSHost, NSCont))
		}
	}
	pw, newPW, r := loginPasswords(l, ls)
	if r != nil {
		return r
	}
	wanted := loginSecWanted(l, ls)
	ignored := unservedExtensions(l.Svcs.ExtURI) // listed, not served: ignored (loginext.go)
	lo := ss.s.lockout
	// Failures count per address, so that no one elsewhere can lock a
	// registrar out; a success does not reset the address's count.
	key := ss.remote
	if lo.locked(key) {
		ss.log.Warn("epp: login refused: too many failures", "clID", clID)
		return fail(CodeAuthClosing, messages[CodeAuthClosing]+": too many failed logins; try again later")
	}
	ctx, cancel := ss.contextFor()
	defer cancel()
	res, err := ss.s.svc.LoginEPP(ctx, registry.EPPLoginRequest{ClID: clID, Password: pw, NewPassword: newPW,
		CertSHA256: ss.certSHA, CertNotAfter: ss.certNotAfter, Addr: ss.remote})
	if err != nil {
		code := registry.CodeOf(err)
		switch code {
		case registry.CodeUnauthorized, registry.CodeAddressNotAllowed:
			lo.fail(key)
			ss.s.failedIDs.fail(clip(clID, 16)) // the failedLogins stat of the registrar's next login
			ss.s.loginFailure.Inc()
			ss.failures++
			ss.log.Warn("epp: login failed", "clID", clID, "failures", ss.failures, "code", code)
			if code == registry.CodeUnauthorized && ss.failures >= ss.s.opts.SessionLoginFailures {
				return fail(CodeAuthClosing, messages[CodeAuthClosing]+": too many failed logins")
			}
			return fromError(err)
		case registry.CodePasswordExpired, registry.CodeCertificateExpired, registry.CodeBadName:
			ss.log.Warn("epp: login refused", "clID", clID, "code", code)
			var evs []event
			if res != nil {
				evs = of(res.Events)
			}
			r := fromError(err)
			if wanted {
				r.exts = loginSecData(evs)
			}
			return r
		}
		ss.log.Error("epp: login", "error", err)
		return fromError(err)
	}
	reg := res.Registrar
	if !ss.s.table.login(ss, reg, ss.s.opts.MaxSessionsPerRegistrar) {
		ss.log.Warn("epp: login refused: session limit of the registrar", "registrar", reg.Name, "max", ss.s.opts.MaxSessionsPerRegistrar)
		return fail(CodeSessionLimit, fmt.Sprintf("%s: registrar %s has %d sessions open, the most allowed", messages[CodeSessionLimit], reg.Name, ss.s.opts.MaxSessionsPerRegistrar))
	}
	if newPW != "" {
		if err := ss.s.svc.SetEPPPassword(ctx, reg.Name, newPW); err != nil {
			ss.s.table.logout(ss)
			return fromError(err)
		}
	}
	ss.registrar = reg
	ss.s.known.add(ss.remote) // reserved session slots (slots.go)
	ss.log = ss.log.With("registrar", reg.Name)
	evs := of(res.Events)
	evs = append(evs, transportEvents(ss.conn.ConnectionState())...)
	evs = append(evs, statEvent(ss.s.failedIDs.take(reg.Name))...)
	ss.log.Info("epp: logged in", "password_changed", newPW != "", "extensions_ignored", ignored, "user_agent", userAgent(ls), "events", len(evs))
	return withEvents(&response{code: CodeOK, msg: ignoredNote(ignored)}, evs, wanted)
}
