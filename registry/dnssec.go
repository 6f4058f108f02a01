package registry

import (
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// DNSSEC delegation signer records (RFC 5910's dsData interface;
// docs/delegation.md).

// MaxDS is the most DS records one domain has.
const MaxDS = 8

// CodeBadDS: a DS record the registry refuses (an algorithm or digest
// type RFC 8624 deprecates or that is unknown, a digest of the wrong
// length).
const CodeBadDS = "BAD_DS"

func init() {
	DefineCode(CodeBadDS, CodeInfo{HTTP: 422, EPP: 2306, Reason: "ds refused"})
}

// DS is a delegation signer record (RFC 4034 §5).
type DS struct {
	KeyTag     int    `json:"key_tag"`
	Algorithm  int    `json:"algorithm"`
	DigestType int    `json:"digest_type"`
	Digest     string `json:"digest"` // hex, upper case
}

// DSAlgorithms are the DNSSEC algorithms a DS record may name: those RFC
// 8624 §3.1 says to implement for signing (MUST, RECOMMENDED, MAY, and
// RSASHA512, which validators MUST support). RSAMD5 (1), DSA (3), RSASHA1
// (5), DSA-NSEC3-SHA1 (6), RSASHA1-NSEC3-SHA1 (7) and ECC-GOST (12) are
// refused, as is every number not listed.
var DSAlgorithms = map[int]string{
	8:  "RSASHA256",
	10: "RSASHA512",
	13: "ECDSAP256SHA256",
	14: "ECDSAP384SHA384",
	15: "ED25519",
	16: "ED448",
}

// DSDigestTypes are the digest types a DS record may use, with the
// digest's length in octets (RFC 8624 §3.3): SHA-256 and SHA-384. SHA-1
// (1, MUST NOT be used to create DS records) and GOST (3) are refused.
var DSDigestTypes = map[int]int{
	2: 32,
	4: 48,
}

// canonDS checks the form of DS records (to remove: any algorithm) and
// canonicalizes their digests.
func canonDS(in []DS) ([]DS, error) {
	out := make([]DS, 0, len(in))
	for _, d := range in {
		if d.KeyTag < 0 || d.KeyTag > 65535 {
			return nil, Errorf(CodeBadDS, "key tag %d is not 0 to 65535", d.KeyTag)
		}
		if d.Algorithm < 0 || d.Algorithm > 255 || d.DigestType < 0 || d.DigestType > 255 {
			return nil, Errorf(CodeBadDS, "algorithm %d or digest type %d is not 0 to 255", d.Algorithm, d.DigestType)
		}
		dg := strings.Join(strings.Fields(d.Digest), "")
		if _, err := hex.DecodeString(dg); err != nil || dg == "" {
			return nil, Errorf(CodeBadDS, "the digest of the DS record with key tag %d is not hexadecimal", d.KeyTag)
		}
		d.Digest = strings.ToUpper(dg)
		out = append(out, d)
	}
	SortDS(out)
	return out, nil
}

// checkDS checks DS records to add against RFC 8624.
func checkDS(in []DS) ([]DS, error) {
	out, err := canonDS(in)
	if err != nil {
		return nil, err
	}
	for i, d := range out {
		if _, ok := DSAlgorithms[d.Algorithm]; !ok {
			return nil, Errorf(CodeBadDS, "DNSSEC algorithm %d is deprecated or unknown (RFC 8624); use %s", d.Algorithm, dsAlgList())
		}
		n, ok := DSDigestTypes[d.DigestType]
		if !ok {
			return nil, Errorf(CodeBadDS, "digest type %d is deprecated or unknown (RFC 8624); use 2 (SHA-256) or 4 (SHA-384)", d.DigestType)
		}
		if len(d.Digest) != 2*n {
			return nil, Errorf(CodeBadDS, "a digest of type %d has %d hexadecimal digits, not %d", d.DigestType, 2*n, len(d.Digest))
		}
		if i > 0 && out[i-1] == d {
			return nil, Errorf(CodeBadDS, "the DS record with key tag %d is given twice", d.KeyTag)
		}
	}
	return out, nil
}

func dsAlgList() string {
	var ks []int
	for k := range DSAlgorithms {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	var b strings.Builder
	for i, k := range ks {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d (%s)", k, DSAlgorithms[k])
	}
	return b.String()
}

// SortDS puts DS records in their canonical order (key tag, algorithm,
// digest type, digest): the order the registry stores, exports and
// compares them in.
func SortDS(ds []DS) {
	sort.Slice(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.KeyTag != b.KeyTag {
			return a.KeyTag < b.KeyTag
		}
		if a.Algorithm != b.Algorithm {
			return a.Algorithm < b.Algorithm
		}
		if a.DigestType != b.DigestType {
			return a.DigestType < b.DigestType
		}
		return a.Digest < b.Digest
	})
}
