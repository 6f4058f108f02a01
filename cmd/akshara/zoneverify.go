package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"sort"
	"strings"
	"time"

	"github.com/miekg/dns"

	"github.com/akshara-idn/akshara/registry"
)

// akshara zone verify (issue 24): the delegations a server serves (AXFR)
// against the ones zone export would write. The transfer and both sides'
// records are read by github.com/miekg/dns, in wire form: names are the
// A-labels the registry publishes, whatever the locale (issue 34: kdig
// printed U-labels under a UTF-8 locale, and every record of an IDN zone
// differed).

// tsigKey is a TSIG key (RFC 8945): its name and algorithm as domain
// names in canonical form (lower case, absolute), the secret in base64.
type tsigKey struct {
	name, alg, secret string
}

// tsigAlgs are the TSIG algorithms accepted (RFC 8945 §6: HMAC-MD5 is not).
var tsigAlgs = []string{dns.HmacSHA256, dns.HmacSHA384, dns.HmacSHA512, dns.HmacSHA224, dns.HmacSHA1}

// parseTSIG parses NAME:ALG:SECRET (transfer-key:hmac-sha256:BASE64), the
// form of the -tsig flag.
func parseTSIG(s string) (*tsigKey, error) {
	f := strings.SplitN(s, ":", 3)
	if len(f) != 3 || f[0] == "" || f[2] == "" {
		return nil, fmt.Errorf("-tsig %q: want NAME:ALG:SECRET, such as transfer-key:hmac-sha256:BASE64SECRET", s)
	}
	name := dns.CanonicalName(f[0])
	if _, ok := dns.IsDomainName(name); !ok {
		return nil, fmt.Errorf("-tsig: key name %q is not a domain name", f[0])
	}
	alg := dns.CanonicalName(f[1])
	found := false
	for _, a := range tsigAlgs {
		found = found || a == alg
	}
	if !found {
		var names []string
		for _, a := range tsigAlgs {
			names = append(names, strings.TrimSuffix(a, "."))
		}
		return nil, fmt.Errorf("-tsig: algorithm %q is not one of %s", f[1], strings.Join(names, ", "))
	}
	if b, err := base64.StdEncoding.DecodeString(f[2]); err != nil || len(b) == 0 {
		return nil, fmt.Errorf("-tsig: the secret of key %s is not base64", f[0])
	}
	return &tsigKey{name: name, alg: alg, secret: f[2]}, nil
}

// delegationRecord is rr as "owner TYPE rdata" if it is a delegation
// record (NS, DS, A, AAAA) below the apex origin, in a canonical form:
// names in lower case, DS digests in upper case, addresses in Go's text
// form.
func delegationRecord(rr dns.RR, origin string) (string, bool) {
	owner := strings.ToLower(rr.Header().Name)
	if owner == origin {
		return "", false
	}
	var typ, rdata string
	switch r := rr.(type) {
	case *dns.NS:
		typ, rdata = "NS", strings.ToLower(r.Ns)
	case *dns.DS:
		typ, rdata = "DS", fmt.Sprintf("%d %d %d %s", r.KeyTag, r.Algorithm, r.DigestType, strings.ToUpper(r.Digest))
	case *dns.A:
		typ, rdata = "A", r.A.String()
	case *dns.AAAA:
		typ, rdata = "AAAA", r.AAAA.String()
	default:
		return "", false
	}
	return owner + " " + typ + " " + rdata, true
}

// exportedRecords are the delegation records of a master file zone
// export wrote, read by miekg/dns's zone parser.
func exportedRecords(zone []byte, origin string) (map[string]bool, error) {
	recs := map[string]bool{}
	zp := dns.NewZoneParser(bytes.NewReader(zone), origin, "")
	zp.SetIncludeAllowed(false)
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		if r, ok := delegationRecord(rr, origin); ok {
			recs[r] = true
		}
	}
	if err := zp.Err(); err != nil {
		return nil, fmt.Errorf("reading the registry's zone: %w", err)
	}
	return recs, nil
}

// registryRecords are the zone's origin (canonical, absolute) and the
// delegation records zone export writes now.
func registryRecords(ctx context.Context, svc *registry.Service, zone string) (string, map[string]bool, error) {
	var buf bytes.Buffer
	// the apex is not compared: any name server outside the zone will do
	if err := svc.ExportZone(ctx, zone, registry.ZoneExportOptions{NS: []string{"verify.invalid"}}, &buf); err != nil {
		return "", nil, err
	}
	origin := dns.CanonicalName(zoneFileOrigin(buf.Bytes()))
	recs, err := exportedRecords(buf.Bytes(), origin)
	return origin, recs, err
}

