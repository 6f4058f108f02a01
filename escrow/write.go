// Package escrow writes, verifies and restores registry data escrow
// deposits: RFC 8909's deposit of RFC 9022's domain-registration objects,
// with the variant state (NNDN objects) that rebuilds the conflict sets
// (docs/escrow.md). The deposit is read from the store in one snapshot, a
// page at a time: memory does not grow with the registry.
package escrow

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/akshara-idn/akshara/internal/spool"
	"github.com/akshara-idn/akshara/registry"
)

// The namespaces of a deposit.
const (
	nsRDE       = "urn:ietf:params:xml:ns:rde-1.0"
	nsHeader    = "urn:ietf:params:xml:ns:rdeHeader-1.0"
	nsDomain    = "urn:ietf:params:xml:ns:rdeDomain-1.0"
	nsHost      = "urn:ietf:params:xml:ns:rdeHost-1.0"
	nsContact   = "urn:ietf:params:xml:ns:rdeContact-1.0"
	nsRegistrar = "urn:ietf:params:xml:ns:rdeRegistrar-1.0"
	nsIDN       = "urn:ietf:params:xml:ns:rdeIDN-1.0"
	nsNNDN      = "urn:ietf:params:xml:ns:rdeNNDN-1.0"
	nsEppParams = "urn:ietf:params:xml:ns:rdeEppParams-1.0"
	nsPolicy    = "urn:ietf:params:xml:ns:rdePolicy-1.0"
	nsAkshara   = "urn:akshara-idn:params:xml:ns:rdeAkshara-1.0"
)

// objURIs are the object namespaces a deposit holds, in the menu's order.
var objURIs = []string{nsHeader, nsContact, nsDomain, nsHost, nsRegistrar, nsIDN, nsNNDN, nsEppParams, nsPolicy, nsAkshara}

// Options say what deposit to write.
type Options struct {
	Type      string    // FULL or DIFF
	Watermark time.Time // the instant the deposit is of
	Dir       string    // where the files go
	Resend    int       // 0 for the first sending
	// Name is the deposit's name in its files' names (Specification 2's
	// {gTLD}); "" for the first zone's A-label.
	Name string
	// LGRBase is the URL the language tables are published under
	// (BASE/lgr/TAG.xml); "" for https://akshara.invalid.
	LGRBase string
	// PageSize is how many objects are read at once (0: 1000).
	PageSize int
	// Progress, if not nil, is kept up to date as the deposit runs:
	// reading the objects (each contact, host and domain read), then
	// recording their fingerprints (each one written).
	Progress *Progress
}

// Result is what a deposit wrote.
type Result struct {
	ID     string
	File   string // the deposit's XML file
	Report string // its rdeReport file
	Counts map[string]int64
	Bytes  int64
	// Sealed and Signature are the .ryde and .sig files, when sealed
	// (Seal).
	Sealed, Signature string `json:",omitempty"`
}

// roidSuffix is the repository identifier of roids (eppcom:roidType).
const roidSuffix = "AKSHARA"

