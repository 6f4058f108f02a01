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

// domainPublished tells whether a domain is in the zone: only with name
// servers (the store returns only such domains), and not on hold
// (clientHold, serverHold) nor deleted (pendingDelete, redemptionPeriod):
// Domain.OnHold (lifecycle.go, docs/lifecycle.md).
func domainPublished(d *ZoneDelegation) bool {
	return len(d.NS) > 0 && !(&Domain{Statuses: d.Statuses}).OnHold()
}

// ExportZone writes the zone (U-label or A-label) as a master file: the
// SOA and the TLD's NS at the apex, then for every published domain, in
// the order of its A-label, its NS and DS records and the glue (A, AAAA)
// of the hosts under it that a published domain names. The same data
// gives the same bytes.
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
			if domainPublished(d) {
				writeDelegation(bw, d, ttl)
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

// writeDelegation writes a published domain's NS and DS records and the
// glue of the hosts under it that a published domain of the zone names,
// each kind sorted (the same data, the same bytes).
func writeDelegation(bw *bufio.Writer, d *ZoneDelegation, ttl int) {
	owner := d.Name + "."
	sort.Strings(d.NS)
	for _, h := range d.NS {
		fmt.Fprintf(bw, "%s\t%d\tIN\tNS\t%s.\n", owner, ttl, h)
	}
	sortDS(d.DS)
	for _, r := range d.DS {
		fmt.Fprintf(bw, "%s\t%d\tIN\tDS\t%d %d %d %s\n", owner, ttl, r.KeyTag, r.Algorithm, r.DigestType, r.Digest)
	}
	sort.Slice(d.Glue, func(i, j int) bool { return d.Glue[i].Name < d.Glue[j].Name })
	for _, g := range d.Glue {
		used := false
		for _, st := range g.NamedBy {
			if !(&Domain{Statuses: st}).OnHold() {
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
			fmt.Fprintf(bw, "%s.\t%d\tIN\t%s\t%s\n", g.Name, ttl, typ, a)
		}
	}
}

func fqdn(n string) string {
	n = strings.TrimSpace(n)
	if !strings.HasSuffix(n, ".") {
		n += "."
	}
	return n
}
