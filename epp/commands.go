package epp

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"

	"github.com/akshara-idn/akshara/registry"
)

// maxCheck is the most names one <domain:check> may ask about.
const maxCheck = 64

// CodeUNameMismatch is the error of a create whose <idn:uname> is not the
// U-label form of its <domain:name>.
const CodeUNameMismatch = "UNAME_MISMATCH"

func init() {
	registry.DefineCode(CodeUNameMismatch, registry.CodeInfo{HTTP: 422, EPP: CodePolicy, Reason: "uname mismatch"})
}

// handle answers one frame: the bytes to send and whether to close after.
func (ss *session) handle(frame []byte) ([]byte, bool) {
	svTRID := ss.s.svTRID()
	req, err := parse(frame)
	if err != nil {
		return fail(CodeSyntax, messages[CodeSyntax]+": "+err.Error()).bytes("", svTRID), false
	}
	if req.Hello != nil && req.Command == nil && req.Extension == nil && len(req.Other) == 0 {
		return ss.s.greet(), false // staging.go
	}
	if req.Command == nil || req.Hello != nil || len(req.Other) > 0 {
		if req.Extension != nil && req.Command == nil && req.Hello == nil {
			return fail(CodeUnimplemented, "protocol extensions (<epp><extension>) are not implemented by this server").bytes("", svTRID), false
		}
		return fail(CodeSyntax, messages[CodeSyntax]+": a client frame holds one <hello/> or one <command>").bytes("", svTRID), false
	}
	c := req.Command
	clTRID := ""
	if c.ClTRID != nil {
		clTRID = strings.TrimSpace(*c.ClTRID)
		if n := utf8.RuneCountInString(clTRID); n < 3 || n > 64 || strings.ContainsAny(clTRID, "\t\r\n") {
			return fail(CodeSyntax, messages[CodeSyntax]+": <clTRID> has 3 to 64 characters").bytes("", svTRID), false
		}
	}
	if c.children != 1 {
		return fail(CodeSyntax, messages[CodeSyntax]+": a <command> holds exactly one command element").bytes(clTRID, svTRID), false
	}
	ss.trid = registry.Channel{Name: "epp", ClTRID: clTRID, SvTRID: svTRID}
	r := ss.throttle(c) // the registrar's command rate (server.go)
	if r == nil {
		r = ss.dispatchFees(c) // dispatch, with RFC 8748's fees (fee.go)
	}
	ss.s.commands.WithLabelValues(c.name(), c.object(), strconv.Itoa(r.code)).Inc() // metrics.go
	if r.code >= 2000 {
		ss.log.Info("epp: command refused", "code", r.code, "message", r.message()) // ss.log names the registrar once logged in; "msg" is the record's own key
	}
	return r.bytes(clTRID, svTRID), closes(r.code)
}

func (ss *session) name() string {
	if ss.registrar == nil {
		return ""
	}
	return ss.registrar.Name
}

// name is the command's name for metrics: login, check, …, or the
// element's local name for the others.
func (c *command) name() string {
	switch {
	case c.Login != nil:
		return "login"
	case c.Logout != nil:
		return "logout"
	case c.Check != nil:
		return "check"
	case c.Info != nil:
		return "info"
	case c.Create != nil:
		return "create"
	case c.Delete != nil:
		return "delete"
	case c.Renew != nil:
		return "renew"
	case c.Transfer != nil:
		return "transfer"
	case c.Poll != nil:
		return "poll"
	case c.Update != nil:
		return "update"
	}
	if len(c.Other) > 0 {
		switch n := c.Other[0].XMLName.Local; n {
		case "transfer", "poll":
			return n
		}
	}
	return "other"
}

