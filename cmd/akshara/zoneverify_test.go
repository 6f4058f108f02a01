package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/sqlite"
)

// testTSIG is the TSIG key of the tests (a secret of 32 bytes in base64).
const testTSIG = "xfr-key:hmac-sha256:c2VjcmV0LW9mLXRoZS16b25lLXZlcmlmeS10ZXN0cyE="

// TestKnotVerifyIDN (issue 34): zone verify of an IDN zone, भारत
// (xn--h2brj9c), published to a real knotd and transferred back under a
// UTF-8 locale (LANG and LC_ALL C.UTF-8, Debian's default), where kdig
// prints U-labels: no difference, by U-label and by A-label, over the
// library and the CLI; a change not yet published is listed in A-labels.
// The transfer is signed by TSIG: Knot allows it only with the key, so
// verify without it, or with another secret, fails (exit 2). A host
// under a domain without name servers, named by a published domain, is
// answered by Knot with its address.
func TestKnotVerifyIDN(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db := filepath.Join(dir, "r.db")
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{Clock: registry.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), ContactsExempt: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := svc.AddRegistrar(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"किताब.भारत", "कमल.भारत", "नदी.भारत", "गगन.भारत"} {
		if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: n, Lang: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	// ns1.गगन.भारत is under a domain without name servers (not
	// delegated): named by कमल.भारत, its address is the zone's own record
	for h, addrs := range map[string][]registry.Addr{"ns1.किताब.भारत": {{IP: "8.8.8.8"}, {IP: "2001:4860:4860::8888"}}, "ns1.गगन.भारत": {{IP: "9.9.9.9"}}, "ns.example.net": nil} {
		if _, err := svc.CreateHost(ctx, r, registry.HostCreate{Name: h, Addrs: addrs}); err != nil {
			t.Fatal(err)
		}
	}
	for n, d := range map[string]registry.Delegation{
		"किताब.भारत": {AddNS: []string{"ns1.किताब.भारत", "ns.example.net"}, AddDS: []registry.DS{{KeyTag: 12345, Algorithm: 13, DigestType: 2, Digest: knotDigest}}},
		"कमल.भारत":   {AddNS: []string{"ns1.किताब.भारत", "ns1.गगन.भारत"}},
		"नदी.भारत":   {AddNS: []string{"ns.example.net"}},
	} {
		if _, err := svc.UpdateDomain(ctx, r, registry.DomainUpdate{Name: n, AddNS: d.AddNS, AddDS: d.AddDS}); err != nil {
			t.Fatal(err)
		}
	}
	key, err := parseTSIG(testTSIG)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := publishZone(ctx, svc, "भारत", registry.ZoneExportOptions{NS: []string{"a.nic.example.org"}}, publishOptions{Out: filepath.Join(dir, "xn--h2brj9c.zone")}); err != nil {
		t.Fatal(err)
	}
	k := startKnotZone(t, dir, "xn--h2brj9c", key)
	server := fmt.Sprintf("127.0.0.1:%d", k.port)
	// Knot answers for the host of the undelegated domain (issue 34: it
	// answered NXDOMAIN, and kzonecheck said "missing glue" of the file)
	gagan, err := svc.Info(ctx, "गगन.भारत")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := k.query(t, "ns1."+gagan.ALabel, "A", false), "ns1."+gagan.ALabel+". A 9.9.9.9"; !strings.Contains(got, want) {
		t.Errorf("ns1.गगन.भारत A from Knot: %q, want %q", got, want)
	}
	t.Setenv("LANG", "C.UTF-8")
	t.Setenv("LC_ALL", "C.UTF-8")
	// what made the old verify fail: kdig, under this locale, names the
	// zone's records by their U-labels
	if out, err := exec.Command("kdig", "@127.0.0.1", "-p", fmt.Sprint(k.port), "-y", "hmac-sha256:xfr-key:c2VjcmV0LW9mLXRoZS16b25lLXZlcmlmeS10ZXN0cyE=", "-t", "AXFR", "-q", "xn--h2brj9c.").CombinedOutput(); err != nil || !strings.Contains(string(out), "किताब.भारत.") {
		t.Logf("kdig under LANG=C.UTF-8 does not print U-labels here (%v); the test still checks verify", err)
	}
	for _, zone := range []string{"भारत", "xn--h2brj9c", "XN--H2BRJ9C."} {
		if diff, err := verifyZone(ctx, svc, zone, server, key); err != nil || len(diff) != 0 {
			t.Errorf("verify %s after publish: %v %q, want no difference", zone, err, diff)
		}
	}
	out, errOut, code := runCLI(t, "", "zone", "verify", "-db", db, "-zone", "भारत", "-server", server, "-tsig", testTSIG)
	if code != exitOK || out != "" {
		t.Errorf("akshara zone verify -zone भारत under LANG=C.UTF-8: exit %d, %q %q, want exit 0 and no output", code, out, errOut)
	}
	// Knot refuses the transfer without the key, and with another secret
	if _, errOut, code := runCLI(t, "", "zone", "verify", "-db", db, "-zone", "भारत", "-server", server); code != exitUsage || !strings.Contains(errOut, "AXFR") {
		t.Errorf("verify without the TSIG key: exit %d, %q, want exit 2 (the transfer refused)", code, errOut)
	}
	other := "xfr-key:hmac-sha256:b3RoZXItc2VjcmV0LW9mLXRoZS16b25lLXZlcmlmeS10ZXM="
	if _, errOut, code := runCLI(t, "", "zone", "verify", "-db", db, "-zone", "भारत", "-server", server, "-tsig", other); code != exitUsage || !strings.Contains(errOut, "AXFR") {
		t.Errorf("verify with another secret: exit %d, %q, want exit 2", code, errOut)
	}
	// a hold not yet published: the delegation the server still has, in
	// A-labels as the registry publishes it
	if _, err := svc.UpdateDomain(ctx, r, registry.DomainUpdate{Name: "नदी.भारत", AddStatuses: []string{registry.StatusClientHold}}); err != nil {
		t.Fatal(err)
	}
	d, err := svc.Info(ctx, "नदी.भारत")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"+ " + d.ALabel + ". NS ns.example.net."}
	if diff, err := verifyZone(ctx, svc, "भारत", server, key); err != nil || !slices.Equal(diff, want) {
		t.Errorf("verify after a hold: %v %q, want %q", err, diff, want)
	}
	out, _, code = runCLI(t, "", "zone", "verify", "-db", db, "-zone", "भारत", "-server", server, "-tsig", testTSIG)
	if code != exitInvalid || out != want[0]+"\n" {
		t.Errorf("akshara zone verify after a hold: exit %d, %q, want exit 1 and %q", code, out, want[0])
	}
}

