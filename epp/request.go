package epp

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"unicode/utf8"
)

// Namespaces.
const (
	NSEPP    = "urn:ietf:params:xml:ns:epp-1.0"
	NSDomain = "urn:ietf:params:xml:ns:domain-1.0"
	NSIDN    = "urn:ietf:params:xml:ns:idn-1.0"
	NSHost   = "urn:ietf:params:xml:ns:host-1.0"
	NSCont   = "urn:ietf:params:xml:ns:contact-1.0"
	NSRGP    = "urn:ietf:params:xml:ns:rgp-1.0"
)

// request is a client frame (RFC 5730 §2.3, §2.9): <hello/> or a
// <command>. Fields the registry does not use are not read.
type request struct {
	XMLName   xml.Name  `xml:"urn:ietf:params:xml:ns:epp-1.0 epp"`
	Hello     *struct{} `xml:"urn:ietf:params:xml:ns:epp-1.0 hello"`
	Command   *command  `xml:"urn:ietf:params:xml:ns:epp-1.0 command"`
	Extension *anyElem  `xml:"urn:ietf:params:xml:ns:epp-1.0 extension"`
	Other     []anyElem `xml:",any"`
}

type command struct {
	Login    *login    `xml:"urn:ietf:params:xml:ns:epp-1.0 login"`
	Logout   *struct{} `xml:"urn:ietf:params:xml:ns:epp-1.0 logout"`
	Check    *object   `xml:"urn:ietf:params:xml:ns:epp-1.0 check"`
	Info     *object   `xml:"urn:ietf:params:xml:ns:epp-1.0 info"`
	Create   *object   `xml:"urn:ietf:params:xml:ns:epp-1.0 create"`
	Delete   *object   `xml:"urn:ietf:params:xml:ns:epp-1.0 delete"`
	Renew    *object   `xml:"urn:ietf:params:xml:ns:epp-1.0 renew"`
	Transfer *transfer `xml:"urn:ietf:params:xml:ns:epp-1.0 transfer"`
	Poll     *poll     `xml:"urn:ietf:params:xml:ns:epp-1.0 poll"`
	Update   *update   `xml:"urn:ietf:params:xml:ns:epp-1.0 update"`
	Other    []anyElem `xml:",any"`
	Ext      *cmdExt   `xml:"urn:ietf:params:xml:ns:epp-1.0 extension"`
	ClTRID   *string   `xml:"urn:ietf:params:xml:ns:epp-1.0 clTRID"`
	children int       // how many command elements there are
}

type login struct {
	ClID    string  `xml:"urn:ietf:params:xml:ns:epp-1.0 clID"`
	PW      string  `xml:"urn:ietf:params:xml:ns:epp-1.0 pw"`
	NewPW   *string `xml:"urn:ietf:params:xml:ns:epp-1.0 newPW"`
	Options struct {
		Version string `xml:"urn:ietf:params:xml:ns:epp-1.0 version"`
		Lang    string `xml:"urn:ietf:params:xml:ns:epp-1.0 lang"`
	} `xml:"urn:ietf:params:xml:ns:epp-1.0 options"`
	Svcs struct {
		ObjURI []string `xml:"urn:ietf:params:xml:ns:epp-1.0 objURI"`
		ExtURI []string `xml:"urn:ietf:params:xml:ns:epp-1.0 svcExtension>extURI"`
	} `xml:"urn:ietf:params:xml:ns:epp-1.0 svcs"`
}