// dispatch runs a command.
func (ss *session) dispatch(c *command) *response {
	switch {
	case c.Login != nil:
		return ss.login(c.Login, c.Ext)
	case c.Logout != nil:
		return &response{code: CodeLogout}
	}
	if ss.registrar == nil {
		return fail(CodeUse, messages[CodeUse]+": log in first")
	}
	if r := ss.active(); r != nil { // revoked meanwhile (revoked.go)
		return r
	}
	if r := ss.checkExtensions(c); r != nil {
		return r
	}
	var obj *object
	var verb string
	switch {
	case c.Check != nil:
		obj, verb = c.Check, "check"
	case c.Info != nil:
		obj, verb = c.Info, "info"
	case c.Create != nil:
		obj, verb = c.Create, "create"
	case c.Delete != nil:
		obj, verb = c.Delete, "delete"
	case c.Renew != nil:
		obj, verb = c.Renew, "renew"
	case c.Transfer != nil:
		return ss.transfer(c.Transfer)
	case c.Poll != nil:
		return ss.poll(c.Poll)
	case c.Update != nil:
		return ss.update(c.Update, c.Ext) // domain (transfer.go) or host (host.go)
	case len(c.Other) == 0:
		return fail(CodeSyntax, messages[CodeSyntax]+": no command element")
	default:
		name := c.Other[0].XMLName
		if name.Space != NSEPP {
			return fail(CodeSyntax, fmt.Sprintf("%s: <%s> in namespace %q is not an EPP command", messages[CodeSyntax], name.Local, name.Space))
		}
		return fail(CodeUnknownCommand, fmt.Sprintf("%s: <%s>", messages[CodeUnknownCommand], name.Local))
	}
	if r := ss.dispatchMaint(obj, verb); r != nil { // maintenance (maintenance.go)
		return r
	}
	if r := ss.dispatchContact(obj, verb, c.Ext); r != nil { // contacts (contact.go)
		return r
	}
	if r := ss.dispatchDelegation(obj, verb, c.Ext); r != nil { // hosts, domain update (host.go)
		return r
	}
	op, got := obj.op()
	if op == nil {
		switch got.Space {
		case NSCont: // a contact verb the registry does not serve (renew)
			return fail(CodeUnimplemented, fmt.Sprintf("%s: <contact:%s> (contacts are checked, created, read, updated and deleted; they are not renewed or transferred)", messages[CodeUnimplemented], verb))
		case "":
			return fail(CodeMissing, fmt.Sprintf("%s: <%s> holds a <domain:%s>", messages[CodeMissing], verb, verb))
		}
		return fail(CodeUnimplObject, fmt.Sprintf("%s: object namespace %q", messages[CodeUnimplObject], got.Space))
	}
	names, r := objectNames(op.Names, "domain:name", "names", verb, 1, 255)
	if r != nil {
		return r
	}
	switch verb {
	case "check":
		return ss.check(names)
	case "info":
		return ss.info(names[0])
	case "create":
		var idn *idnData
		if c.Ext != nil {
			idn = c.Ext.IDN
		}
		ns, ds, r := createDelegation(op, c.Ext) // host.go
		if r != nil {
			return r
		}
		pw, r := createAuthInfo(op.AuthInfo)
		if r != nil {
			return r
		}
		cs, r := domainContacts(op.Registrant, op.Contacts) // contact.go
		if r != nil {
			return r
		}
		return ss.create(registry.DomainCreate{Name: names[0], AuthInfo: pw, Contacts: cs, NameServers: ns, DS: ds}, idn, op.Period)
	case "renew":
		return ss.renew(names[0], op)
	default:
		return ss.delete(names[0])
	}
}

// objectNames reads the names (or ids) of an object command: trimmed, of
// min to max characters, several for a check (at most maxCheck), one for
// the other verbs. elem is the element (domain:name), plural what the
// check counts (names, ids).
func objectNames(in []domainName, elem, plural, verb string, min, max int) ([]string, *response) {
	names := make([]string, len(in))
	for i, n := range in {
		names[i] = strings.TrimSpace(n.V)
		if names[i] == "" {
			return nil, fail(CodeMissing, messages[CodeMissing]+": an empty <"+elem+">")
		}
		if k := utf8.RuneCountInString(names[i]); k < min || k > max {
			if min > 1 {
				return nil, fail(CodeValueSyntax, fmt.Sprintf("%s: a <%s> has %d to %d characters", messages[CodeValueSyntax], elem, min, max))
			}
			return nil, fail(CodeValueSyntax, fmt.Sprintf("%s: a <%s> has at most %d characters", messages[CodeValueSyntax], elem, max))
		}
	}
	switch {
	case len(names) == 0:
		return nil, fail(CodeMissing, messages[CodeMissing]+": <"+elem+">")
	case verb == "check" && len(names) > maxCheck:
		return nil, fail(CodeRange, fmt.Sprintf("%s: at most %d %s per check", messages[CodeRange], maxCheck, plural))
	case verb != "check" && len(names) > 1:
		return nil, fail(CodeSyntax, messages[CodeSyntax]+": one <"+elem+"> per "+verb)
	}
	return names, nil
}