// Deposit writes a deposit of the registry at o.Watermark into o.Dir, one
// for each zone family (and each zone of none), read in one snapshot of
// the store. Each deposit holds its zones' domains and NNDN objects, every
// registrar, and the contacts and hosts its domains name; the contacts
// and hosts no domain names go with the first zone's deposit. A FULL
// deposit holds every object; a DIFF what changed since the last deposits
// (the store keeps a fingerprint of each object they hold), and in
// <rde:deletes> what is gone. The deposits, and the fingerprints they
// leave, are recorded in the store (the cursor) once written.
func Deposit(ctx context.Context, svc *registry.Service, o Options) ([]*Result, error) {
	es, ok := svc.Store().(registry.EscrowStore)
	if !ok {
		return nil, fmt.Errorf("escrow: the store keeps no escrow")
	}
	if o.Type == "" {
		o.Type = "FULL"
	}
	if o.Type != "FULL" && o.Type != "DIFF" {
		return nil, fmt.Errorf("escrow: deposit type %q: FULL or DIFF", o.Type)
	}
	if o.PageSize <= 0 {
		o.PageSize = 1000
	}
	if o.LGRBase == "" {
		o.LGRBase = "https://akshara.invalid"
	}
	prev, err := es.EscrowCursor(ctx)
	if err != nil {
		return nil, err
	}
	if o.Type == "DIFF" && prev.Seq == 0 {
		return nil, fmt.Errorf("escrow: a DIFF deposit needs a FULL one before it")
	}
	if o.Type == "DIFF" && !o.Watermark.After(prev.Watermark) {
		return nil, fmt.Errorf("escrow: the watermark %s is not after the last deposit's (%s)", ts(o.Watermark), ts(prev.Watermark))
	}
	seq := prev.Seq + 1
	o.Watermark = o.Watermark.UTC()
	id := fmt.Sprintf("%s%03d", o.Watermark.Format("20060102"), seq%1000)
	d := &depositor{svc: svc, es: es, o: o, id: id, diff: o.Type == "DIFF", byZone: map[string]*writer{}, byZoneA: map[string]*writer{}, zoneA: map[string]string{},
		records: spool.New(16 << 20)}
	d.sw = &writer{w: bufio.NewWriter(&d.buf), counts: map[string]int64{}, zoneCounts: map[string]map[string]int64{}}
	defer d.close()
	for _, z := range svc.Zones() {
		d.zoneA[z.Name] = z.ALabel
		key := z.Family
		if key == "" {
			key = z.Name
		}
		var w *writer
		for _, g := range d.groups {
			if g.key == key {
				w = g
			}
		}
		if w == nil {
			name := z.ALabel
			if o.Name != "" {
				name = o.Name + "-" + z.ALabel
			}
			base := fmt.Sprintf("%s_%s_%s_S%d_R%d", name, o.Watermark.Format("2006-01-02"), strings.ToLower(o.Type), seq, o.Resend)
			f, err := os.CreateTemp(o.Dir, ".deposit-*")
			if err != nil {
				return nil, err
			}
			w = &writer{key: key, f: f, w: bufio.NewWriterSize(f, 1<<16), counts: map[string]int64{}, zoneCounts: map[string]map[string]int64{},
				res: &Result{ID: id, File: filepath.Join(o.Dir, base+".xml"), Report: filepath.Join(o.Dir, base+".rep.xml")}}
			d.groups = append(d.groups, w)
		}
		w.zones = append(w.zones, z)
		w.tlds = append(w.tlds, z.ALabel)
		d.byZone[z.Name] = w
		d.byZoneA[z.ALabel] = w
	}
	o.Progress.begin("reading the registry")
	if err := es.EscrowSnapshot(ctx, d.run); err != nil {
		return nil, err
	}
	var out []*Result
	var files []registry.EscrowCursor
	for _, w := range d.groups {
		if err := w.finish(d); err != nil {
			return nil, err
		}
		if err := writeReport(w.res, o, id, w); err != nil {
			return nil, err
		}
		out = append(out, w.res)
		files = append(files, registry.EscrowCursor{Type: o.Type, Watermark: o.Watermark, Seq: seq, File: filepath.Base(w.res.File)})
	}
	o.Progress.begin("recording the fingerprints")
	err = es.EscrowCommit(ctx, files, !d.diff, func(f func(registry.EscrowObject) error) error {
		r, err := d.records.Reader()
		if err != nil {
			return err
		}
		for r.More() {
			var o registry.EscrowObject
			var id uint64
			var fields [5]string
			if id, err = r.Uvarint(); err != nil {
				return err
			}
			for i := range fields {
				b, err := r.Bytes() // overwritten by the next read
				if err != nil {
					return err
				}
				fields[i] = string(b)
			}
			o.ID = int64(id)
			o.Kind, o.Hash, o.Name, o.Extra = fields[0], fields[1], fields[2], fields[3]
			o.Deleted = len(fields[4]) > 0
			if err := f(o); err != nil {
				return err
			}
			d.o.Progress.add(1)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// depositor writes the deposits of one watermark.
type depositor struct {
	svc     *registry.Service
	es      registry.EscrowStore
	o       Options
	id      string
	diff    bool
	groups  []*writer          // one a zone family, in the zones' order
	byZone  map[string]*writer // zone -> its family's
	byZoneA map[string]*writer // zone A-label -> its family's
	zoneA   map[string]string  // zone -> A-label
	// sw writes one object into buf, to fingerprint it before it goes
	// into the deposits.
	sw      *writer
	buf     bytes.Buffer
	records *spool.Spool // the fingerprints to record (EscrowCommit)
	prev    *prevIter
}

func (d *depositor) close() {
	d.records.Close()
	for _, w := range d.groups {
		if w.f != nil {
			w.f.Close()
			os.Remove(w.f.Name())
		}
		if w.dels != nil {
			w.dels.Close()
			os.Remove(w.dels.Name())
		}
	}
}

// record keeps a fingerprint to record.
func (d *depositor) record(o registry.EscrowObject) {
	d.records.PutUvarint(uint64(o.ID))
	del := ""
	if o.Deleted {
		del = "1"
	}
	for _, f := range []string{o.Kind, o.Hash, o.Name, o.Extra, del} {
		d.records.PutString(f)
	}
}

// to returns the deposits of the zones (deduplicated), or the first
// deposit for none.
func (d *depositor) to(zones []string) []*writer {
	var out []*writer
	for _, z := range zones {
		if w := d.byZone[z]; w != nil && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		out = d.groups[:1]
	}
	return out
}

// render writes one object (with render) into buf and returns its
// fingerprint.
func (d *depositor) render(f func(w *writer)) string {
	d.buf.Reset()
	d.o.Progress.add(1)
	clear(d.sw.counts)
	clear(d.sw.zoneCounts)
	f(d.sw)
	d.sw.w.Flush()
	sum := sha256.Sum256(d.buf.Bytes())
	return hex.EncodeToString(sum[:16])
}

// put writes the object rendered into the deposits.
func (d *depositor) put(ws []*writer) {
	for _, w := range ws {
		w.w.Write(d.buf.Bytes())
		for u, n := range d.sw.counts {
			w.counts[u] += n
		}
		for tld, m := range d.sw.zoneCounts {
			if w.zoneCounts[tld] == nil {
				w.zoneCounts[tld] = map[string]int64{}
			}
			for u, n := range m {
				w.zoneCounts[tld][u] += n
			}
		}
	}
}

// prevIter reads the fingerprints of one kind in id order (the snapshot's).
type prevIter struct {
	ctx   context.Context
	es    registry.EscrowStore
	kind  string
	page  []registry.EscrowObject
	after int64
	done  bool
}

func (p *prevIter) peek() (*registry.EscrowObject, error) {
	if len(p.page) == 0 && !p.done {
		page, err := p.es.EscrowObjects(p.ctx, p.kind, p.after, 1000)
		if err != nil {
			return nil, err
		}
		p.page, p.done = page, len(page) == 0
		if len(page) > 0 {
			p.after = page[len(page)-1].ID
		}
	}
	if len(p.page) == 0 {
		return nil, nil
	}
	return &p.page[0], nil
}

// diffed decides an object of a DIFF: it calls gone with each object of
// the last deposits before id that is no longer, and returns whether the
// object (hash) is new or changed, and its fingerprint in the last
// deposits if it was there. id -1 drains the kind.
func (d *depositor) diffed(p *prevIter, id int64, hash string, gone func(o registry.EscrowObject)) (bool, *registry.EscrowObject, error) {
	for {
		o, err := p.peek()
		if err != nil {
			return false, nil, err
		}
		if o == nil || (id >= 0 && o.ID > id) {
			return true, nil, nil
		}
		old := *o
		p.page = p.page[1:]
		if id >= 0 && old.ID == id {
			return old.Hash != hash, &old, nil
		}
		gone(old)
	}
}

// del writes a delete into a deposit's <rde:deletes>.
func (w *writer) del(prefix, tag, name string) {
	if w.dels == nil {
		w.delErr = nil
		f, err := os.CreateTemp(filepath.Dir(w.f.Name()), ".deletes-*")
		if err != nil {
			w.delErr = err
			return
		}
		w.dels, w.delW = f, bufio.NewWriter(f)
	}
	w.delW.WriteString("<" + prefix + ":delete><" + prefix + ":" + tag + ">")
	xml.EscapeText(w.delW, []byte(name))
	w.delW.WriteString("</" + prefix + ":" + tag + "></" + prefix + ":delete>\n")
}

func (d *depositor) run(ctx context.Context) error {
	regs, err := d.es.EscrowRegistrars(ctx)
	if err != nil {
		return err
	}
	for _, w := range d.groups {
		w.begin(d.svc, regs, d.o, d.id)
	}
	first := d.groups[0]
	// contacts
	p := &prevIter{ctx: ctx, es: d.es, kind: "contact", after: -1}
	goneContact := func(o registry.EscrowObject) {
		first.del("rdeContact", "id", o.Name)
		d.record(registry.EscrowObject{Kind: o.Kind, ID: o.ID, Deleted: true})
	}
	for after := int64(0); ; {
		cs, err := d.es.EscrowContacts(ctx, after, d.o.PageSize)
		if err != nil {
			return err
		}
		if len(cs) == 0 {
			break
		}
		links, err := d.es.EscrowLinks(ctx, "contact", cs[0].ROID, cs[len(cs)-1].ROID)
		if err != nil {
			return err
		}
		for _, c := range cs {
			after = c.ROID
			ws := d.to(links[c.ROID])
			hash := d.render(func(w *writer) { w.contact(c) }) + groupsKey(ws)
			if d.diff {
				changed, _, err := d.diffed(p, c.ROID, hash, goneContact)
				if err != nil {
					return err
				}
				if !changed {
					continue
				}
			}
			d.put(ws)
			d.record(registry.EscrowObject{Kind: "contact", ID: c.ROID, Hash: hash, Name: c.ID})
		}
	}
	if d.diff {
		if _, _, err := d.diffed(p, -1, "", goneContact); err != nil {
			return err
		}
	}
	// hosts
	p = &prevIter{ctx: ctx, es: d.es, kind: "host", after: -1}
	goneHost := func(o registry.EscrowObject) {
		first.del("rdeHost", "roid", o.Name)
		d.record(registry.EscrowObject{Kind: o.Kind, ID: o.ID, Deleted: true})
	}
	for after := int64(0); ; {
		hs, err := d.es.EscrowHosts(ctx, after, d.o.PageSize)
		if err != nil {
			return err
		}
		if len(hs) == 0 {
			break
		}
		links, err := d.es.EscrowLinks(ctx, "host", hs[0].ID, hs[len(hs)-1].ID)
		if err != nil {
			return err
		}
		for _, h := range hs {
			after = h.ID
			zones := links[h.ID]
			if h.SuperZone != "" {
				zones = append(zones, h.SuperZone)
			}
			ws := d.to(zones)
			hash := d.render(func(w *writer) { w.host(h) }) + groupsKey(ws)
			if d.diff {
				changed, _, err := d.diffed(p, h.ID, hash, goneHost)
				if err != nil {
					return err
				}
				if !changed {
					continue
				}
			}
			d.put(ws)
			d.record(registry.EscrowObject{Kind: "host", ID: h.ID, Hash: hash, Name: hostROID(h.ID)})
		}
	}
	if d.diff {
		if _, _, err := d.diffed(p, -1, "", goneHost); err != nil {
			return err
		}
	}
	// domains, each with its NNDN objects
	p = &prevIter{ctx: ctx, es: d.es, kind: "domain", after: -1}
	goneDomain := func(o registry.EscrowObject) {
		_, za, _ := strings.Cut(o.Name, ".")
		w := d.byZoneA[za]
		if w == nil {
			w = first
		}
		w.del("rdeDomain", "name", o.Name)
		for _, n := range strings.Fields(o.Extra) {
			w.del("rdeNNDN", "aName", n)
		}
		d.record(registry.EscrowObject{Kind: o.Kind, ID: o.ID, Deleted: true})
	}
	var nndn []string
	for after := int64(0); ; {
		ds, err := d.es.EscrowDomains(ctx, after, d.o.PageSize)
		if err != nil {
			return err
		}
		if len(ds) == 0 {
			break
		}
		for _, dom := range ds {
			after = dom.ID
			w := d.to([]string{dom.Zone})[0]
			members := d.svc.Family(dom.Zone)
			if len(members) == 0 {
				members = []string{dom.Zone}
			}
			nndn = nndn[:0]
			hash := d.render(func(sw *writer) {
				sw.domain(dom, d.zoneA[dom.Zone])
				for _, l := range dom.Blocks {
					for _, z := range members {
						if l == dom.Label && z == dom.Zone {
							continue
						}
						nndn = append(nndn, sw.nndn(l, z, d.zoneA[z], dom.Lang, dom.Name, "blocked", dom.Created))
					}
				}
			})
			extra := strings.Join(nndn, " ")
			if d.diff {
				changed, old, err := d.diffed(p, dom.ID, hash, goneDomain)
				if err != nil {
					return err
				}
				if !changed {
					continue
				}
				if old != nil {
					for _, n := range strings.Fields(old.Extra) {
						if !slices.Contains(nndn, n) {
							w.del("rdeNNDN", "aName", n)
						}
					}
				}
			}
			d.put([]*writer{w})
			d.record(registry.EscrowObject{Kind: "domain", ID: dom.ID, Hash: hash, Name: dom.ALabel, Extra: extra})
		}
	}
	if d.diff {
		if _, _, err := d.diffed(p, -1, "", goneDomain); err != nil {
			return err
		}
	}
	// reserved names: all of them in every deposit, those gone deleted
	reserved, err := d.svc.Store().ReservedNames(ctx, "")
	if err != nil {
		return err
	}
	var names []string
	for i, r := range reserved {
		w := d.to([]string{r.Zone})[0]
		var a string
		d.render(func(sw *writer) {
			a = sw.nndn(r.Label, r.Zone, d.zoneA[r.Zone], "", "", "withheld", r.Created)
			if r.Reason != "" {
				sw.s("<akx:reserved>")
				sw.el("akx:aName", a)
				sw.el("akx:reason", r.Reason)
				sw.s("</akx:reserved>\n")
				sw.count(nsAkshara, "")
			}
		})
		d.put([]*writer{w})
		names = append(names, a)
		d.record(registry.EscrowObject{Kind: "reserved", ID: int64(i), Hash: "-", Name: a})
	}
	if d.diff {
		p = &prevIter{ctx: ctx, es: d.es, kind: "reserved", after: -1}
		_, _, err := d.diffed(p, -1, "", func(o registry.EscrowObject) {
			if !slices.Contains(names, o.Name) {
				_, za, _ := strings.Cut(o.Name, ".")
				if w := d.byZoneA[za]; w != nil {
					w.del("rdeNNDN", "aName", o.Name)
				}
			}
			if o.ID >= int64(len(names)) {
				d.record(registry.EscrowObject{Kind: o.Kind, ID: o.ID, Deleted: true})
			}
		})
		if err != nil {
			return err
		}
	}
	for _, w := range d.groups {
		w.end()
	}
	return d.records.Err()
}

// groupsKey names the deposits an object goes to (part of its
// fingerprint: an object that goes to another deposit is written again).
func groupsKey(ws []*writer) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(" " + w.key)
	}
	return b.String()
}

func hostROID(id int64) string { return "H" + strconv.FormatInt(id, 10) + "-" + roidSuffix }

// writer writes a deposit's XML, counting its objects.
type writer struct {
	key        string // the zone family's key (its first member), or the zone
	zones      []registry.Zone
	f          *os.File // the contents (with the start, for a FULL deposit)
	dels       *os.File // the deletes (DIFF)
	delW       *bufio.Writer
	delErr     error
	res        *Result
	w          *bufio.Writer
	prelude    string
	counts     map[string]int64            // by object URI
	zoneCounts map[string]map[string]int64 // by TLD (A-label), domains and NNDN
	tlds       []string                    // the A-labels of the zones
}

func (w *writer) s(parts ...string) {
	for _, p := range parts {
		w.w.WriteString(p)
	}
}

// el writes <tag>text</tag>, text escaped.
func (w *writer) el(tag, text string) {
	w.w.WriteString("<" + tag + ">")
	xml.EscapeText(w.w, []byte(text))
	w.w.WriteString("</" + tag + ">")
}

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func (w *writer) count(uri, tld string) {
	w.counts[uri]++
	if tld != "" {
		m := w.zoneCounts[tld]
		if m == nil {
			m = map[string]int64{}
			w.zoneCounts[tld] = m
		}
		m[uri]++
	}
}

func (w *writer) begin(svc *registry.Service, regs []registry.EscrowRegistrar, o Options, id string) {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<rde:deposit type="` + o.Type + `" id="` + id + `" resend="` + strconv.Itoa(o.Resend) + `"` +
		` xmlns:rde="` + nsRDE + `" xmlns:rdeHeader="` + nsHeader + `" xmlns:rdeDomain="` + nsDomain + `" xmlns:rdeHost="` + nsHost +
		`" xmlns:rdeContact="` + nsContact + `" xmlns:rdeRegistrar="` + nsRegistrar + `" xmlns:rdeIDN="` + nsIDN + `" xmlns:rdeNNDN="` + nsNNDN +
		`" xmlns:rdeEppParams="` + nsEppParams + `" xmlns:rdePolicy="` + nsPolicy + `" xmlns:akx="` + nsAkshara +
		`" xmlns:domain="urn:ietf:params:xml:ns:domain-1.0" xmlns:contact="urn:ietf:params:xml:ns:contact-1.0" xmlns:secDNS="urn:ietf:params:xml:ns:secDNS-1.1" xmlns:rgp="urn:ietf:params:xml:ns:rgp-1.0" xmlns:epp="urn:ietf:params:xml:ns:epp-1.0">` + "\n")
	b.WriteString("<rde:watermark>" + ts(o.Watermark) + "</rde:watermark>\n<rde:rdeMenu><rde:version>1.0</rde:version>")
	for _, u := range objURIs {
		b.WriteString("<rde:objURI>" + u + "</rde:objURI>")
	}
	b.WriteString("</rde:rdeMenu>\n")
	w.prelude = b.String()
	if o.Type == "FULL" {
		w.s(w.prelude, "<rde:contents>\n")
	}
	for _, r := range regs {
		w.registrar(r)
	}
	w.eppParams()
	w.s(`<rdePolicy:policy scope="//rde:deposit/rde:contents/rdeDomain:domain" element="rdeDomain:clID"/>` + "\n")
	w.count(nsPolicy, "")
	// the language tables of the zones, as published (/lgr/TAG.xml) with
	// the policy data version
	var tags []string
	for _, z := range w.zones {
		for _, l := range z.Languages {
			if !slices.Contains(tags, l) {
				tags = append(tags, l)
			}
		}
	}
	slices.Sort(tags)
	for _, t := range tags {
		w.s(`<rdeIDN:idnTableRef id="`, esc(t), `">`)
		w.el("rdeIDN:url", o.LGRBase+"/lgr/"+t+".xml?version="+svc.DataVersion())
		w.el("rdeIDN:urlPolicy", o.LGRBase+"/policy")
		w.s("</rdeIDN:idnTableRef>\n")
		w.count(nsIDN, "")
	}
}

// end writes the headers, one a TLD (its domains and NNDN objects), the
// first with the deposit's other objects, and closes the deposit.
func (w *writer) end() {
	for i, tld := range w.tlds {
		w.s("<rdeHeader:header>")
		w.el("rdeHeader:tld", tld)
		for _, u := range objURIs {
			if u == nsHeader {
				continue
			}
			n := w.zoneCounts[tld][u]
			if u != nsDomain && u != nsNNDN && i == 0 {
				n = w.counts[u]
			}
			if n > 0 || u == nsDomain { // every header counts its domains, 0 too (the schema wants a count)
				w.s(`<rdeHeader:count uri="`, u, `">`, strconv.FormatInt(n, 10), "</rdeHeader:count>")
			}
		}
		w.s("</rdeHeader:header>\n")
	}
	w.counts[nsHeader] = int64(len(w.tlds))
	w.s("</rde:contents>\n</rde:deposit>\n")
}

// finish makes the deposit's file: a FULL one's temporary file renamed; a
// DIFF's start, deletes and contents put together.
func (w *writer) finish(d *depositor) error {
	if err := w.w.Flush(); err != nil {
		return err
	}
	if d.diff {
		out, err := os.CreateTemp(filepath.Dir(w.f.Name()), ".deposit-*")
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(out, 1<<16)
		bw.WriteString(w.prelude)
		if w.delErr != nil {
			out.Close()
			return w.delErr
		}
		if w.dels != nil {
			if err := w.delW.Flush(); err != nil {
				out.Close()
				return err
			}
			bw.WriteString("<rde:deletes>\n")
			if _, err := w.dels.Seek(0, io.SeekStart); err != nil {
				out.Close()
				return err
			}
			if _, err := io.Copy(bw, w.dels); err != nil {
				out.Close()
				return err
			}
			bw.WriteString("</rde:deletes>\n")
		}
		bw.WriteString("<rde:contents>\n")
		if _, err := w.f.Seek(0, io.SeekStart); err != nil {
			out.Close()
			return err
		}
		if _, err := io.Copy(bw, w.f); err != nil {
			out.Close()
			return err
		}
		if err := bw.Flush(); err != nil {
			out.Close()
			return err
		}
		w.f.Close()
		os.Remove(w.f.Name())
		w.f = out
	}
	err := w.f.Sync()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(w.f.Name(), w.res.File)
	}
	if err != nil {
		return err
	}
	w.f = nil
	if st, err := os.Stat(w.res.File); err == nil {
		w.res.Bytes = st.Size()
	}
	w.res.Counts = w.counts
	return nil
}