// object is the content of <check>, <info>, <create>, <delete>: one
// element of an object namespace.
type object struct {
	Domain *domainOp `xml:"urn:ietf:params:xml:ns:domain-1.0 check"`
	DInfo  *domainOp `xml:"urn:ietf:params:xml:ns:domain-1.0 info"`
	DCre   *domainOp `xml:"urn:ietf:params:xml:ns:domain-1.0 create"`
	DDel   *domainOp `xml:"urn:ietf:params:xml:ns:domain-1.0 delete"`
	DRen   *domainOp `xml:"urn:ietf:params:xml:ns:domain-1.0 renew"`
	Other  []anyElem `xml:",any"`

	// delegation (host.go): host objects and the domain update
	HCheck *hostOp `xml:"urn:ietf:params:xml:ns:host-1.0 check"`
	HInfo  *hostOp `xml:"urn:ietf:params:xml:ns:host-1.0 info"`
	HCre   *hostOp `xml:"urn:ietf:params:xml:ns:host-1.0 create"`
	HDel   *hostOp `xml:"urn:ietf:params:xml:ns:host-1.0 delete"`
	HUpd   *hostOp `xml:"-"` // from update.Host

	// contacts (contact.go)
	CCheck *contactOp `xml:"urn:ietf:params:xml:ns:contact-1.0 check"`
	CInfo  *contactOp `xml:"urn:ietf:params:xml:ns:contact-1.0 info"`
	CCre   *contactOp `xml:"urn:ietf:params:xml:ns:contact-1.0 create"`
	CDel   *contactOp `xml:"urn:ietf:params:xml:ns:contact-1.0 delete"`
	CUpd   *contactOp `xml:"-"` // from update.Contact

	MInfo *maintInfo `xml:"urn:ietf:params:xml:ns:epp:maintenance-1.0 info"` // RFC 9167 (maintenance.go)
}

// domainOp is what the registry reads of a domain command: the names
// (check takes several; the others one), the authInfo of a create, the
// period of a create or renew and a renew's current expiry date, the name
// servers (host.go) and contacts (contact.go) of a create.
type domainOp struct {
	Names      []domainName    `xml:"urn:ietf:params:xml:ns:domain-1.0 name"`
	NS         *domainNS       `xml:"urn:ietf:params:xml:ns:domain-1.0 ns"`         // host.go
	Registrant *domainName     `xml:"urn:ietf:params:xml:ns:domain-1.0 registrant"` // contact.go
	Contacts   []domainContact `xml:"urn:ietf:params:xml:ns:domain-1.0 contact"`
	AuthInfo   *authInfo       `xml:"urn:ietf:params:xml:ns:domain-1.0 authInfo"`
	Period     *period         `xml:"urn:ietf:params:xml:ns:domain-1.0 period"`
	CurExpDate *string         `xml:"urn:ietf:params:xml:ns:domain-1.0 curExpDate"`
}

// authInfo is a <domain:authInfo>: a password (<domain:pw>), an extension
// (<domain:ext>, not implemented), or in an update's <domain:chg> the
// removal of the authInfo (<domain:null/>).
type authInfo struct {
	PW   *string   `xml:"urn:ietf:params:xml:ns:domain-1.0 pw"`
	Ext  *anyElem  `xml:"urn:ietf:params:xml:ns:domain-1.0 ext"`
	Null *struct{} `xml:"urn:ietf:params:xml:ns:domain-1.0 null"`
}

// transfer is <transfer op="…"> (RFC 5730 §2.9.3.4) with a
// <domain:transfer> (RFC 5731 §3.2.4).
type transfer struct {
	Op     string          `xml:"op,attr"`
	Domain *domainTransfer `xml:"urn:ietf:params:xml:ns:domain-1.0 transfer"`
	Other  []anyElem       `xml:",any"`
}

type domainTransfer struct {
	Names    []domainName `xml:"urn:ietf:params:xml:ns:domain-1.0 name"`
	Period   *period      `xml:"urn:ietf:params:xml:ns:domain-1.0 period"`
	AuthInfo *authInfo    `xml:"urn:ietf:params:xml:ns:domain-1.0 authInfo"`
}

// period is a <domain:period unit="y|m">.
type period struct {
	Unit string `xml:"unit,attr"`
	V    string `xml:",chardata"`
}