// checkExtensions refuses extensions the server does not implement, and
// the IDN extension outside a create. (A login listing an extURI the
// server does not serve ignores it, loginext.go; one listing none may
// still use the served extensions.)
func (ss *session) checkExtensions(c *command) *response {
	if c.Ext == nil {
		return nil
	}
	if len(c.Ext.Other) > 0 {
		n := c.Ext.Other[0].XMLName
		return fail(CodeUnimplExtension, fmt.Sprintf("%s: %q (this server implements %s, %s, %s and %s)", messages[CodeUnimplExtension], n.Space, NSIDN, NSRGP, NSSecDNS, NSFee))
	}
	if c.Ext.IDN != nil {
		if c.Create == nil {
			return fail(CodeSyntax, messages[CodeSyntax]+": <idn:data> goes with a domain <create>")
		}
	}
	if c.Ext.LoginSec != nil { // loginsec.go
		return fail(CodeSyntax, messages[CodeSyntax]+": <loginSec:loginSec> goes with a <login>")
	}
	if c.Ext.RGP != nil && c.Update == nil {
		return fail(CodeSyntax, messages[CodeSyntax]+": <rgp:update> goes with a domain <update>")
	}
	return checkFee(c) // fee.go
}

// fromError maps a registry error to a response through the one code
// table.
func fromError(err error) *response {
	code := registry.CodeOf(err)
	info := registry.InfoOf(code)
	var re *registry.Error
	msg := messages[info.EPP]
	if errors.As(err, &re) && code != registry.CodeInternal && re.Message != "" {
		msg += ": " + re.Message
	}
	return &response{code: info.EPP, msg: msg}
}

// checkReason is the short reason of an unavailable name (≤ 32
// characters, eppcom:reasonType).
func checkReason(res *registry.CheckResult) string {
	if res.HolderState != "" {
		// held by a deleted domain until its purge (docs/lifecycle.md)
		return "pending delete until " + res.FreesAt.UTC().Format(time.DateOnly)
	}
	switch res.Status {
	case registry.Invalid:
		if len(res.Errors) > 0 {
			return clip("invalid: "+res.Errors[0].Code.String(), 32)
		}
		return "invalid"
	case registry.Blocked:
		if res.SameEntity != "" { // docs/variants.md, "Same entity"
			return "blocked: same entity only"
		}
		return "blocked variant"
	case registry.Available:
		if res.SameEntity != "" {
			return "for the holder registrant only"
		}
		return ""
	}
	return clip(string(res.Status), 32)
}

func (ss *session) check(names []string) *response {
	ctx, cancel := ss.contextFor()
	defer cancel()
	items := make([]checked, 0, len(names))
	for _, name := range names {
		avail, reason := false, ""
		res, err := ss.s.svc.CheckFor(ctx, ss.registrar, name, "") // available to a holder's registrar under same-entity
		switch {
		case err != nil && registry.CodeOf(err) == registry.CodeInternal:
			ss.log.Error("epp: check", "name", name, "error", err)
			return fail(CodeFailed, "")
		case registry.CodeOf(err) == registry.CodeUnavailable: // the database is down or full: 2400 saying so
			ss.log.Error("epp: check", "name", name, "error", err)
			return fromError(err)
		case err != nil:
			reason = registry.InfoOf(registry.CodeOf(err)).Reason
		case res.Status == registry.Available:
			avail, reason = true, checkReason(res)
		default:
			reason = checkReason(res)
		}
		items = append(items, checked{name, avail, reason})
	}
	return &response{code: CodeOK, resData: chkData("domain", NSDomain, "name", items)}
}

// checked is one answer of a check: the name (or id), whether it is
// available, and if not the short reason.
type checked struct {
	name   string
	avail  bool
	reason string
}

