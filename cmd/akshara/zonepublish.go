package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// akshara zone publish (issue 24): the zone written atomically to the
// file Knot DNS serves, then Knot asked to reload it (docs/delegation.md,
// "Publishing to Knot DNS").

// errPublishGuard is the change guard's refusal.
var errPublishGuard = errors.New("change guard")

// publishOptions are what zone publish does besides the export.
type publishOptions struct {
	Out     string             // the zone file Knot reads
	MaxDrop float64            // the share of the old file's delegations that may go, 0..1
	Force   bool               // publish whatever the guard says
	Reload  func(string) error // called with the zone's A-label after the rename; nil for none
	Now     func() time.Time   // the serial's clock (the CLI's, not the registry's)
}

// publishZone writes the zone to o.Out with a serial above the one of the
// file it replaces (the unix time, or the old serial + 1 if that is not
// larger), refuses when the new file has fewer than (1 - MaxDrop) of the
// old file's delegations (unless Force), renames it into place and calls
// Reload. It returns the serial and the old and new delegation counts.
// Neither file is held in memory: the export streams into a temporary
// file beside o.Out, and both files are read line by line to count.
func publishZone(ctx context.Context, svc *registry.Service, zone string, eo registry.ZoneExportOptions, o publishOptions) (serial uint32, oldN, newN int, err error) {
	var old zoneFileSummary
	if f, err := os.Open(o.Out); err == nil {
		old, err = scanZoneFile(f)
		f.Close()
		if err != nil {
			return 0, 0, 0, fmt.Errorf("reading %s: %w", o.Out, err)
		}
	} else if !os.IsNotExist(err) {
		return 0, 0, 0, err
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	serial = uint32(now().Unix())
	if old.hasSerial && old.serial >= serial {
		serial = old.serial + 1
	}
	eo.Serial = serial
	// where the DNS outbox stands: what it holds now, the export covers
	mark, err := svc.MarkDNS(ctx, zone)
	if err != nil {
		return 0, 0, 0, err
	}
	f, err := os.CreateTemp(filepath.Dir(o.Out), ".zone-export-*")
	if err != nil {
		return 0, 0, 0, err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after the rename, nothing is there
	if err := svc.ExportZone(ctx, zone, eo, f); err != nil {
		f.Close()
		return 0, 0, 0, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return 0, 0, 0, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return 0, 0, 0, err
	}
	cur, err := scanZoneFile(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, 0, 0, err
	}
	oldN, newN = old.delegations, cur.delegations
	if !o.Force && oldN > 0 && float64(newN) < float64(oldN)*(1-o.MaxDrop) {
		return serial, oldN, newN, fmt.Errorf("%w: the new zone has %d delegations, the file it would replace %d: more than %.0f%% would go; nothing published (check the registry, or -force)", errPublishGuard, newN, oldN, o.MaxDrop*100)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return serial, oldN, newN, err
	}
	if err := os.Rename(tmp, o.Out); err != nil {
		return serial, oldN, newN, err
	}
	if o.Reload != nil {
		if err := o.Reload(strings.TrimSuffix(cur.origin, ".")); err != nil {
			return serial, oldN, newN, fmt.Errorf("the zone file is written, the reload failed: %w", err)
		}
	}
	// the outbox's rows the file covers go (docs/delegation.md,
	// Continuous publication): without a publisher, nothing else
	// deletes them
	if _, err := svc.PruneDNS(ctx, mark); err != nil {
		return serial, oldN, newN, fmt.Errorf("the zone is published; pruning the DNS outbox failed: %w", err)
	}
	return serial, oldN, newN, nil
}

// zoneFileSummary is what publish and verify read of a zone file.
type zoneFileSummary struct {
	origin      string // $ORIGIN
	serial      uint32 // the SOA's
	hasSerial   bool
	delegations int // delegated names: owners of NS records other than the apex
}

// scanZoneFile reads a file zone export wrote, a line at a time. The
// delegations are counted as runs of NS records of one owner (the export
// writes a name's records together, sorted by name).
func scanZoneFile(r io.Reader) (zoneFileSummary, error) {
	var z zoneFileSummary
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	last := ""
	for sc.Scan() {
		l := sc.Text()
		if o, ok := strings.CutPrefix(l, "$ORIGIN "); ok && z.origin == "" {
			z.origin = strings.TrimSpace(o)
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) != 5 {
			continue
		}
		switch f[3] {
		case "SOA":
			if r := strings.Fields(f[4]); len(r) >= 3 && !z.hasSerial {
				s, err := strconv.ParseUint(r[2], 10, 32)
				z.serial, z.hasSerial = uint32(s), err == nil
			}
		case "NS":
			if f[0] != z.origin && f[0] != last {
				z.delegations++
				last = f[0]
			}
		}
	}
	return z, sc.Err()
}

// zoneFileOrigin is the $ORIGIN of a file zone export wrote.
func zoneFileOrigin(b []byte) string {
	z, _ := scanZoneFile(bytes.NewReader(b))
	return z.origin
}

// zoneFileSerial is the SOA serial of a file zone export wrote.
func zoneFileSerial(b []byte) (uint32, bool) {
	z, _ := scanZoneFile(bytes.NewReader(b))
	return z.serial, z.hasSerial
}

// cmdZonePublish runs akshara zone publish.
func cmdZonePublish(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("zone publish", zoneUsage, stderr)
	openStore := storeFlags(fs)
	zone := fs.String("zone", "", "the `ZONE` to publish (U-label or A-label)")
	ns := fs.String("ns", "", "the zone's own name servers, comma-separated `HOSTS` (outside the zone)")
	mname := fs.String("mname", "", "the SOA MNAME `HOST` (default: the first -ns)")
	rname := fs.String("rname", "", "the SOA RNAME `MAILBOX` as a domain name (default: hostmaster.ZONE.)")
	ttl := fs.Int("ttl", 3600, "the TTL of every record, `SECONDS`")
	out := fs.String("o", "", "the zone `FILE` Knot serves (written atomically: a temporary file renamed)")
	socket := fs.String("knotc", "", "reload with knotc -s `SOCKET` -b zone-reload ZONE")
	reload := fs.String("reload", "", "reload with the shell `COMMAND` (the zone's A-label in $ZONE) instead of -knotc")
	maxDrop := fs.Float64("max-drop", 10, "refuse when more than `PERCENT` of the old file's delegations would go")
	force := fs.Bool("force", false, "publish whatever the change guard says")
	knotConf := fs.String("knot-conf", "", "also write a Knot configuration `FILE` for continuous publication (knotconf.go; docs/delegation.md)")
	knotListen := fs.String("knot-listen", "0.0.0.0@53,::@53", "with -knot-conf: Knot's listen `ADDR@PORT,...`")
	knotStorage := fs.String("knot-storage", "/var/lib/knot", "with -knot-conf: Knot's database `DIR`")
	knotRundir := fs.String("knot-rundir", "/run/knot", "with -knot-conf: Knot's run `DIR` (its control socket)")
	updateTSIG := fs.String("dns-tsig", "", "with -knot-conf: the publisher's TSIG key `NAME:ALG:SECRET` (UPDATEs allowed with it)")
	updateFrom := fs.String("knot-update-from", "127.0.0.1,::1", "with -knot-conf: the publisher's `ADDRS`")
	transferTSIG := fs.String("knot-transfer-tsig", "", "with -knot-conf: the secondaries' TSIG key `NAME:ALG:SECRET` (transfers, NOTIFY)")
	secondaries := fs.String("knot-secondary", "", "with -knot-conf: the secondaries `ADDR@PORT,...` (NOTIFY, IXFR)")
	nsec3 := fs.Bool("knot-nsec3", false, "with -knot-conf: NSEC3 with opt-out (RFC 9276) instead of NSEC")
	journalMaxUsage := fs.String("knot-journal-max", "4G", "with -knot-conf: Knot's journal-max-usage `SIZE` (it holds the signed zone and its history)")
	if status, ok := parseFlags(fs, args, 0); !ok {
		return status
	}
	var kc *knotConfig
	if *knotConf != "" {
		kc = &knotConfig{File: *out, Storage: *knotStorage, Rundir: *knotRundir, NSEC3: *nsec3, JournalMax: *journalMaxUsage}
		for _, l := range strings.Split(*knotListen, ",") {
			if l = strings.TrimSpace(l); l != "" {
				kc.Listen = append(kc.Listen, l)
			}
		}
		for _, a := range strings.Split(*updateFrom, ",") {
			if a = strings.TrimSpace(a); a != "" {
				kc.UpdateFrom = append(kc.UpdateFrom, a)
			}
		}
		var err error
		if *updateTSIG == "" {
			fmt.Fprintln(stderr, "akshara zone publish: -knot-conf needs -dns-tsig NAME:ALG:SECRET (the publisher's key)")
			return exitUsage
		}
		if kc.UpdateKey, err = parseTSIG(*updateTSIG); err == nil && *transferTSIG != "" {
			kc.TransferKey, err = parseTSIG(*transferTSIG)
		}
		if err == nil {
			kc.Secondaries, err = parseSecondaries(*secondaries)
		}
		if err != nil {
			fmt.Fprintf(stderr, "akshara zone publish: %v\n", err)
			return exitUsage
		}
	}
	if *out == "" || *maxDrop < 0 || *maxDrop > 100 || (*socket != "" && *reload != "") {
		fmt.Fprintln(stderr, "akshara zone publish: -o FILE is required, -max-drop is 0 to 100, and -knotc and -reload exclude each other")
		return exitUsage
	}
	var hosts []string
	for _, h := range strings.Split(*ns, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	po := publishOptions{Out: *out, MaxDrop: *maxDrop / 100, Force: *force}
	switch {
	case *socket != "":
		po.Reload = func(z string) error { return runReload(exec.Command("knotc", "-s", *socket, "-b", "zone-reload", z)) }
	case *reload != "":
		po.Reload = func(z string) error {
			c := exec.Command("sh", "-c", *reload)
			c.Env = append(os.Environ(), "ZONE="+z)
			return runReload(c)
		}
	}
	eo := registry.ZoneExportOptions{NS: hosts, MName: *mname, RName: *rname, TTL: *ttl}
	guard := false
	code := withService("zone publish", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		if *zone == "" {
			return registry.Errorf(registry.CodeBadName, "-zone is required")
		}
		if kc != nil { // the Knot configuration first: Knot is started on it after the file is written
			_, origin, err := svc.ZoneOrigin(*zone)
			if err != nil {
				return err
			}
			kc.Zone = strings.TrimSuffix(origin, ".")
			if err := writeFileAtomic(*knotConf, []byte(kc.String())); err != nil {
				return err
			}
		}
		serial, oldN, newN, err := publishZone(ctx, svc, *zone, eo, po)
		if errors.Is(err, errPublishGuard) {
			guard = true
		}
		if err == nil {
			fmt.Fprintf(stdout, "published %s serial %d: %d delegations (were %d)\n", *out, serial, newN, oldN)
		}
		return err
	})
	if guard {
		return exitInvalid
	}
	return code
}

// runReload runs a reload command, its output in the error.
func runReload(c *exec.Cmd) error {
	if b, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v: %s", strings.Join(c.Args, " "), err, strings.TrimSpace(string(b)))
	}
	return nil
}
