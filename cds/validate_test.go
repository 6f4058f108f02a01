package cds

import (
	"crypto"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/akshara-idn/akshara/registry"
)

// child is a signed child zone made here: a KSK, a ZSK, and what a name
// server answers.
type child struct {
	t          *testing.T
	ksk, zsk   *dns.DNSKEY
	kskP, zskP crypto.Signer
}

func newChild(t *testing.T) *child {
	c := &child{t: t}
	gen := func(flags uint16) (*dns.DNSKEY, crypto.Signer) {
		k := &dns.DNSKEY{Hdr: dns.RR_Header{Name: "kid.in.", Rrtype: dns.TypeDNSKEY, Class: dns.ClassINET, Ttl: 3600}, Flags: flags, Protocol: 3, Algorithm: dns.ECDSAP256SHA256}
		p, err := k.Generate(256)
		if err != nil {
			t.Fatal(err)
		}
		return k, p.(crypto.Signer)
	}
	c.ksk, c.kskP = gen(257)
	c.zsk, c.zskP = gen(256)
	return c
}

func (c *child) sign(k *dns.DNSKEY, p crypto.Signer, rrs []dns.RR, valid time.Duration) *dns.RRSIG {
	sig := &dns.RRSIG{Hdr: dns.RR_Header{Name: "kid.in.", Rrtype: dns.TypeRRSIG, Class: dns.ClassINET, Ttl: 3600}, KeyTag: k.KeyTag(), SignerName: "kid.in.", Algorithm: k.Algorithm,
		Inception: uint32(time.Now().Add(-2 * time.Hour).Unix()), Expiration: uint32(time.Now().Add(valid).Unix())}
	if err := sig.Sign(p, rrs); err != nil {
		c.t.Fatal(err)
	}
	return sig
}

func cdsOf(k *dns.DNSKEY, h uint8) *dns.CDS {
	d := k.ToDS(h)
	x := &dns.CDS{DS: *d}
	x.Hdr.Rrtype = dns.TypeCDS
	return x
}

func cdnskeyOf(k *dns.DNSKEY) *dns.CDNSKEY {
	x := &dns.CDNSKEY{DNSKEY: *k}
	x.Hdr.Rrtype = dns.TypeCDNSKEY
	return x
}

func dsOf(k *dns.DNSKEY) registry.DS {
	d := k.ToDS(dns.SHA256)
	return registry.DS{KeyTag: int(d.KeyTag), Algorithm: int(d.Algorithm), DigestType: 2, Digest: strings.ToUpper(d.Digest)}
}

// answer makes a server's answer: the DNSKEY set signed by the KSK, the
// CDS and CDNSKEY sets by the ZSK (valid for a day), then edit changes it.
func (c *child) answer(cds, cdnskey []dns.RR, edit func(a *answer)) *answer {
	a := &answer{addr: "test", dnskey: []dns.RR{c.ksk, c.zsk}, cds: cds, cdnskey: cdnskey}
	a.sigKey = []*dns.RRSIG{c.sign(c.ksk, c.kskP, a.dnskey, 24*time.Hour)}
	if len(cds) > 0 {
		a.sigCDS = []*dns.RRSIG{c.sign(c.zsk, c.zskP, cds, 24*time.Hour)}
	}
	if len(cdnskey) > 0 {
		a.sigCN = []*dns.RRSIG{c.sign(c.zsk, c.zskP, cdnskey, 24*time.Hour)}
	}
	if edit != nil {
		edit(a)
	}
	return a
}

