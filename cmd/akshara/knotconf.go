package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// knotConfig is a Knot DNS configuration for the hidden primary of
// continuous publication (docs/delegation.md, "Continuous publication"),
// which akshara zone publish -knot-conf writes and the tests run: the
// zone loaded from zone publish's file, then changed by the publisher's
// UPDATEs (an ACL with its TSIG key), signed incrementally, kept in
// Knot's journal (changes and contents: a restart loads the zone from
// the journal, and a later zone publish is applied as a difference), and
// sent on to the secondaries by NOTIFY and IXFR (their TSIG key).
type knotConfig struct {
	Zone        string   // the zone's A-label, no final dot
	File        string   // zone publish's -o
	Storage     string   // Knot's database (journal, keys, timers)
	Rundir      string   // its control socket's directory
	Listen      []string // ADDR@PORT
	UpdateKey   *tsigKey // the publisher's
	UpdateFrom  []string // the publisher's addresses
	TransferKey *tsigKey // the secondaries' (transfers and NOTIFY)
	Secondaries []string // ADDR@PORT: NOTIFY sent, transfers allowed
	NSEC3       bool     // NSEC3 with opt-out (RFC 9276: no iterations, no salt)
	JournalMax  string   // journal-max-usage: the zone and its history; "" for 4G
	LogLevel    string   // "" for info
}

func keyID(k *tsigKey) string { return strings.TrimSuffix(k.name, ".") }

// String is the configuration file's text.
func (c knotConfig) String() string {
	var b strings.Builder
	list := func(l []string) string { return "[ " + strings.Join(l, ", ") + " ]" }
	fmt.Fprintf(&b, "# Knot DNS: the hidden primary of zone %s, published continuously by akshara\n", c.Zone)
	fmt.Fprintf(&b, "# (akshara serve -dns-update or akshara zone follow; docs/delegation.md)\n")
	fmt.Fprintf(&b, "server:\n    listen: %s\n    rundir: %s\n", list(c.Listen), c.Rundir)
	fmt.Fprintf(&b, "database:\n    storage: %s\n", c.Storage)
	var keys []*tsigKey
	if c.UpdateKey != nil {
		keys = append(keys, c.UpdateKey)
	}
	if c.TransferKey != nil && (c.UpdateKey == nil || c.TransferKey.name != c.UpdateKey.name) {
		keys = append(keys, c.TransferKey)
	}
	if len(keys) > 0 {
		b.WriteString("key:\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "  - id: %s\n    algorithm: %s\n    secret: %s\n", keyID(k), strings.TrimSuffix(k.alg, "."), k.secret)
		}
	}
	var remotes, addrs []string
	if len(c.Secondaries) > 0 {
		b.WriteString("remote:\n")
		for i, s := range c.Secondaries {
			id := fmt.Sprintf("secondary%d", i+1)
			remotes = append(remotes, id)
			fmt.Fprintf(&b, "  - id: %s\n    address: %s\n", id, s)
			if c.TransferKey != nil {
				fmt.Fprintf(&b, "    key: %s\n", keyID(c.TransferKey))
			}
			a, _, _ := strings.Cut(s, "@")
			addrs = append(addrs, a)
		}
	}
	b.WriteString("acl:\n")
	from := c.UpdateFrom
	if len(from) == 0 {
		from = []string{"127.0.0.1", "::1"}
	}
	fmt.Fprintf(&b, "  - id: publisher\n    address: %s\n", list(from))
	if c.UpdateKey != nil {
		fmt.Fprintf(&b, "    key: %s\n", keyID(c.UpdateKey))
	}
	b.WriteString("    action: update\n")
	acls := []string{"publisher"}
	if len(addrs) > 0 {
		fmt.Fprintf(&b, "  - id: secondaries\n    address: %s\n", list(addrs))
		if c.TransferKey != nil {
			fmt.Fprintf(&b, "    key: %s\n", keyID(c.TransferKey))
		}
		b.WriteString("    action: transfer\n")
		acls = append(acls, "secondaries")
	}
	nsec3 := "off"
	if c.NSEC3 {
		nsec3 = "on\n    nsec3-opt-out: on\n    nsec3-iterations: 0\n    nsec3-salt-length: 0"
	}
	fmt.Fprintf(&b, "policy:\n  - id: tld\n    algorithm: ecdsap256sha256\n    nsec3: %s\n", nsec3)
	fmt.Fprintf(&b, `zone:
  - domain: %s
    file: %s
    # loaded once from akshara zone publish's file; later publishes of the
    # file are applied as a difference, the serial Knot's
    zonefile-load: difference-no-serial
    # the UPDATEs' changes and the zone itself live in the journal (a
    # restart loads it from there); the file is never written back
    journal-content: all
    # the journal holds the signed zone itself: Knot's 100M default does
    # not hold a large zone (a 1 M delegation zone is refused, unloaded)
    journal-max-usage: %s
    zonefile-sync: -1
    serial-policy: increment
    dnssec-signing: on
    dnssec-policy: tld
    acl: %s
`, c.Zone, c.File, journalMax(c.JournalMax), list(acls))
	if len(remotes) > 0 {
		fmt.Fprintf(&b, "    notify: %s\n", list(remotes))
	}
	lvl := c.LogLevel
	if lvl == "" {
		lvl = "info"
	}
	fmt.Fprintf(&b, "log:\n  - target: stderr\n    any: %s\n", lvl)
	return b.String()
}

// parseSecondaries parses -knot-secondary ADDR@PORT,... (ADDR alone: port 53).
func parseSecondaries(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		a, port, ok := strings.Cut(f, "@")
		if !ok {
			port = "53"
		}
		if net.ParseIP(a) == nil {
			return nil, fmt.Errorf("-knot-secondary %q: want ADDR@PORT with an IP address", f)
		}
		out = append(out, a+"@"+port)
	}
	return out, nil
}

// writeFileAtomic writes b to a temporary file beside name and renames it
// over name.
func writeFileAtomic(name string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(name), ".knot-conf-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o640); err != nil { // it holds the TSIG secrets
		return err
	}
	return os.Rename(f.Name(), name)
}

func journalMax(s string) string {
	if s == "" {
		return "4G"
	}
	return s
}
