package escrow

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// The codes of a deposit refused by verify and restore.
const (
	CodeTruncated = "ESCROW_TRUNCATED" // the XML ends before the deposit does, or is not XML
	CodeSchema    = "ESCROW_SCHEMA"    // not valid under the RFC 8909/9022 schemas
	CodeReference = "ESCROW_REFERENCE" // an object names a contact, host, registrar or table the deposit does not hold
	CodeCount     = "ESCROW_COUNT"     // the header's counts are not the contents'
	CodeSignature = "ESCROW_SIGNATURE" // the signature does not verify
)

func init() {
	for _, c := range []string{CodeTruncated, CodeSchema, CodeReference, CodeCount, CodeSignature} {
		registry.DefineCode(c, registry.CodeInfo{HTTP: 422, EPP: 2400, Reason: "escrow deposit refused"})
	}
}

// xDelete is one element of <rde:deletes>: the names, ids, roids or
// A-labels of the objects it deletes.
type xDelete struct {
	Names  []string `xml:"name"`
	IDs    []string `xml:"id"`
	ROIDs  []string `xml:"roid"`
	ANames []string `xml:"aName"`
}

type xStatus struct {
	S string `xml:"s,attr"`
}

type xContact struct {
	Type string `xml:"type,attr"`
	ID   string `xml:",chardata"`
}

type xDS struct {
	KeyTag     int    `xml:"keyTag"`
	Alg        int    `xml:"alg"`
	DigestType int    `xml:"digestType"`
	Digest     string `xml:"digest"`
}

type xDomain struct {
	Name       string     `xml:"name"`
	ROID       string     `xml:"roid"`
	UName      string     `xml:"uName"`
	IDNTable   string     `xml:"idnTableId"`
	Original   string     `xml:"originalName"`
	Status     []xStatus  `xml:"status"`
	RGPStatus  []xStatus  `xml:"rgpStatus"`
	Registrant string     `xml:"registrant"`
	Contacts   []xContact `xml:"contact"`
	NS         []string   `xml:"ns>hostObj"`
	ClID       string     `xml:"clID"`
	CrDate     string     `xml:"crDate"`
	ExDate     string     `xml:"exDate"`
	UpDate     string     `xml:"upDate"`
	DS         []xDS      `xml:"secDNS>dsData"`
	TrDate     string     `xml:"trDate"`
	Trn        *struct {
		Status string `xml:"trStatus"`
		ReRr   string `xml:"reRr"`
		ReDate string `xml:"reDate"`
		AcRr   string `xml:"acRr"`
		AcDate string `xml:"acDate"`
	} `xml:"trnData"`
}

type xAddr struct {
	IP   string `xml:"ip,attr"`
	Addr string `xml:",chardata"`
}

type xHost struct {
	Name   string    `xml:"name"`
	ROID   string    `xml:"roid"`
	Status []xStatus `xml:"status"`
	Addrs  []xAddr   `xml:"addr"`
	ClID   string    `xml:"clID"`
	CrDate string    `xml:"crDate"`
	UpDate string    `xml:"upDate"`
}

type xPostal struct {
	Type   string   `xml:"type,attr"`
	Name   string   `xml:"name"`
	Org    string   `xml:"org"`
	Street []string `xml:"addr>street"`
	City   string   `xml:"addr>city"`
	SP     string   `xml:"addr>sp"`
	PC     string   `xml:"addr>pc"`
	CC     string   `xml:"addr>cc"`
}

type xPhone struct {
	X      string `xml:"x,attr"`
	Number string `xml:",chardata"`
}

type xRdeContact struct {
	ID       string    `xml:"id"`
	ROID     string    `xml:"roid"`
	Status   []xStatus `xml:"status"`
	Postal   []xPostal `xml:"postalInfo"`
	Voice    *xPhone   `xml:"voice"`
	Fax      *xPhone   `xml:"fax"`
	Email    string    `xml:"email"`
	ClID     string    `xml:"clID"`
	CrDate   string    `xml:"crDate"`
	UpDate   string    `xml:"upDate"`
	Disclose *struct {
		Flag   string `xml:"flag,attr"`
		Fields []struct {
			XMLName xml.Name
			Type    string `xml:"type,attr"`
		} `xml:",any"`
	} `xml:"disclose"`
}

type xRegistrar struct {
	ID     string `xml:"id"`
	Name   string `xml:"name"`
	Status string `xml:"status"`
	Email  string `xml:"email"`
	CrDate string `xml:"crDate"`
}

type xNNDN struct {
	AName    string `xml:"aName"`
	UName    string `xml:"uName"`
	IDNTable string `xml:"idnTableId"`
	Original string `xml:"originalName"`
	State    string `xml:"nameState"`
	CrDate   string `xml:"crDate"`
}

type xIDN struct {
	ID  string `xml:"id,attr"`
	URL string `xml:"url"`
}

