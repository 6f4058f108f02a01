package main

import (
	"crypto"
	"fmt"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// The DNSSEC checks of the Knot tests, by github.com/miekg/dns (a DNS
// implementation other than Knot's): the zone's DNSKEY set is signed by
// one of its keys, and every RRset of an answer that carries an RRSIG
// validates against the zone's DNSKEYs, within the signature's validity.

// dnsExchange asks knotd over TCP with the DO bit.
func (k *knotServer) dnsExchange(t testing.TB, name string, qtype uint16) *dns.Msg {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	m.SetEdns0(4096, true)
	m.RecursionDesired = false
	c := &dns.Client{Net: "tcp", Timeout: 5 * time.Second}
	r, _, err := c.Exchange(m, fmt.Sprintf("127.0.0.1:%d", k.port))
	if err != nil {
		t.Fatalf("DNS %s %s: %v", name, dns.TypeToString[qtype], err)
	}
	return r
}

// zoneKeys returns the zone's DNSKEYs by key tag, after checking that the
// DNSKEY set is signed by one of them.
func (k *knotServer) zoneKeys(t testing.TB, zone string) map[uint16]*dns.DNSKEY {
	t.Helper()
	r := k.dnsExchange(t, zone, dns.TypeDNSKEY)
	keys := map[uint16]*dns.DNSKEY{}
	var set []dns.RR
	for _, rr := range r.Answer {
		if key, ok := rr.(*dns.DNSKEY); ok {
			keys[key.KeyTag()] = key
			set = append(set, rr)
		}
	}
	if len(keys) == 0 {
		t.Fatalf("no DNSKEY for %s: %v", zone, r)
	}
	if n := verifySets(t, keys, r.Answer); n[dns.TypeDNSKEY] == 0 {
		t.Fatalf("the DNSKEY set of %s has no valid RRSIG", zone)
	}
	return keys
}

// verifySets validates every RRset of rrs that has an RRSIG (an RRSIG
// that does not validate fails the test) and returns how many RRSIGs
// validated per type covered.
func verifySets(t testing.TB, keys map[uint16]*dns.DNSKEY, rrs []dns.RR) map[uint16]int {
	t.Helper()
	ok, errs := checkSigs(keys, rrs)
	for _, err := range errs {
		t.Error(err)
	}
	return ok
}

// checkSigs validates every RRset of rrs that has an RRSIG: how many
// RRSIGs validated per type covered, and what did not validate.
func checkSigs(keys map[uint16]*dns.DNSKEY, rrs []dns.RR) (map[uint16]int, []error) {
	var errs []error
	sets := map[string][]dns.RR{}
	var sigs []*dns.RRSIG
	for _, rr := range rrs {
		if s, ok := rr.(*dns.RRSIG); ok {
			sigs = append(sigs, s)
			continue
		}
		h := rr.Header()
		key := dns.CanonicalName(h.Name) + "/" + dns.TypeToString[h.Rrtype]
		sets[key] = append(sets[key], rr)
	}
	ok := map[uint16]int{}
	for _, s := range sigs {
		set := sets[dns.CanonicalName(s.Hdr.Name)+"/"+dns.TypeToString[s.TypeCovered]]
		key := keys[s.KeyTag]
		if key == nil {
			errs = append(errs, fmt.Errorf("RRSIG %s by key %d: no such DNSKEY", s.Hdr.Name, s.KeyTag))
			continue
		}
		if err := s.Verify(key, set); err != nil {
			errs = append(errs, fmt.Errorf("RRSIG over %s %s does not validate: %v\n%v", s.Hdr.Name, dns.TypeToString[s.TypeCovered], err, set))
			continue
		}
		if !s.ValidityPeriod(time.Now()) {
			errs = append(errs, fmt.Errorf("RRSIG over %s %s is out of its validity period", s.Hdr.Name, dns.TypeToString[s.TypeCovered]))
			continue
		}
		ok[s.TypeCovered]++
	}
	return ok, errs
}

// signedAnswer asks name/qtype and checks that the answer has the type,
// signed with a valid RRSIG by the zone's keys; it returns the answer's
// records of the type.
func (k *knotServer) signedAnswer(t testing.TB, keys map[uint16]*dns.DNSKEY, name string, qtype uint16) []dns.RR {
	t.Helper()
	r := k.dnsExchange(t, name, qtype)
	var got []dns.RR
	for _, rr := range r.Answer {
		if rr.Header().Rrtype == qtype {
			got = append(got, rr)
		}
	}
	if len(got) == 0 {
		t.Errorf("%s %s: no answer (%s)", name, dns.TypeToString[qtype], dns.RcodeToString[r.Rcode])
		return nil
	}
	if n := verifySets(t, keys, r.Answer); n[qtype] == 0 {
		t.Errorf("%s %s: no valid RRSIG over the answer:\n%v", name, dns.TypeToString[qtype], r)
	}
	return got
}

// signedDenial asks name/qtype and checks that the answer is NXDOMAIN with
// the zone's NSEC records, signed and valid (authenticated denial).
func (k *knotServer) signedDenial(t testing.TB, keys map[uint16]*dns.DNSKEY, name string, qtype uint16) {
	t.Helper()
	r := k.dnsExchange(t, name, qtype)
	if r.Rcode != dns.RcodeNameError {
		t.Errorf("%s %s: %s, want NXDOMAIN:\n%v", name, dns.TypeToString[qtype], dns.RcodeToString[r.Rcode], r)
		return
	}
	if n := verifySets(t, keys, r.Ns); n[dns.TypeNSEC] == 0 || n[dns.TypeSOA] == 0 {
		t.Errorf("%s: the denial has no valid RRSIG over NSEC and SOA (%v):\n%v", name, n, r)
	}
}

// TestVerifySetsFails: a record changed after signing fails verifySets (a
// check that cannot fail would prove nothing).
func TestVerifySetsFails(t *testing.T) {
	key := &dns.DNSKEY{Hdr: dns.RR_Header{Name: "in.", Rrtype: dns.TypeDNSKEY, Class: dns.ClassINET, Ttl: 3600}, Flags: 257, Protocol: 3, Algorithm: dns.ECDSAP256SHA256}
	priv, err := key.Generate(256)
	if err != nil {
		t.Fatal(err)
	}
	ds, _ := dns.NewRR("alpha.in. 3600 IN DS 12345 13 2 " + knotDigest)
	sig := &dns.RRSIG{Hdr: dns.RR_Header{Name: "alpha.in.", Rrtype: dns.TypeRRSIG, Class: dns.ClassINET, Ttl: 3600}, KeyTag: key.KeyTag(), SignerName: "in.", Algorithm: key.Algorithm,
		Inception: uint32(time.Now().Add(-time.Hour).Unix()), Expiration: uint32(time.Now().Add(time.Hour).Unix())}
	if err := sig.Sign(priv.(crypto.Signer), []dns.RR{ds}); err != nil {
		t.Fatal(err)
	}
	keys := map[uint16]*dns.DNSKEY{key.KeyTag(): key}
	if n := verifySets(t, keys, []dns.RR{ds, sig}); n[dns.TypeDS] != 1 {
		t.Fatalf("a good signature: %v", n)
	}
	bad, _ := dns.NewRR("alpha.in. 3600 IN DS 12345 13 2 " + knotDigest[:63] + "7")
	if n, errs := checkSigs(keys, []dns.RR{bad, sig}); n[dns.TypeDS] != 0 || len(errs) != 1 {
		t.Errorf("a changed record: %v %v, want one failure", n, errs)
	}
	sig.Expiration = uint32(time.Now().Add(-time.Minute).Unix())
	if err := sig.Sign(priv.(crypto.Signer), []dns.RR{ds}); err != nil {
		t.Fatal(err)
	}
	if n, errs := checkSigs(keys, []dns.RR{ds, sig}); n[dns.TypeDS] != 0 || len(errs) != 1 {
		t.Errorf("an expired signature: %v %v, want one failure", n, errs)
	}
}