// chkData renders a check's <P:chkData> in namespace ns: a <P:cd> per
// item, its name in <P:ELEM avail="0|1"> and its <P:reason>.
func chkData(p, ns, elem string, items []checked) string {
	var b bytes.Buffer
	b.WriteString(`<` + p + `:chkData xmlns:` + p + `="` + ns + `">`)
	for _, it := range items {
		b.WriteString(`<` + p + `:cd><` + p + `:` + elem + ` avail="` + strconv.Itoa(boolInt(it.avail)) + `">`)
		esc(&b, it.name)
		b.WriteString(`</` + p + `:` + elem + `>`)
		if it.reason != "" {
			b.WriteString(`<` + p + `:reason>`)
			esc(&b, it.reason)
			b.WriteString(`</` + p + `:reason>`)
		}
		b.WriteString(`</` + p + `:cd>`)
	}
	b.WriteString(`</` + p + `:chkData>`)
	return b.String()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

const timeFormat = "2006-01-02T15:04:05.0Z"

// toUnicode decodes a name label by label (A-labels to U-labels, NFC,
// ASCII lower-cased), for comparing a <domain:name> with an <idn:uname>.
func toUnicode(name string) string {
	labels := strings.Split(strings.TrimSuffix(name, "."), ".")
	for i, l := range labels {
		if len(l) >= 4 && strings.EqualFold(l[:4], "xn--") {
			if u, err := idna.Punycode.ToUnicode(strings.ToLower(l)); err == nil {
				l = u
			}
		}
		labels[i] = strings.ToLower(norm.NFC.String(l))
	}
	return strings.Join(labels, ".")
}

// readPeriod reads a <domain:period> of a create or renew (nil: the
// zone's default).
func readPeriod(p *period) (registry.Period, *response) {
	if p == nil {
		return registry.Period{}, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(p.V))
	unit := strings.TrimSpace(p.Unit)
	if err != nil || (unit != "y" && unit != "m") {
		return registry.Period{}, fail(CodeValueSyntax, messages[CodeValueSyntax]+`: <domain:period unit="y|m"> holds a number of years or months`)
	}
	if n < 1 || n > 99 {
		return registry.Period{}, fail(CodeRange, messages[CodeRange]+": a period is 1 to 99 units (RFC 5731), and this registry's zones take 1 to 10 years")
	}
	return registry.Period{N: n, Unit: unit[0]}, nil
}

func (ss *session) create(req registry.DomainCreate, idn *idnData, p *period) *response {
	name := req.Name
	per, bad := readPeriod(p)
	if bad != nil {
		return bad
	}
	req.Period = per
	lang := ""
	if idn != nil {
		lang = strings.TrimSpace(idn.Table)
		if lang == "" {
			return fail(CodeMissing, messages[CodeMissing]+": <idn:table> names the language table (a language tag such as hi)")
		}
		if idn.UName != nil {
			u := toUnicode(strings.TrimSpace(*idn.UName))
			n := toUnicode(name)
			if u != n && u != strings.SplitN(n, ".", 2)[0] {
				return &response{code: CodePolicy, msg: messages[CodePolicy] + ": <idn:uname> is not the U-label form of <domain:name>",
					ext: []extValue{{value: elem("idn", NSIDN, "uname", *idn.UName), reason: fmt.Sprintf("%s decodes to %s, not %s", name, n, u)}}}
			}
		}
	}
	ctx, cancel := ss.contextFor()
	defer cancel()
	req.Lang = lang
	d, err := ss.s.svc.CreateDomain(ctx, ss.registrar, req)
	if err != nil {
		r := fromError(err)
		var re *registry.Error
		if errors.As(err, &re) {
			value := elem("domain", NSDomain, "name", name)
			switch re.Code {
			case registry.CodeConflict:
				if re.BlockedBy != "" {
					a, aerr := idna.Punycode.ToASCII(re.BlockedBy)
					if aerr != nil {
						a = re.BlockedBy
					}
					r.ext = append(r.ext, extValue{value: value, reason: fmt.Sprintf("blocked by the registered domain %s (%s)", re.BlockedBy, a)})
				}
			case registry.CodeInvalid:
				for _, e := range re.Errors {
					r.ext = append(r.ext, extValue{value: value, reason: fmt.Sprintf("%s at position %d: %s", e.Code, e.Pos, e.Message)})
				}
			}
		}
		if r.code == CodeFailed {
			ss.log.Error("epp: create", "name", name, "error", err)
		}
		return r
	}
	var b bytes.Buffer
	b.WriteString(`<domain:creData xmlns:domain="` + NSDomain + `"><domain:name>`)
	esc(&b, d.ALabel)
	b.WriteString(`</domain:name><domain:crDate>` + d.Created.UTC().Format(timeFormat) + `</domain:crDate>`)
	if !d.Expires.IsZero() {
		b.WriteString(`<domain:exDate>` + d.Expires.UTC().Format(timeFormat) + `</domain:exDate>`)
	}
	b.WriteString(`</domain:creData>`)
	ss.log.Info("epp: created", "name", d.Name, "lang", d.Lang)
	return &response{code: CodeOK, resData: b.String()}
}

// clID renders a registrar's name as an eppcom:clIDType (a token of 3 to
// 16 characters). Registrars that log in over EPP have such names; one
// made for the HTTP API only may not, and is shown clipped or padded.
func clID(r string) string {
	r = strings.Join(strings.Fields(r), " ")
	r = strings.TrimSpace(clip(r, 16))
	for utf8.RuneCountInString(r) < 3 {
		r += "_"
	}
	return r
}

func (ss *session) info(name string) *response {
	ctx, cancel := ss.contextFor()
	defer cancel()
	d, err := ss.s.svc.Info(ctx, name)
	if err != nil {
		r := fromError(err)
		if r.code == CodeFailed {
			ss.log.Error("epp: info", "name", name, "error", err)
		}
		return r
	}
	st0, err := ss.s.svc.DomainTransferState(ctx, ss.registrar, d)
	if err != nil {
		ss.log.Error("epp: info", "name", name, "error", err)
		return fromError(err)
	}
	var b bytes.Buffer
	b.WriteString(`<domain:infData xmlns:domain="` + NSDomain + `"><domain:name>`)
	esc(&b, d.ALabel)
	b.WriteString(`</domain:name><domain:roid>D` + strconv.FormatInt(d.ID, 10) + `-AKSHARA</domain:roid>`)
	// the statuses: RFC 5731's in <domain:status> (pendingTransfer from
	// the transfer state), RFC 3915's grace and redemption states in
	// <rgp:infData>
	var domainSt, rgpSt []string
	for _, st := range ss.s.svc.Statuses(d) {
		switch {
		case rgpStatus[st]:
			rgpSt = append(rgpSt, st)
		case st == registry.StatusOK && st0.Pending != nil:
		default:
			domainSt = append(domainSt, st)
		}
	}
	if st0.Pending != nil {
		domainSt = append(domainSt, registry.StatusPendingTransfer)
	}
	if len(domainSt) == 0 {
		domainSt = []string{registry.StatusOK}
	}
	for _, st := range domainSt {
		if d.Exempted && st == registry.StatusOK {
			// kept with the domains it conflicts with (docs/import.md): said in
			// the status's text, which RFC 5731 leaves free
			b.WriteString(`<domain:status s="ok" lang="en">`)
			esc(&b, "exempted with "+strings.Join(d.ExemptWith, ", "))
			b.WriteString(`</domain:status>`)
			continue
		}
		b.WriteString(`<domain:status s="` + st + `"/>`)
	}
	b.WriteString(domainContactsXML(d) + domainNSXML(d) + `<domain:clID>`) // contact.go, host.go
	esc(&b, clID(d.Registrar))
	b.WriteString(`</domain:clID><domain:crDate>` + d.Created.UTC().Format(timeFormat) + `</domain:crDate>`)
	if !d.Updated.IsZero() && !d.Updated.Equal(d.Created) {
		b.WriteString(`<domain:upDate>` + d.Updated.UTC().Format(timeFormat) + `</domain:upDate>`)
	}
	if !d.Expires.IsZero() {
		b.WriteString(`<domain:exDate>` + d.Expires.UTC().Format(timeFormat) + `</domain:exDate>`)
	}
	if !st0.Transferred.IsZero() {
		b.WriteString(`<domain:trDate>` + st0.Transferred.UTC().Format(timeFormat) + `</domain:trDate>`)
	}
	if st0.AuthInfoSet {
		// to the sponsor only, and never the value, which is kept hashed
		// (RFC 9154 §4.1): an empty <domain:pw/> says one is set
		b.WriteString(`<domain:authInfo><domain:pw/></domain:authInfo>`)
	}
	b.WriteString(`</domain:infData>`)
	r := &response{code: CodeOK, resData: b.String()}
	var e bytes.Buffer
	if d.Lang != registry.LDH {
		e.WriteString(`<idn:data xmlns:idn="` + NSIDN + `"><idn:table>`)
		esc(&e, d.Lang)
		e.WriteString(`</idn:table><idn:uname>`)
		esc(&e, d.Name)
		e.WriteString(`</idn:uname></idn:data>`)
	}
	e.WriteString(secDNSInfData(d)) // secdns.go
	if len(rgpSt) > 0 {
		e.WriteString(`<rgp:infData xmlns:rgp="` + NSRGP + `">`)
		for _, st := range rgpSt {
			e.WriteString(`<rgp:rgpStatus s="` + st + `"/>`)
		}
		e.WriteString(`</rgp:infData>`)
	}
	r.exts = e.String()
	return r
}

// rgpStatus are the statuses RFC 3915 reports in <rgp:rgpStatus> (not
// values of domain-1.0's <domain:status>).
var rgpStatus = map[string]bool{
	registry.StatusAddPeriod: true, registry.StatusAutoRenewPeriod: true, registry.StatusRenewPeriod: true,
	"transferPeriod": true, registry.StatusRedemptionPeriod: true, registry.StatusPendingRestore: true,
}

// lifecycleError answers a refused lifecycle command.
func (ss *session) lifecycleError(what, name string, err error) *response {
	r := fromError(err)
	if r.code == CodeFailed {
		ss.log.Error("epp: "+what, "name", name, "error", err)
	}
	return r
}

// delete answers 1000 for a domain purged at once (inside its add grace
// period) and 1001 for one that entered pendingDelete (RFC 5731 §3.2.2,
// RFC 3915): it is purged later.
func (ss *session) delete(name string) *response {
	ctx, cancel := ss.contextFor()
	defer cancel()
	d, err := ss.s.svc.DeleteDomain(ctx, ss.registrar, registry.DomainDelete{Name: name})
	if err != nil {
		return ss.lifecycleError("delete", name, err)
	}
	ss.log.Info("epp: deleted", "name", name, "purged", d == nil)
	if d != nil {
		return &response{code: CodePending, msg: messages[CodePending] + ": the domain is in its redemption period until " +
			d.RedemptionEnds.UTC().Format(timeFormat) + " and is purged at " + d.PurgeAt.UTC().Format(timeFormat)}
	}
	return &response{code: CodeOK}
}

// renew is RFC 5731 §3.2.3's <renew>.
func (ss *session) renew(name string, op *domainOp) *response {
	if op.CurExpDate == nil {
		return fail(CodeMissing, messages[CodeMissing]+": <domain:curExpDate>")
	}
	cur, err := time.Parse(time.DateOnly, strings.TrimSpace(*op.CurExpDate))
	if err != nil {
		return fail(CodeValueSyntax, messages[CodeValueSyntax]+": <domain:curExpDate> is a date (YYYY-MM-DD)")
	}
	per, bad := readPeriod(op.Period)
	if bad != nil {
		return bad
	}
	ctx, cancel := ss.contextFor()
	defer cancel()
	d, err := ss.s.svc.RenewDomain(ctx, ss.registrar, registry.DomainRenew{Name: name, CurExpiry: cur, Period: per})
	if err != nil {
		return ss.lifecycleError("renew", name, err)
	}
	var b bytes.Buffer
	b.WriteString(`<domain:renData xmlns:domain="` + NSDomain + `"><domain:name>`)
	esc(&b, d.ALabel)
	b.WriteString(`</domain:name><domain:exDate>` + d.Expires.UTC().Format(timeFormat) + `</domain:exDate></domain:renData>`)
	return &response{code: CodeOK, resData: b.String()}
}