// TestParseTSIG: -tsig NAME:ALG:SECRET, the form of issue 37's -dns-tsig.
func TestParseTSIG(t *testing.T) {
	tests := []struct {
		in   string
		want *tsigKey // nil: refused
	}{
		{"xfr-key:hmac-sha256:c2VjcmV0", &tsigKey{"xfr-key.", "hmac-sha256.", "c2VjcmV0"}},
		{"Xfr.Example.:HMAC-SHA512:c2VjcmV0", &tsigKey{"xfr.example.", "hmac-sha512.", "c2VjcmV0"}},
		{"k:hmac-sha1:c2VjcmV0", &tsigKey{"k.", "hmac-sha1.", "c2VjcmV0"}},
		{"k:hmac-md5:c2VjcmV0", nil}, // RFC 8945 §6
		{"k:hmac-sha256:not base64!", nil},
		{"k:hmac-sha256:", nil},
		{"k:c2VjcmV0", nil},
		{":hmac-sha256:c2VjcmV0", nil},
		{"a..b:hmac-sha256:c2VjcmV0", nil},
		{"", nil},
	}
	for _, tt := range tests {
		got, err := parseTSIG(tt.in)
		if tt.want == nil {
			if err == nil {
				t.Errorf("parseTSIG(%q) = %+v, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || *got != *tt.want {
			t.Errorf("parseTSIG(%q) = %+v, %v, want %+v", tt.in, got, err, tt.want)
		}
	}
	if _, errOut, code := runCLI(t, "", "zone", "verify", "-db", filepath.Join(t.TempDir(), "r.db"), "-zone", "in", "-server", "127.0.0.1:1", "-tsig", "k:hmac-md5:c2VjcmV0"); code != exitUsage || !strings.Contains(errOut, "hmac-md5") {
		t.Errorf("zone verify -tsig with hmac-md5: exit %d, %q, want exit 2 naming the algorithm", code, errOut)
	}
}

// FuzzParseTSIG: never a panic; a key accepted has a canonical name and
// algorithm and parses again to itself.
func FuzzParseTSIG(f *testing.F) {
	for _, s := range []string{testTSIG, "k:hmac-md5:c2VjcmV0", "a:b:c", "::", "k.:hmac-sha1.:AA=="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := parseTSIG(s)
		if err != nil {
			return
		}
		again, err := parseTSIG(k.name + ":" + k.alg + ":" + k.secret)
		if err != nil || *again != *k || !strings.HasSuffix(k.name, ".") || k.name != strings.ToLower(k.name) {
			t.Errorf("parseTSIG(%q) = %+v; again %+v, %v", s, k, again, err)
		}
	})
}
