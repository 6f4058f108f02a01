package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/akshara-idn/akshara/registry"
)

// cmdZoneExport runs akshara zone export (issue 24 item 4).
func cmdZoneExport(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("zone export", zoneUsage, stderr)
	openStore := storeFlags(fs)
	zone := fs.String("zone", "", "the `ZONE` to export (U-label or A-label)")
	ns := fs.String("ns", "", "the zone's own name servers, comma-separated `HOSTS` (outside the zone)")
	serial := fs.Uint("serial", 1, "the SOA serial `N` (Knot's serial-policy may replace it)")
	mname := fs.String("mname", "", "the SOA MNAME `HOST` (default: the first -ns)")
	rname := fs.String("rname", "", "the SOA RNAME `MAILBOX` as a domain name (default: hostmaster.ZONE.)")
	ttl := fs.Int("ttl", 3600, "the TTL of every record, `SECONDS`")
	out := fs.String("o", "-", "write to `FILE` (atomically: a temporary file renamed) instead of standard output")
	if status, ok := parseFlags(fs, args, 0); !ok {
		return status
	}
	if *serial > 1<<32-1 {
		fmt.Fprintln(stderr, "akshara zone export: -serial is at most 4294967295 (RFC 1035: 32 bits)")
		return exitUsage
	}
	var hosts []string
	for _, h := range strings.Split(*ns, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	o := registry.ZoneExportOptions{NS: hosts, MName: *mname, RName: *rname, Serial: uint32(*serial), TTL: *ttl}
	return withService("zone export", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		if *zone == "" {
			return registry.Errorf(registry.CodeBadName, "-zone is required")
		}
		if *out == "-" {
			return svc.ExportZone(ctx, *zone, o, stdout)
		}
		f, err := os.CreateTemp(filepath.Dir(*out), ".zone-export-*")
		if err != nil {
			return err
		}
		defer os.Remove(f.Name())
		if err := svc.ExportZone(ctx, *zone, o, f); err != nil {
			f.Close()
			return err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		if err := os.Chmod(f.Name(), 0o644); err != nil {
			return err
		}
		return os.Rename(f.Name(), *out)
	})
}