type xHeader struct {
	TLD    string `xml:"tld"`
	Counts []struct {
		URI string `xml:"uri,attr"`
		N   int64  `xml:",chardata"`
	} `xml:"count"`
}

type xAkxDomain struct {
	Name           string   `xml:"name"`
	AuthHash       string   `xml:"authHash"`
	Legacy         []string `xml:"legacy"`
	DataVersion    string   `xml:"dataVersion"`
	RedemptionEnds string   `xml:"redemptionEnds"`
	PurgeAt        string   `xml:"purgeAt"`
	Renewed        string   `xml:"renewed"`
	AutoRenewed    string   `xml:"autoRenewed"`
	PendingPeriod  int      `xml:"pendingPeriod"`
	ExemptWith     []string `xml:"exemptWith"`
}

type xAkxContact struct {
	ID       string `xml:"id"`
	AuthHash string `xml:"authHash"`
}

type xAkxReserved struct {
	AName  string `xml:"aName"`
	Reason string `xml:"reason"`
}

type xAkxRegistrar struct {
	ID         string `xml:"id"`
	Name       string `xml:"name"`
	AbuseEmail string `xml:"abuseEmail"`
	AbusePhone string `xml:"abusePhone"`
}

// object is one element of a deposit's contents (or deletes), decoded.
type object struct {
	space, local string
	deleted      bool
	v            any
}

// errorf makes a deposit error with a code.
func errorf(code, format string, args ...any) error {
	return registry.Errorf(code, format, args...)
}

// scan reads the deposit file and calls f with each object of its
// contents and deletes, in the file's order. A file that ends early or is
// not XML is CodeTruncated.
func scan(path string, f func(o *object) error) (typ string, watermark time.Time, err error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", time.Time{}, err
	}
	defer fh.Close()
	return scanReader(fh, path, f)
}

func scanReader(r io.Reader, path string, f func(o *object) error) (typ string, watermark time.Time, err error) {
	dec := xml.NewDecoder(r)
	depth := 0
	section := ""
	done := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", time.Time{}, errorf(CodeTruncated, "%s: %v", path, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch {
			case depth == 1:
				if t.Name.Local != "deposit" || t.Name.Space != nsRDE {
					return "", time.Time{}, errorf(CodeSchema, "%s: not an RDE deposit (root %s)", path, t.Name.Local)
				}
				for _, a := range t.Attr {
					if a.Name.Local == "type" {
						typ = a.Value
					}
				}
			case depth == 2:
				section = t.Name.Local
				if section == "watermark" {
					var s string
					if err := dec.DecodeElement(&s, &t); err != nil {
						return "", time.Time{}, errorf(CodeTruncated, "%s: %v", path, err)
					}
					depth--
					if watermark, err = time.Parse(time.RFC3339Nano, strings.TrimSpace(s)); err != nil {
						return "", time.Time{}, errorf(CodeSchema, "%s: watermark %q: %v", path, s, err)
					}
				}
			case depth == 3 && (section == "contents" || section == "deletes"):
				o := &object{space: t.Name.Space, local: t.Name.Local, deleted: section == "deletes"}
				var v any
				switch {
				case o.deleted:
					v = &xDelete{}
				case t.Name.Space == nsDomain && t.Name.Local == "domain":
					v = &xDomain{}
				case t.Name.Space == nsHost && t.Name.Local == "host":
					v = &xHost{}
				case t.Name.Space == nsContact && t.Name.Local == "contact":
					v = &xRdeContact{}
				case t.Name.Space == nsRegistrar && t.Name.Local == "registrar":
					v = &xRegistrar{}
				case t.Name.Space == nsNNDN && t.Name.Local == "NNDN":
					v = &xNNDN{}
				case t.Name.Space == nsIDN && t.Name.Local == "idnTableRef":
					v = &xIDN{}
				case t.Name.Space == nsHeader && t.Name.Local == "header":
					v = &xHeader{}
				case t.Name.Space == nsAkshara && t.Name.Local == "domain":
					v = &xAkxDomain{}
				case t.Name.Space == nsAkshara && t.Name.Local == "contact":
					v = &xAkxContact{}
				case t.Name.Space == nsAkshara && t.Name.Local == "reserved":
					v = &xAkxReserved{}
				case t.Name.Space == nsAkshara && t.Name.Local == "registrar":
					v = &xAkxRegistrar{}
				default:
					v = &struct{}{}
				}
				if err := dec.DecodeElement(v, &t); err != nil {
					return "", time.Time{}, errorf(CodeTruncated, "%s: %v", path, err)
				}
				depth--
				o.v = v
				if err := f(o); err != nil {
					return "", time.Time{}, err
				}
			}
		case xml.EndElement:
			depth--
			if depth == 0 {
				done = true
			}
		}
	}
	if !done {
		return "", time.Time{}, errorf(CodeTruncated, "%s: the deposit ends before </rde:deposit>", path)
	}
	return typ, watermark, nil
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