func (w *writer) registrar(r registry.EscrowRegistrar) {
	w.s("<rdeRegistrar:registrar>")
	w.el("rdeRegistrar:id", clID(r.Name))
	w.el("rdeRegistrar:name", r.Name)
	status := "ok"
	if r.Revoked {
		status = "terminated"
	}
	w.el("rdeRegistrar:status", status)
	// the registry keeps no postal address of a registrar: the schema
	// requires one
	w.s(`<rdeRegistrar:postalInfo type="int"><rdeRegistrar:addr><rdeRegistrar:city>-</rdeRegistrar:city><rdeRegistrar:cc>IN</rdeRegistrar:cc></rdeRegistrar:addr></rdeRegistrar:postalInfo>`)
	email := r.Abuse.Email
	if email == "" {
		email = "-"
	}
	w.el("rdeRegistrar:email", email)
	w.el("rdeRegistrar:crDate", ts(r.Created))
	w.s("</rdeRegistrar:registrar>\n")
	w.count(nsRegistrar, "")
	if !r.Abuse.IsZero() || clID(r.Name) != r.Name {
		w.s("<akx:registrar>")
		w.el("akx:id", clID(r.Name))
		if clID(r.Name) != r.Name {
			w.el("akx:name", r.Name)
		}
		if r.Abuse.Email != "" {
			w.el("akx:abuseEmail", r.Abuse.Email)
		}
		if r.Abuse.Phone != "" {
			w.el("akx:abusePhone", r.Abuse.Phone)
		}
		w.s("</akx:registrar>\n")
		w.count(nsAkshara, "")
	}
}