// updateList is a domain <update>'s <add> or <rem>: the registry reads
// the statuses; anything else (name servers, contacts) is an option it
// does not implement.
type updateList struct {
	Status []struct {
		S string `xml:"s,attr"`
	} `xml:"urn:ietf:params:xml:ns:domain-1.0 status"`
	NS       *domainNS       `xml:"urn:ietf:params:xml:ns:domain-1.0 ns"`      // host.go
	Contacts []domainContact `xml:"urn:ietf:params:xml:ns:domain-1.0 contact"` // contact.go
	Other    []anyElem       `xml:",any"`
}

// poll is <poll op="req|ack" msgID="…"/> (RFC 5730 §2.9.2.3).
type poll struct {
	Op    string `xml:"op,attr"`
	MsgID string `xml:"msgID,attr"`
}

// update is <update> with a <domain:update> (RFC 5731 §3.2.5). Of it the
// registry reads the statuses of <domain:add> and <domain:rem> and the
// authInfo of <domain:chg>.
type update struct {
	Domain  *domainUpdate `xml:"urn:ietf:params:xml:ns:domain-1.0 update"`
	Host    *hostOp       `xml:"urn:ietf:params:xml:ns:host-1.0 update"`    // host.go
	Contact *contactOp    `xml:"urn:ietf:params:xml:ns:contact-1.0 update"` // contact.go
	Other   []anyElem     `xml:",any"`
}

type domainUpdate struct {
	Names []domainName `xml:"urn:ietf:params:xml:ns:domain-1.0 name"`
	Add   *updateList  `xml:"urn:ietf:params:xml:ns:domain-1.0 add"`
	Rem   *updateList  `xml:"urn:ietf:params:xml:ns:domain-1.0 rem"`
	Chg   *struct {
		Registrant *domainName `xml:"urn:ietf:params:xml:ns:domain-1.0 registrant"`
		AuthInfo   *authInfo   `xml:"urn:ietf:params:xml:ns:domain-1.0 authInfo"`
	} `xml:"urn:ietf:params:xml:ns:domain-1.0 chg"`
}

type domainName struct {
	V string `xml:",chardata"`
}

// cmdExt is a command's <extension>.
type cmdExt struct {
	IDN   *idnData  `xml:"urn:ietf:params:xml:ns:idn-1.0 data"`
	Other []anyElem `xml:",any"`
	// secdns.go
	SecCreate *secDNSCreate `xml:"urn:ietf:params:xml:ns:secDNS-1.1 create"`
	SecUpdate *secDNSUpdate `xml:"urn:ietf:params:xml:ns:secDNS-1.1 update"`
	RGP       *rgpUpdate    `xml:"urn:ietf:params:xml:ns:rgp-1.0 update"`
	LoginSec  *loginSecExt  `xml:"urn:ietf:params:xml:ns:epp:loginSec-1.0 loginSec"` // loginsec.go
	// fee.go (RFC 8748)
	FeeCheck    *feeCheck     `xml:"urn:ietf:params:xml:ns:epp:fee-1.0 check"`
	FeeCreate   *feeTransform `xml:"urn:ietf:params:xml:ns:epp:fee-1.0 create"`
	FeeRenew    *feeTransform `xml:"urn:ietf:params:xml:ns:epp:fee-1.0 renew"`
	FeeTransfer *feeTransform `xml:"urn:ietf:params:xml:ns:epp:fee-1.0 transfer"`
	FeeUpdate   *feeTransform `xml:"urn:ietf:params:xml:ns:epp:fee-1.0 update"`
}

// rgpUpdate is RFC 3915's <rgp:update><rgp:restore op="request|report">.
type rgpUpdate struct {
	Restore *struct {
		Op string `xml:"op,attr"`
	} `xml:"urn:ietf:params:xml:ns:rgp-1.0 restore"`
}