func roidNumber(roid string) int64 {
	s, _, _ := strings.Cut(roid, "-")
	n, _ := strconv.ParseInt(strings.TrimLeft(s, "CDH"), 10, 64)
	return n
}

func statuses(ss []xStatus) []string {
	var out []string
	for _, s := range ss {
		if s.S != "ok" {
			out = append(out, s.S)
		}
	}
	return out
}

func (x *xRdeContact) contact() *registry.Contact {
	c := &registry.Contact{ID: x.ID, ROID: roidNumber(x.ROID), Registrar: x.ClID, Statuses: statuses(x.Status),
		Created: parseTime(x.CrDate), Updated: parseTime(x.UpDate)}
	if c.Statuses == nil {
		c.Statuses = []string{}
	}
	for _, p := range x.Postal {
		c.Postal = append(c.Postal, registry.PostalInfo{Type: p.Type, Name: p.Name, Org: p.Org, Street: p.Street, City: p.City, SP: p.SP, PC: p.PC, CC: p.CC})
	}
	if x.Voice != nil {
		c.Voice = &registry.Phone{Number: strings.TrimSpace(x.Voice.Number), Ext: x.Voice.X}
	}
	if x.Fax != nil {
		c.Fax = &registry.Phone{Number: strings.TrimSpace(x.Fax.Number), Ext: x.Fax.X}
	}
	c.Email = x.Email
	if x.Disclose != nil {
		d := &registry.Disclose{Flag: x.Disclose.Flag == "1" || x.Disclose.Flag == "true", Fields: []string{}}
		for _, f := range x.Disclose.Fields {
			if f.Type != "" {
				d.Fields = append(d.Fields, f.XMLName.Local+":"+f.Type)
			} else {
				d.Fields = append(d.Fields, f.XMLName.Local)
			}
		}
		c.Disclose = d
	}
	return c
}

func (x *xHost) host() *registry.Host {
	h := &registry.Host{ID: roidNumber(x.ROID), Name: strings.ToLower(x.Name), Registrar: x.ClID, Statuses: statuses(x.Status),
		Created: parseTime(x.CrDate), Updated: parseTime(x.UpDate), Addrs: []string{}}
	if h.Statuses == nil {
		h.Statuses = []string{}
	}
	for _, a := range x.Addrs {
		h.Addrs = append(h.Addrs, strings.TrimSpace(a.Addr))
	}
	return h
}

func (x *xDomain) domain(ak *xAkxDomain) *registry.EscrowDomain {
	d := &registry.EscrowDomain{}
	d.ID = roidNumber(x.ROID)
	d.Name = x.Name
	if x.UName != "" {
		d.Name = x.UName
	}
	d.Lang = x.IDNTable
	d.Original = x.Original
	d.Registrar = x.ClID
	d.Created, d.Expires, d.Updated = parseTime(x.CrDate), parseTime(x.ExDate), parseTime(x.UpDate)
	d.Transferred = parseTime(x.TrDate)
	for _, s := range append(statuses(x.Status), statuses(x.RGPStatus)...) {
		if s != "pendingTransfer" {
			d.Statuses = append(d.Statuses, s)
		}
	}
	if x.Registrant != "" {
		d.Contacts = append(d.Contacts, registry.DomainContact{Role: "registrant", ID: x.Registrant})
	}
	for _, c := range x.Contacts {
		d.Contacts = append(d.Contacts, registry.DomainContact{Role: c.Type, ID: c.ID})
	}
	for _, n := range x.NS {
		d.NameServers = append(d.NameServers, strings.ToLower(strings.TrimSuffix(n, ".")))
	}
	for _, ds := range x.DS {
		d.DS = append(d.DS, registry.DS{KeyTag: ds.KeyTag, Algorithm: ds.Alg, DigestType: ds.DigestType, Digest: strings.ToUpper(ds.Digest)})
	}
	if t := x.Trn; t != nil && t.Status == "pending" {
		d.Pending = &registry.Transfer{Status: registry.TransferPending, Gaining: t.ReRr, Losing: t.AcRr, Requested: parseTime(t.ReDate), ActDate: parseTime(t.AcDate)}
	}
	if ak != nil {
		d.AuthHash, d.Legacy, d.DataVersion = ak.AuthHash, ak.Legacy, ak.DataVersion
		d.RedemptionEnds, d.PurgeAt = parseTime(ak.RedemptionEnds), parseTime(ak.PurgeAt)
		d.Renewed, d.AutoRenewed = parseTime(ak.Renewed), parseTime(ak.AutoRenewed)
		if d.Pending != nil {
			d.Pending.Period = ak.PendingPeriod
		}
		d.ExemptWith = ak.ExemptWith
		if d.ExemptWith == nil {
			d.ExemptWith = []string{}
		}
	}
	return d
}

var errStop = errors.New("stop")

var _ = fmt.Sprint
