package epp

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"time"
	"unicode/utf8"
)

// Result codes of RFC 5730 §3 the server answers.
const (
	CodeOK              = 1000
	CodeLogout          = 1500
	CodeUnknownCommand  = 2000
	CodeSyntax          = 2001
	CodeUse             = 2002
	CodeMissing         = 2003
	CodeRange           = 2004
	CodeValueSyntax     = 2005
	CodeVersion         = 2100
	CodeUnimplemented   = 2101
	CodeUnimplOption    = 2102
	CodeUnimplExtension = 2103
	CodeAuth            = 2200
	CodeAuthz           = 2201
	CodeNoMessages      = 1300
	CodeAckToDequeue    = 1301
	CodePending         = 1001
	CodeExists          = 2302
	CodeNotExists       = 2303
	CodeUnimplObject    = 2307
	CodePolicy          = 2306
	CodeFailed          = 2400
	CodeFailedClosing   = 2500
	CodeAuthClosing     = 2501
	CodeSessionLimit    = 2502
)

// messages are the RFC's texts of the result codes.
var messages = map[int]string{
	1000: "Command completed successfully",
	1001: "Command completed successfully; action pending",
	1300: "Command completed successfully; no messages",
	1301: "Command completed successfully; ack to dequeue",
	1500: "Command completed successfully; ending session",
	2000: "Unknown command",
	2001: "Command syntax error",
	2002: "Command use error",
	2003: "Required parameter missing",
	2004: "Parameter value range error",
	2005: "Parameter value syntax error",
	2100: "Unimplemented protocol version",
	2101: "Unimplemented command",
	2102: "Unimplemented option",
	2103: "Unimplemented extension",
	2104: "Billing failure",
	2105: "Object is not eligible for renewal",
	2106: "Object is not eligible for transfer",
	2200: "Authentication error",
	2201: "Authorization error",
	2202: "Invalid authorization information",
	2300: "Object pending transfer",
	2301: "Object not pending transfer",
	2302: "Object exists",
	2303: "Object does not exist",
	2304: "Object status prohibits operation",
	2305: "Object association prohibits operation",
	2306: "Parameter value policy error",
	2307: "Unimplemented object service",
	2308: "Data management policy violation",
	2400: "Command failed",
	2500: "Command failed; server closing connection",
	2501: "Authentication error; server closing connection",
	2502: "Session limit exceeded; server closing connection",
}

// closes reports whether a result code ends the session (RFC 5730 §3:
// 1500 and 25xx).
func closes(code int) bool { return code == CodeLogout || code >= 2500 }

// extValue is a <result><extValue>: the offending element and why.
type extValue struct {
	value  string // raw XML of one element
	reason string
}

// response is a <response> being built.
type response struct {
	code    int
	msg     string // "" = the RFC's text
	ext     []extValue
	msgQ    string // raw XML of <msgQ>
	resData string // raw XML inside <resData>
	exts    string // raw XML inside <extension>
}

func (r *response) Error() string { return strconv.Itoa(r.code) + " " + r.message() }

func (r *response) message() string {
	if r.msg != "" {
		return r.msg
	}
	return messages[r.code]
}

func fail(code int, msg string) *response { return &response{code: code, msg: msg} }

// esc writes s as XML text; characters XML cannot carry become U+FFFD.
func esc(b *bytes.Buffer, s string) {
	xml.EscapeText(b, []byte(s))
}

// token clips s to at most n characters (for schema types with a
// maxLength), on a character boundary.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n])
}

const header = `<?xml version="1.0" encoding="UTF-8" standalone="no"?>` + "\n"

// bytes renders the response with the transaction identifiers.
func (r *response) bytes(clTRID, svTRID string) []byte {
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString(`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><response><result code="`)
	b.WriteString(strconv.Itoa(r.code))
	b.WriteString(`"><msg>`)
	esc(&b, r.message())
	b.WriteString(`</msg>`)
	for _, e := range r.ext {
		b.WriteString(`<extValue><value>`)
		b.WriteString(e.value)
		b.WriteString(`</value><reason>`)
		esc(&b, e.reason)
		b.WriteString(`</reason></extValue>`)
	}
	b.WriteString(`</result>`)
	b.WriteString(r.msgQ)
	if r.resData != "" {
		b.WriteString(`<resData>`)
		b.WriteString(r.resData)
		b.WriteString(`</resData>`)
	}
	if r.exts != "" {
		b.WriteString(`<extension>`)
		b.WriteString(r.exts)
		b.WriteString(`</extension>`)
	}
	b.WriteString(`<trID>`)
	if clTRID != "" {
		b.WriteString(`<clTRID>`)
		esc(&b, clTRID)
		b.WriteString(`</clTRID>`)
	}
	b.WriteString(`<svTRID>`)
	esc(&b, svTRID)
	b.WriteString(`</svTRID></trID></response></epp>`)
	return b.Bytes()
}

// greeting renders the server's greeting (RFC 5730 §2.4).
func greeting(svID string, now time.Time) []byte {
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString(`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><greeting><svID>`)
	esc(&b, svID)
	b.WriteString(`</svID><svDate>`)
	b.WriteString(now.UTC().Format("2006-01-02T15:04:05.0Z"))
	b.WriteString(`</svDate><svcMenu><version>1.0</version><lang>en</lang>`)
	b.WriteString(`<objURI>` + NSDomain + `</objURI><objURI>` + NSHost + `</objURI><objURI>` + NSCont + `</objURI>`)
	b.WriteString(`<svcExtension><extURI>` + NSIDN + `</extURI><extURI>` + NSRGP + `</extURI><extURI>` + NSSecDNS + `</extURI><extURI>` + NSLoginSec + `</extURI><extURI>` + NSFee + `</extURI><extURI>` + NSChangePoll + `</extURI><extURI>` + NSMaint + `</extURI></svcExtension></svcMenu>`)
	// Data collection policy: the registry keeps the registrar's
	// provisioning data (names, their language, the registrar), public
	// through RDAP, for as long as the domain is registered.
	b.WriteString(`<dcp><access><all/></access><statement><purpose><admin/><prov/></purpose>` +
		`<recipient><ours/><public/></recipient><retention><stated/></retention></statement></dcp>`)
	b.WriteString(`</greeting></epp>`)
	return b.Bytes()
}

// elem renders <prefix:name xmlns:prefix="ns">text</prefix:name>.
func elem(prefix, ns, name, text string) string {
	var b bytes.Buffer
	b.WriteString("<" + prefix + ":" + name + ` xmlns:` + prefix + `="` + ns + `">`)
	esc(&b, text)
	b.WriteString("</" + prefix + ":" + name + ">")
	return b.String()
}
