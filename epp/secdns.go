package epp

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/akshara-idn/akshara/registry"
)

// DNSSEC: RFC 5910 secDNS-1.1, the DS data interface (docs/delegation.md).
// The key data interface and maxSigLife are refused; the registry checks
// the records (registry/dnssec.go).

// NSSecDNS is the namespace of RFC 5910.
const NSSecDNS = "urn:ietf:params:xml:ns:secDNS-1.1"

type dsData struct {
	KeyTag     string    `xml:"urn:ietf:params:xml:ns:secDNS-1.1 keyTag"`
	Alg        string    `xml:"urn:ietf:params:xml:ns:secDNS-1.1 alg"`
	DigestType string    `xml:"urn:ietf:params:xml:ns:secDNS-1.1 digestType"`
	Digest     string    `xml:"urn:ietf:params:xml:ns:secDNS-1.1 digest"`
	KeyData    []anyElem `xml:"urn:ietf:params:xml:ns:secDNS-1.1 keyData"`
}

// secDNSCreate is a <secDNS:create>.
type secDNSCreate struct {
	MaxSigLife *string   `xml:"urn:ietf:params:xml:ns:secDNS-1.1 maxSigLife"`
	DS         []dsData  `xml:"urn:ietf:params:xml:ns:secDNS-1.1 dsData"`
	KeyData    []anyElem `xml:"urn:ietf:params:xml:ns:secDNS-1.1 keyData"`
}

type secDNSRem struct {
	All     *string   `xml:"urn:ietf:params:xml:ns:secDNS-1.1 all"`
	DS      []dsData  `xml:"urn:ietf:params:xml:ns:secDNS-1.1 dsData"`
	KeyData []anyElem `xml:"urn:ietf:params:xml:ns:secDNS-1.1 keyData"`
}

type secDNSAdd struct {
	DS      []dsData  `xml:"urn:ietf:params:xml:ns:secDNS-1.1 dsData"`
	KeyData []anyElem `xml:"urn:ietf:params:xml:ns:secDNS-1.1 keyData"`
}

// secDNSUpdate is a <secDNS:update>.
type secDNSUpdate struct {
	Urgent string     `xml:"urgent,attr"`
	Rem    *secDNSRem `xml:"urn:ietf:params:xml:ns:secDNS-1.1 rem"`
	Add    *secDNSAdd `xml:"urn:ietf:params:xml:ns:secDNS-1.1 add"`
	Chg    *anyElem   `xml:"urn:ietf:params:xml:ns:secDNS-1.1 chg"`
}

var errKeyData = fail(CodePolicy, messages[CodePolicy]+": this registry takes DS records (<secDNS:dsData>), not the key data interface (<secDNS:keyData>)")

// records reads DS data.
func dsRecords(in []dsData) ([]registry.DS, *response) {
	out := make([]registry.DS, 0, len(in))
	for _, d := range in {
		if len(d.KeyData) > 0 {
			return nil, errKeyData
		}
		var r registry.DS
		for _, f := range []struct {
			v    string
			to   *int
			what string
		}{{d.KeyTag, &r.KeyTag, "keyTag"}, {d.Alg, &r.Algorithm, "alg"}, {d.DigestType, &r.DigestType, "digestType"}} {
			n, err := strconv.Atoi(strings.TrimSpace(f.v))
			if err != nil {
				return nil, fail(CodeValueSyntax, messages[CodeValueSyntax]+": <secDNS:"+f.what+"> is a number")
			}
			*f.to = n
		}
		r.Digest = strings.TrimSpace(d.Digest)
		out = append(out, r)
	}
	return out, nil
}

func (c *secDNSCreate) records() ([]registry.DS, *response) {
	switch {
	case len(c.KeyData) > 0:
		return nil, errKeyData
	case c.MaxSigLife != nil:
		return nil, fail(CodeUnimplOption, messages[CodeUnimplOption]+": <secDNS:maxSigLife> (the signature lifetime is the zone's)")
	}
	return dsRecords(c.DS)
}

// apply adds the DS changes of an update to d.
func (u *secDNSUpdate) apply(d *registry.Delegation) *response {
	if v := strings.TrimSpace(u.Urgent); v == "true" || v == "1" {
		return fail(CodeUnimplOption, messages[CodeUnimplOption]+": urgent DS updates (urgent=\"true\")")
	}
	if u.Chg != nil {
		return fail(CodeUnimplOption, messages[CodeUnimplOption]+": <secDNS:chg> (maxSigLife: the signature lifetime is the zone's)")
	}
	var r *response
	if u.Rem != nil {
		if len(u.Rem.KeyData) > 0 {
			return errKeyData
		}
		if u.Rem.All != nil {
			if v := strings.TrimSpace(*u.Rem.All); v == "true" || v == "1" {
				d.RemAllDS = true
			} else {
				return fail(CodeValueSyntax, messages[CodeValueSyntax]+": <secDNS:all> is true (remove every DS record)")
			}
		}
		if d.RemDS, r = dsRecords(u.Rem.DS); r != nil {
			return r
		}
	}
	if u.Add != nil {
		if len(u.Add.KeyData) > 0 {
			return errKeyData
		}
		if d.AddDS, r = dsRecords(u.Add.DS); r != nil {
			return r
		}
	}
	return nil
}

// secDNSInfData renders a domain's DS records (empty without).
func secDNSInfData(d *registry.Domain) string {
	if len(d.DS) == 0 {
		return ""
	}
	var b bytes.Buffer
	b.WriteString(`<secDNS:infData xmlns:secDNS="` + NSSecDNS + `">`)
	for _, r := range d.DS {
		b.WriteString(`<secDNS:dsData><secDNS:keyTag>` + strconv.Itoa(r.KeyTag) + `</secDNS:keyTag><secDNS:alg>` + strconv.Itoa(r.Algorithm) +
			`</secDNS:alg><secDNS:digestType>` + strconv.Itoa(r.DigestType) + `</secDNS:digestType><secDNS:digest>`)
		esc(&b, r.Digest)
		b.WriteString(`</secDNS:digest></secDNS:dsData>`)
	}
	b.WriteString(`</secDNS:infData>`)
	return b.String()
}
