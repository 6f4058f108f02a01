package registry

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
)

// The zone as an RFC 1035 master file (akshara zone export;
// docs/delegation.md, "Zone export").

// ZoneExportOptions are what the registry does not store about a zone's
// apex: its SOA and its own name servers.
type ZoneExportOptions struct {
	NS     []string // the TLD's own name servers (host names, outside the zone); at least one
	MName  string   // SOA MNAME; "" for the first of NS
	RName  string   // SOA RNAME as a domain name (hostmaster.example.); "" for hostmaster.ZONE.
	Serial uint32   // SOA serial; 0 for 1 (Knot's serial-policy may replace it)
	TTL    int      // TTL of every record; 0 for 3600
	// PageSize is how many domains are read at once; 0 for ZonePageSize.
	// The file does not depend on it.
	PageSize int
}

// domainPublished tells whether a domain is in the zone: with name
// servers to publish (publishedNS: the store returns every domain of the
// zone), and not on hold (clientHold, serverHold) nor deleted
// (pendingDelete, redemptionPeriod): Domain.OnHold (lifecycle.go,
// docs/lifecycle.md).
func domainPublished(d *ZoneDelegation) bool {
	return len(d.NS) > 0 && !withdrawn(d.Statuses)
}

// withdrawn tells whether a domain with these stored statuses is
// withdrawn from the DNS (on hold or deleted: Domain.OnHold). Nothing
// under it is published: not its delegation, not the addresses of the
// hosts under it, not an NS record naming one of them
// (docs/delegation.md, "Name servers under a domain that is not
// published").
func withdrawn(statuses []string) bool {
	return (&Domain{Statuses: statuses}).OnHold()
}

// ZoneNSHost is a name server of a domain that is a host under a domain
// of the registry (its superordinate domain, RFC 5732 §1.1), in any
// zone: what the export judges it by.
type ZoneNSHost struct {
	Name     string   // the host, A-label form: one of ZoneDelegation.NS
	Zone     string   // the zone of the host's domain (its name, as Zone.Name)
	Statuses []string // the stored statuses of the host's domain
	Addrs    bool     // the host has addresses
}

// publishedNS are the name servers of d the zone publishes: not a host
// under a withdrawn domain of any zone (its name resolves nowhere, and
// the zone carries no address for it), nor a host inside the zone
// without an address (the zone would name a server it has no address
// for: kzonecheck's "missing glue"). Every other host inside the zone
// has its addresses written (glue, or the zone's own records when its
// domain is not delegated: writeGlue), so no NS record of the file names
// a server inside the zone whose address the file lacks.
func publishedNS(d *ZoneDelegation, zoneName, origin string) []string {
	if len(d.NS) == 0 {
		return d.NS
	}
	under := make(map[string]*ZoneNSHost, len(d.NSUnder))
	for i := range d.NSUnder {
		under[d.NSUnder[i].Name] = &d.NSUnder[i]
	}
	kept := d.NS[:0:0]
	for _, h := range d.NS {
		inZone := strings.HasSuffix(h+".", "."+origin)
		if u := under[h]; u != nil {
			if withdrawn(u.Statuses) || (u.Zone == zoneName && !u.Addrs) {
				continue
			}
		} else if inZone {
			continue // inside the zone under no domain: no address to publish
		}
		kept = append(kept, h)
	}
	return kept
}