// transferRecords transfers the zone origin from addr (HOST:PORT) by AXFR
// over TCP, signed with key if not nil, and returns its delegation
// records. The transfer must be whole: from the SOA to the SOA.
func transferRecords(ctx context.Context, addr, origin string, key *tsigKey) (map[string]bool, error) {
	conn, err := (&net.Dialer{Timeout: 10 * time.Second}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	tr := &dns.Transfer{Conn: &dns.Conn{Conn: conn}, ReadTimeout: 30 * time.Second, WriteTimeout: 10 * time.Second}
	m := new(dns.Msg)
	m.SetAxfr(origin)
	if key != nil {
		tr.TsigSecret = map[string]string{key.name: key.secret}
		m.SetTsig(key.name, key.alg, 300, time.Now().Unix())
	}
	env, err := tr.In(m, addr)
	if err != nil {
		conn.Close()
		return nil, err
	}
	recs := map[string]bool{}
	soas := 0
	var ferr error
	for e := range env { // read to the end: the channel closes with the connection
		if e.Error != nil {
			if ferr == nil {
				ferr = e.Error
			}
			continue
		}
		for _, rr := range e.RR {
			if rr.Header().Rrtype == dns.TypeSOA && strings.ToLower(rr.Header().Name) == origin {
				soas++
			}
			if r, ok := delegationRecord(rr, origin); ok {
				recs[r] = true
			}
		}
	}
	if ferr == nil && ctx.Err() != nil {
		ferr = ctx.Err()
	}
	if ferr == nil && soas < 2 {
		ferr = fmt.Errorf("the transfer ended before the closing SOA")
	}
	return recs, ferr
}

// verifyZone transfers the zone from server (HOST or HOST:PORT, port 53
// by default), with the TSIG key if not nil, and returns the differences
// from the registry's delegations, sorted by record: "- REC" for a
// record the registry publishes and the server lacks, "+ REC" for one the
// server has and the registry does not.
func verifyZone(ctx context.Context, svc *registry.Service, zone, server string, key *tsigKey) ([]string, error) {
	origin, want, err := registryRecords(ctx, svc, zone)
	if err != nil {
		return nil, err
	}
	addr := server
	if _, _, err := net.SplitHostPort(server); err != nil {
		addr = net.JoinHostPort(strings.Trim(server, "[]"), "53")
	}
	have, err := transferRecords(ctx, addr, origin, key)
	if err != nil {
		return nil, fmt.Errorf("AXFR of %s from %s failed: %w", origin, server, err)
	}
	var diff []string
	for r := range want {
		if !have[r] {
			diff = append(diff, "- "+r)
		}
	}
	for r := range have {
		if !want[r] {
			diff = append(diff, "+ "+r)
		}
	}
	sort.Slice(diff, func(i, j int) bool {
		if diff[i][2:] != diff[j][2:] {
			return diff[i][2:] < diff[j][2:]
		}
		return diff[i] < diff[j]
	})
	return diff, nil
}

// cmdZoneVerify runs akshara zone verify.
func cmdZoneVerify(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("zone verify", zoneUsage, stderr)
	openStore := storeFlags(fs)
	zone := fs.String("zone", "", "the `ZONE` to verify (U-label or A-label)")
	server := fs.String("server", "", "the name server to transfer the zone from, `HOST[:PORT]` (it must allow AXFR to this host)")
	tsig := fs.String("tsig", "", "sign the transfer with the TSIG key `NAME:ALG:SECRET` (ALG hmac-sha256, hmac-sha384, hmac-sha512, hmac-sha224 or hmac-sha1; SECRET in base64)")
	if status, ok := parseFlags(fs, args, 0); !ok {
		return status
	}
	if *server == "" {
		fmt.Fprintln(stderr, "akshara zone verify: -server is required")
		return exitUsage
	}
	var key *tsigKey
	if *tsig != "" {
		var err error
		if key, err = parseTSIG(*tsig); err != nil {
			fmt.Fprintf(stderr, "akshara zone verify: %v\n", err)
			return exitUsage
		}
	}
	differ := false
	code := withService("zone verify", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		if *zone == "" {
			return registry.Errorf(registry.CodeBadName, "-zone is required")
		}
		diff, err := verifyZone(ctx, svc, *zone, *server, key)
		if err != nil {
			return err
		}
		for _, d := range diff {
			fmt.Fprintln(stdout, d)
		}
		differ = len(diff) > 0
		return nil
	})
	if code == exitOK && differ {
		fmt.Fprintf(stderr, "akshara zone verify: %s serves other delegations than the registry (- the registry's, + the server's)\n", *server)
		return exitInvalid
	}
	return code
}