// idnData is draft-ietf-eppext-idnmap's <idn:data>.
type idnData struct {
	Table string  `xml:"urn:ietf:params:xml:ns:idn-1.0 table"`
	UName *string `xml:"urn:ietf:params:xml:ns:idn-1.0 uname"`
}

// anyElem records an element the registry does not read.
type anyElem struct {
	XMLName xml.Name
}

// op returns the one domain operation of an object, or the name of the
// element found instead.
func (o *object) op() (*domainOp, xml.Name) {
	for _, d := range []*domainOp{o.Domain, o.DInfo, o.DCre, o.DDel, o.DRen} {
		if d != nil {
			return d, xml.Name{Space: NSDomain}
		}
	}
	if len(o.Other) > 0 {
		return nil, o.Other[0].XMLName
	}
	return nil, xml.Name{}
}

// frameError is a frame the server cannot parse: 2001 (syntax), with the
// reason.
type frameError struct{ msg string }

func (e *frameError) Error() string { return e.msg }

const maxDepth = 32

// parse reads a client frame. It refuses what RFC 5730 has no use for and
// an attacker has: a DOCTYPE (so no entity can be declared), processing
// instructions other than the XML declaration, other encodings than
// UTF-8, deep nesting; then decodes the elements the registry reads.
func parse(frame []byte) (*request, error) {
	if !utf8.Valid(frame) {
		return nil, &frameError{"the frame is not valid UTF-8"}
	}
	dec := xml.NewDecoder(bytes.NewReader(frame))
	dec.Strict = true
	depth, root, cmds := 0, 0, 0
	inCommand := false
	for {
		tok, err := dec.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &frameError{"the frame is not well-formed XML: " + err.Error()}
		}
		switch t := tok.(type) {
		case xml.Directive:
			return nil, &frameError{"DOCTYPE and other declarations are not allowed in EPP frames"}
		case xml.ProcInst:
			if t.Target != "xml" {
				return nil, &frameError{"processing instructions are not allowed in EPP frames"}
			}
			if enc := procInstAttr(string(t.Inst), "encoding"); enc != "" && !strings.EqualFold(enc, "UTF-8") {
				return nil, &frameError{"EPP frames are UTF-8 (this one declares " + enc + ")"}
			}
		case xml.StartElement:
			switch {
			case depth == 0:
				root++
			case depth == 1:
				inCommand = t.Name.Local == "command"
			case depth == 2 && inCommand && t.Name.Local != "extension" && t.Name.Local != "clTRID":
				cmds++
			}
			depth++
			if depth > maxDepth {
				return nil, &frameError{"the frame nests elements too deeply"}
			}
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				return nil, &frameError{"text outside the root element"}
			}
		}
	}
	if root != 1 {
		return nil, &frameError{"an EPP frame has exactly one root element"}
	}
	var req request
	if err := xml.Unmarshal(frame, &req); err != nil {
		var ue xml.UnmarshalError
		if errors.As(err, &ue) || strings.Contains(err.Error(), "expected element type") {
			return nil, &frameError{"the root element is not <epp> in namespace " + NSEPP}
		}
		return nil, &frameError{"the frame is not valid EPP: " + err.Error()}
	}
	if req.Command != nil {
		c := req.Command
		c.children = cmds
	}
	return &req, nil
}

// procInstAttr reads a pseudo-attribute of the XML declaration.
func procInstAttr(inst, name string) string {
	i := strings.Index(inst, name)
	if i < 0 {
		return ""
	}
	rest := strings.TrimLeft(inst[i+len(name):], " \t\r\n")
	if !strings.HasPrefix(rest, "=") {
		return ""
	}
	rest = strings.TrimLeft(rest[1:], " \t\r\n")
	if rest == "" || (rest[0] != '"' && rest[0] != '\'') {
		return ""
	}
	end := strings.IndexByte(rest[1:], rest[0])
	if end < 0 {
		return ""
	}
	return rest[1 : 1+end]
}
