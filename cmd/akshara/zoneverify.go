package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os/exec"
	"sort"
	"strings"

	"github.com/akshara-idn/akshara/registry"
)

// akshara zone verify (issue 24): the delegations a server serves
// (AXFR, by kdig) against the ones zone export would write.

// zoneRecords are the delegation records (NS, DS, A, AAAA below the apex)
// of a zone in text, one "owner TYPE rdata" each, in a canonical form.
func zoneRecords(text, origin string) map[string]bool {
	recs := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, ";") || strings.HasPrefix(l, "$") {
			continue
		}
		f := strings.Fields(l)
		if len(f) < 5 || f[2] != "IN" {
			continue
		}
		owner, typ, rdata := strings.ToLower(f[0]), f[3], strings.Join(f[4:], " ")
		if owner == origin {
			continue
		}
		switch typ {
		case "NS":
			rdata = strings.ToLower(rdata)
		case "DS":
			rdata = strings.ToUpper(rdata)
		case "A", "AAAA":
			if ip := net.ParseIP(rdata); ip != nil {
				rdata = ip.String()
			}
		default:
			continue
		}
		recs[owner+" "+typ+" "+rdata] = true
	}
	return recs
}

// verifyZone transfers the zone from server (HOST or HOST:PORT) with kdig
// and returns the differences from the registry's delegations, sorted by
// record: "- REC" for a record the registry publishes and the server
// lacks, "+ REC" for one the server has and the registry does not.
func verifyZone(ctx context.Context, svc *registry.Service, zone, server string) ([]string, error) {
	var buf bytes.Buffer
	// the apex is not compared: any name server outside the zone will do
	if err := svc.ExportZone(ctx, zone, registry.ZoneExportOptions{NS: []string{"verify.invalid"}}, &buf); err != nil {
		return nil, err
	}
	origin := strings.ToLower(zoneFileOrigin(buf.Bytes()))
	host, port := server, "53"
	if h, p, err := net.SplitHostPort(server); err == nil {
		host, port = h, p
	}
	out, err := exec.CommandContext(ctx, "kdig", "@"+host, "-p", port, "+tcp", "-t", "AXFR", "-q", origin).CombinedOutput()
	if err != nil || bytes.Contains(out, []byte(";; ERROR")) || !bytes.Contains(out, []byte("\tSOA\t")) {
		return nil, fmt.Errorf("AXFR of %s from %s failed: %v: %s", origin, server, err, strings.TrimSpace(string(out)))
	}
	want, have := zoneRecords(buf.String(), origin), zoneRecords(string(out), origin)
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
	if status, ok := parseFlags(fs, args, 0); !ok {
		return status
	}
	if *server == "" {
		fmt.Fprintln(stderr, "akshara zone verify: -server is required")
		return exitUsage
	}
	differ := false
	code := withService("zone verify", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		if *zone == "" {
			return registry.Errorf(registry.CodeBadName, "-zone is required")
		}
		diff, err := verifyZone(ctx, svc, *zone, *server)
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