// ExportZone writes the zone (U-label or A-label) as a master file: the
// SOA and the TLD's NS at the apex, then for every published domain, in
// the order of its A-label, its NS and DS records and the glue (A, AAAA)
// of the hosts under it that a published domain names; and for a domain
// without name servers that is not withdrawn, the addresses of such
// hosts under it. An NS record naming a host under a withdrawn domain,
// or a host inside the zone without an address, is left out
// (publishedNS). The same data gives the same bytes.
func (s *Service) ExportZone(ctx context.Context, zone string, o ZoneExportOptions, w io.Writer) error {
	z := s.exact[zone]
	if z == nil {
		z = s.zones[zoneKey(strings.TrimSuffix(zone, "."))]
	}
	if z == nil {
		return Errorf(CodeUnknownZone, "there is no zone %q", zone)
	}
	if len(o.NS) == 0 {
		return Errorf(CodeBadName, "the zone's own name servers are required (akshara zone export -ns)")
	}
	origin := z.ALabel + "."
	var ns []string
	for _, n := range o.NS {
		a, err := hostIDNA.ToASCII(strings.ToLower(strings.TrimSuffix(strings.TrimSpace(n), ".")))
		if err != nil || !strings.Contains(a, ".") {
			return Errorf(CodeBadName, "name server %q is not a host name", n)
		}
		if a+"." == origin || strings.HasSuffix(a+".", "."+origin) {
			return Errorf(CodeHostPolicy, "name server %s is inside the zone: give the zone's name servers outside it (their glue is not exported)", a)
		}
		ns = append(ns, a+".")
	}
	mname := ns[0]
	if o.MName != "" {
		mname = fqdn(o.MName)
	}
	rname := "hostmaster." + origin
	if o.RName != "" {
		rname = fqdn(o.RName)
	}
	serial := o.Serial
	if serial == 0 {
		serial = 1
	}
	ttl := o.TTL
	if ttl <= 0 {
		ttl = 3600
	}
	ds, err := s.delegationStore()
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "; zone %s (%s), written by akshara zone export\n", z.Name, origin)
	fmt.Fprintf(bw, "$ORIGIN %s\n$TTL %d\n", origin, ttl)
	fmt.Fprintf(bw, "%s\t%d\tIN\tSOA\t%s %s %d 1800 900 604800 %d\n", origin, ttl, mname, rname, serial, ttl)
	for _, n := range ns {
		fmt.Fprintf(bw, "%s\t%d\tIN\tNS\t%s\n", origin, ttl, n)
	}
	// the delegations page by page, in the byte order of the A-labels
	// (the store's), so that memory holds one page, not the zone
	size := o.PageSize
	if size <= 0 {
		size = ZonePageSize
	}
	after := ""
	var recs []ZoneRecord
	for {
		page, err := ds.ZonePage(ctx, z.Name, after, size)
		if err != nil {
			return err
		}
		for i := range page {
			d := &page[i]
			if d.Name <= after {
				return Errorf(CodeInternal, "zone export: the store returned %s after %s: not in byte order", d.Name, after)
			}
			after = d.Name
			recs = delegationRecords(recs[:0], d, z.Name, origin)
			for _, r := range recs {
				fmt.Fprintf(bw, "%s\t%d\tIN\t%s\t%s\n", r.Owner, ttl, r.Type, r.Data)
			}
		}
		if len(page) < size {
			break
		}
	}
	return bw.Flush()
}

// ZonePageSize is how many domains the export reads at once.
const ZonePageSize = 1000

// delegationRecords appends to recs the records the zone publishes of
// the domain d (a page's, as the store reads it) and the hosts under it:
// the one rendering of a domain, the export's and OwnerRecords'. A
// published domain's NS and DS records and the glue under it; a domain
// without name servers to publish that is not withdrawn, the addresses of
// its hosts that a published domain names (the zone's own records); a
// withdrawn one, nothing. An NS record naming a host under a withdrawn
// domain, or a host inside the zone without an address, is left out
// (publishedNS). Each kind is sorted: the same data, the same records.
func delegationRecords(recs []ZoneRecord, d *ZoneDelegation, zoneName, origin string) []ZoneRecord {
	d.NS = publishedNS(d, zoneName, origin)
	switch {
	case domainPublished(d):
		recs = appendDelegation(recs, d)
		recs = appendGlue(recs, d)
	case !withdrawn(d.Statuses):
		// not delegated (no name servers to publish), not withdrawn: the
		// addresses of its hosts that a published domain names are the
		// zone's own records
		recs = appendGlue(recs, d)
	}
	return recs
}

// appendDelegation appends a published domain's NS and DS records, each
// kind sorted (the same data, the same bytes).
func appendDelegation(recs []ZoneRecord, d *ZoneDelegation) []ZoneRecord {
	owner := d.Name + "."
	sort.Strings(d.NS)
	for _, h := range d.NS {
		recs = append(recs, ZoneRecord{owner, "NS", h + "."})
	}
	SortDS(d.DS)
	for _, r := range d.DS {
		recs = append(recs, ZoneRecord{owner, "DS", fmt.Sprintf("%d %d %d %s", r.KeyTag, r.Algorithm, r.DigestType, r.Digest)})
	}
	return recs
}

// appendGlue appends the addresses (A, AAAA) of the hosts under a domain
// that is not withdrawn which a published domain of the zone names,
// sorted by host, then address: glue below the domain's delegation when
// it is published, the zone's own records when it has no name servers.
// A domain naming such a host publishes that NS (publishedNS: the host's
// domain is not withdrawn and the host has addresses), so a namer that
// is not withdrawn is published.
func appendGlue(recs []ZoneRecord, d *ZoneDelegation) []ZoneRecord {
	sort.Slice(d.Glue, func(i, j int) bool { return d.Glue[i].Name < d.Glue[j].Name })
	for _, g := range d.Glue {
		used := false
		for _, st := range g.NamedBy {
			if !withdrawn(st) {
				used = true
				break
			}
		}
		if !used {
			continue
		}
		sort.Strings(g.Addrs)
		for _, a := range g.Addrs {
			typ := "A"
			if strings.Contains(a, ":") {
				typ = "AAAA"
			}
			recs = append(recs, ZoneRecord{g.Name + ".", typ, a})
		}
	}
	return recs
}

func fqdn(n string) string {
	n = strings.TrimSpace(n)
	if !strings.HasSuffix(n, ".") {
		n += "."
	}
	return n
}