// clID is a registrar's EPP client identifier in a deposit
// (eppcom:clIDType: a token of 3 to 16 characters): its name, or for a
// name that is not one, "r-" and 12 hex digits of the name's SHA-256 (the
// name itself then in akx:registrar).
func clID(name string) string {
	n := utf8.RuneCountInString(name)
	if n >= 3 && n <= 16 && !strings.ContainsFunc(name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return "r-" + hex.EncodeToString(sum[:6])
}

func (w *writer) eppParams() {
	w.s(`<rdeEppParams:eppParams><rdeEppParams:version>1.0</rdeEppParams:version><rdeEppParams:lang>en</rdeEppParams:lang>`,
		`<rdeEppParams:objURI>urn:ietf:params:xml:ns:domain-1.0</rdeEppParams:objURI><rdeEppParams:objURI>urn:ietf:params:xml:ns:host-1.0</rdeEppParams:objURI><rdeEppParams:objURI>urn:ietf:params:xml:ns:contact-1.0</rdeEppParams:objURI>`,
		`<rdeEppParams:svcExtension><epp:extURI>urn:ietf:params:xml:ns:secDNS-1.1</epp:extURI><epp:extURI>urn:ietf:params:xml:ns:rgp-1.0</epp:extURI></rdeEppParams:svcExtension>`,
		`<rdeEppParams:dcp><epp:access><epp:all/></epp:access><epp:statement><epp:purpose><epp:admin/><epp:prov/></epp:purpose><epp:recipient><epp:ours/><epp:public/></epp:recipient><epp:retention><epp:stated/></epp:retention></epp:statement></rdeEppParams:dcp>`,
		"</rdeEppParams:eppParams>\n")
	w.count(nsEppParams, "")
}

func (w *writer) contact(c *registry.Contact) {
	w.s("<rdeContact:contact>")
	w.el("rdeContact:id", c.ID)
	w.el("rdeContact:roid", "C"+strconv.FormatInt(c.ROID, 10)+"-"+roidSuffix)
	if len(c.Statuses) == 0 {
		w.s(`<rdeContact:status s="ok"/>`)
	}
	for _, s := range c.Statuses {
		w.s(`<rdeContact:status s="`, esc(s), `"/>`)
	}
	for _, p := range c.Postal {
		w.s(`<rdeContact:postalInfo type="`, esc(p.Type), `">`)
		w.el("contact:name", p.Name)
		if p.Org != "" {
			w.el("contact:org", p.Org)
		}
		w.s("<contact:addr>")
		for _, st := range p.Street {
			w.el("contact:street", st)
		}
		w.el("contact:city", p.City)
		if p.SP != "" {
			w.el("contact:sp", p.SP)
		}
		if p.PC != "" {
			w.el("contact:pc", p.PC)
		}
		w.el("contact:cc", p.CC)
		w.s("</contact:addr></rdeContact:postalInfo>")
	}
	phone := func(tag string, p *registry.Phone) {
		if p == nil {
			return
		}
		if p.Ext != "" {
			w.s("<", tag, ` x="`, esc(p.Ext), `">`, esc(p.Number), "</", tag, ">")
		} else {
			w.el(tag, p.Number)
		}
	}
	phone("rdeContact:voice", c.Voice)
	phone("rdeContact:fax", c.Fax)
	w.el("rdeContact:email", c.Email)
	w.el("rdeContact:clID", clID(c.Registrar))
	w.el("rdeContact:crRr", clID(c.Registrar))
	w.el("rdeContact:crDate", ts(c.Created))
	if !c.Updated.IsZero() {
		w.el("rdeContact:upDate", ts(c.Updated))
	}
	if d := c.Disclose; d != nil {
		flag := "0"
		if d.Flag {
			flag = "1"
		}
		w.s(`<rdeContact:disclose flag="`, flag, `">`)
		for _, kind := range []string{"name", "org", "addr"} {
			for _, typ := range []string{"int", "loc"} {
				if slices.Contains(d.Fields, kind+":"+typ) {
					w.s(`<contact:`, kind, ` type="`, typ, `"/>`)
				}
			}
		}
		for _, k := range []string{"voice", "fax", "email"} {
			if slices.Contains(d.Fields, k) {
				w.s(`<contact:`, k, `/>`)
			}
		}
		w.s("</rdeContact:disclose>")
	}
	w.s("</rdeContact:contact>\n")
	w.count(nsContact, "")
	if c.AuthHash != "" {
		w.s("<akx:contact>")
		w.el("akx:id", c.ID)
		w.el("akx:authHash", c.AuthHash)
		w.s("</akx:contact>\n")
		w.count(nsAkshara, "")
	}
}

func (w *writer) host(h *registry.Host) {
	w.s("<rdeHost:host>")
	w.el("rdeHost:name", h.Name)
	w.el("rdeHost:roid", "H"+strconv.FormatInt(h.ID, 10)+"-"+roidSuffix)
	if len(h.Statuses) == 0 {
		w.s(`<rdeHost:status s="ok"/>`)
	}
	for _, s := range h.Statuses {
		w.s(`<rdeHost:status s="`, esc(s), `"/>`)
	}
	for _, a := range h.Addrs {
		ip := "v4"
		if strings.Contains(a, ":") {
			ip = "v6"
		}
		w.s(`<rdeHost:addr ip="`, ip, `">`, esc(a), "</rdeHost:addr>")
	}
	w.el("rdeHost:clID", clID(h.Registrar))
	w.el("rdeHost:crRr", clID(h.Registrar))
	w.el("rdeHost:crDate", ts(h.Created))
	if !h.Updated.IsZero() {
		w.el("rdeHost:upDate", ts(h.Updated))
	}
	w.s("</rdeHost:host>\n")
	w.count(nsHost, "")
}

// rgpStatuses are the statuses RFC 3915 keeps (rgpStatus), not domain
// statuses.
var rgpStatuses = []string{"addPeriod", "autoRenewPeriod", "renewPeriod", "transferPeriod", "redemptionPeriod", "pendingRestore"}

func (w *writer) domain(d *registry.EscrowDomain, zoneA string) {
	w.s("<rdeDomain:domain>")
	w.el("rdeDomain:name", d.ALabel)
	w.el("rdeDomain:roid", "D"+strconv.FormatInt(d.ID, 10)+"-"+roidSuffix)
	if d.ALabel != d.Name {
		w.el("rdeDomain:uName", d.Name)
	}
	if d.Lang != "" && d.Lang != registry.LDH {
		w.el("rdeDomain:idnTableId", d.Lang)
	}
	if d.Original != "" { // a variant group's member (docs/variants.md, "Same entity")
		w.el("rdeDomain:originalName", d.Original)
	}
	var st, rgp []string
	for _, s := range d.Statuses {
		if slices.Contains(rgpStatuses, s) {
			rgp = append(rgp, s)
		} else {
			st = append(st, s)
		}
	}
	if d.Pending != nil && !slices.Contains(st, "pendingTransfer") {
		st = append(st, "pendingTransfer")
	}
	if len(st) == 0 {
		st = []string{"ok"}
	}
	for _, s := range st {
		w.s(`<rdeDomain:status s="`, esc(s), `"/>`)
	}
	for _, s := range rgp {
		w.s(`<rdeDomain:rgpStatus s="`, esc(s), `"/>`)
	}
	for _, c := range d.Contacts {
		if c.Role == "registrant" {
			w.el("rdeDomain:registrant", c.ID)
		}
	}
	for _, c := range d.Contacts {
		if c.Role != "registrant" {
			w.s(`<rdeDomain:contact type="`, esc(c.Role), `">`, esc(c.ID), "</rdeDomain:contact>")
		}
	}
	if len(d.NameServers) > 0 {
		w.s("<rdeDomain:ns>")
		for _, n := range d.NameServers {
			w.el("domain:hostObj", n)
		}
		w.s("</rdeDomain:ns>")
	}
	w.el("rdeDomain:clID", clID(d.Registrar))
	w.el("rdeDomain:crRr", clID(d.Registrar))
	w.el("rdeDomain:crDate", ts(d.Created))
	if !d.Expires.IsZero() {
		w.el("rdeDomain:exDate", ts(d.Expires))
	}
	if !d.Updated.IsZero() {
		w.el("rdeDomain:upDate", ts(d.Updated))
	}
	if len(d.DS) > 0 {
		w.s("<rdeDomain:secDNS>")
		for _, ds := range d.DS {
			w.s("<secDNS:dsData>")
			w.el("secDNS:keyTag", strconv.Itoa(ds.KeyTag))
			w.el("secDNS:alg", strconv.Itoa(ds.Algorithm))
			w.el("secDNS:digestType", strconv.Itoa(ds.DigestType))
			w.el("secDNS:digest", ds.Digest)
			w.s("</secDNS:dsData>")
		}
		w.s("</rdeDomain:secDNS>")
	}
	if !d.Transferred.IsZero() {
		w.el("rdeDomain:trDate", ts(d.Transferred))
	}
	if t := d.Pending; t != nil {
		w.s("<rdeDomain:trnData><rdeDomain:trStatus>pending</rdeDomain:trStatus>")
		w.el("rdeDomain:reRr", clID(t.Gaining))
		w.el("rdeDomain:reDate", ts(t.Requested))
		w.el("rdeDomain:acRr", clID(t.Losing))
		w.el("rdeDomain:acDate", ts(t.ActDate))
		w.s("</rdeDomain:trnData>")
	}
	w.s("</rdeDomain:domain>\n")
	w.count(nsDomain, zoneA)
	// what RFC 9022 does not carry
	w.s("<akx:domain>")
	w.el("akx:name", d.ALabel)
	if d.AuthHash != "" {
		w.el("akx:authHash", d.AuthHash)
	}
	for _, l := range d.Legacy {
		w.el("akx:legacy", l)
	}
	if d.DataVersion != "" {
		w.el("akx:dataVersion", d.DataVersion)
	}
	for _, p := range []struct {
		tag string
		t   time.Time
	}{{"akx:redemptionEnds", d.RedemptionEnds}, {"akx:purgeAt", d.PurgeAt}, {"akx:renewed", d.Renewed}, {"akx:autoRenewed", d.AutoRenewed}} {
		if !p.t.IsZero() {
			w.el(p.tag, ts(p.t))
		}
	}
	if d.Pending != nil && d.Pending.Period > 0 {
		w.el("akx:pendingPeriod", strconv.Itoa(d.Pending.Period))
	}
	for _, e := range d.ExemptWith {
		w.el("akx:exemptWith", e)
	}
	w.s("</akx:domain>\n")
	w.count(nsAkshara, "")
}

func (w *writer) nndn(label, zone, zoneA, lang, holder, state string, created time.Time) string {
	a, err := idna.Punycode.ToASCII(label)
	if err != nil {
		a = label
	}
	w.s("<rdeNNDN:NNDN>")
	w.el("rdeNNDN:aName", a+"."+zoneA)
	if u := label + "." + zone; u != a+"."+zoneA {
		w.el("rdeNNDN:uName", u)
	}
	if lang != "" && lang != registry.LDH {
		w.el("rdeNNDN:idnTableId", lang)
	}
	if holder != "" {
		w.el("rdeNNDN:originalName", holder)
	}
	w.el("rdeNNDN:nameState", state)
	w.el("rdeNNDN:crDate", ts(created))
	w.s("</rdeNNDN:NNDN>\n")
	w.count(nsNNDN, zoneA)
	return a + "." + zoneA
}

// writeReport writes the deposit's rdeReport (ICANN's registry interfaces).
func writeReport(res *Result, o Options, id string, w0 *writer) error {
	f, err := os.Create(res.Report)
	if err != nil {
		return err
	}
	w := &writer{w: bufio.NewWriter(f)}
	w.s(`<?xml version="1.0" encoding="UTF-8"?>`+"\n", `<rdeReport:report xmlns:rdeReport="urn:ietf:params:xml:ns:rdeReport-1.0" xmlns:rdeHeader="`, nsHeader, `">`)
	w.el("rdeReport:id", id)
	w.el("rdeReport:version", "1")
	w.el("rdeReport:rydeSpecEscrow", "RFC8909")
	w.el("rdeReport:rydeSpecMapping", "RFC9022")
	w.el("rdeReport:resend", strconv.Itoa(o.Resend))
	w.el("rdeReport:crDate", ts(o.Watermark))
	w.el("rdeReport:kind", o.Type)
	w.el("rdeReport:watermark", ts(o.Watermark))
	w.s("<rdeHeader:header>")
	tld := "akshara"
	if len(w0.tlds) > 0 {
		tld = w0.tlds[0]
	}
	w.el("rdeHeader:tld", tld)
	for _, u := range objURIs {
		if n := w0.counts[u]; n > 0 && u != nsHeader {
			w.s(`<rdeHeader:count uri="`, u, `">`, strconv.FormatInt(n, 10), "</rdeHeader:count>")
		}
	}
	w.s("</rdeHeader:header></rdeReport:report>\n")
	if err := w.w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

var _ = io.EOF