// TestValidate: the chain of trust the scanner asks of a child's answer
// (RFC 7344 §4.1, RFC 8078 §3.3, §4), each way it breaks.
func TestValidate(t *testing.T) {
	c, other := newChild(t), newChild(t)
	del := &dns.CDS{DS: dns.DS{Hdr: dns.RR_Header{Name: "kid.in.", Rrtype: dns.TypeCDS, Class: dns.ClassINET, Ttl: 3600}, Digest: "00"}}
	delKey := &dns.CDNSKEY{DNSKEY: dns.DNSKEY{Hdr: dns.RR_Header{Name: "kid.in.", Rrtype: dns.TypeCDNSKEY, Class: dns.ClassINET, Ttl: 3600}, Protocol: 3, PublicKey: "AA=="}}
	cur := []registry.DS{dsOf(c.ksk)}
	tests := []struct {
		name    string
		current []registry.DS
		a       *answer
		want    []registry.DS
		del     bool
		err     string
	}{
		{"CDS of the KSK", cur, c.answer([]dns.RR{cdsOf(c.ksk, dns.SHA256)}, nil, nil), cur, false, ""},
		{"CDNSKEY only", cur, c.answer(nil, []dns.RR{cdnskeyOf(c.ksk)}, nil), cur, false, ""},
		{"CDS and CDNSKEY", cur, c.answer([]dns.RR{cdsOf(c.ksk, dns.SHA256)}, []dns.RR{cdnskeyOf(c.ksk)}, nil), cur, false, ""},
		{"SHA-1 beside SHA-256: SHA-1 left out", cur, c.answer([]dns.RR{cdsOf(c.ksk, dns.SHA1), cdsOf(c.ksk, dns.SHA256)}, nil, nil), cur, false, ""},
		{"SHA-1 only", cur, c.answer([]dns.RR{cdsOf(c.ksk, dns.SHA1)}, nil, nil), nil, false, "digest type"},
		{"delete", cur, c.answer([]dns.RR{del}, []dns.RR{delKey}, nil), nil, true, ""},
		{"delete beside another", cur, c.answer([]dns.RR{del, cdsOf(c.ksk, dns.SHA256)}, nil, nil), nil, false, "not alone"},
		{"CDS and CDNSKEY disagree", cur, c.answer([]dns.RR{cdsOf(c.ksk, dns.SHA256)}, []dns.RR{cdnskeyOf(c.zsk)}, nil), nil, false, "different keys"},
		{"delete and not", cur, c.answer([]dns.RR{del}, []dns.RR{cdnskeyOf(c.ksk)}, nil), nil, false, "disagree"},
		{"DNSKEY set not signed by a DS key", []registry.DS{dsOf(other.ksk)}, c.answer([]dns.RR{cdsOf(c.ksk, dns.SHA256)}, nil, nil), nil, false, "DNSKEY set is not signed"},
		{"CDS changed after signing", cur, c.answer([]dns.RR{cdsOf(c.ksk, dns.SHA256)}, nil, func(a *answer) {
			a.cds[0].(*dns.CDS).Digest = strings.Repeat("AB", 32)
		}), nil, false, "CDS set has no valid signature"},
		{"CDS signed by a key not in the DNSKEY set", cur, c.answer([]dns.RR{cdsOf(c.ksk, dns.SHA256)}, nil, func(a *answer) {
			a.sigCDS = []*dns.RRSIG{c.sign(other.zsk, other.zskP, a.cds, 24*time.Hour)}
		}), nil, false, "CDS set has no valid signature"},
		{"DNSKEY signature expired", cur, c.answer([]dns.RR{cdsOf(c.ksk, dns.SHA256)}, nil, func(a *answer) {
			a.sigKey = []*dns.RRSIG{c.sign(c.ksk, c.kskP, a.dnskey, -time.Hour)}
		}), nil, false, "DNSKEY set is not signed"},
		{"a request that breaks the chain", cur, c.answer([]dns.RR{cdsOf(other.ksk, dns.SHA256)}, nil, nil), nil, false, "break the chain"},
		{"bootstrap", nil, c.answer([]dns.RR{cdsOf(c.ksk, dns.SHA256)}, nil, nil), cur, false, ""},
		{"bootstrap by a key that does not sign", nil, c.answer([]dns.RR{cdsOf(c.zsk, dns.SHA256)}, nil, nil), nil, false, "DNSKEY set is not signed"},
		{"bootstrap delete: nothing", nil, c.answer([]dns.RR{del}, nil, nil), nil, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, isDel, err := validate("kid.in", tt.current, tt.a, time.Now())
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if isDel != tt.del || len(got) != len(tt.want) || (len(got) > 0 && got[0] != tt.want[0]) {
				t.Fatalf("%v delete %v, want %v delete %v", got, isDel, tt.want, tt.del)
			}
		})
	}
}

// TestObserveNoServers: a delegation without name servers is a problem,
// not a panic.
func TestObserveNoServers(t *testing.T) {
	rep := (&Scanner{}).Observe(t.Context(), registry.ZoneDelegation{Name: "kid.in"})
	if rep.Problem == "" {
		t.Fatalf("%+v, want a problem", rep)
	}
}
