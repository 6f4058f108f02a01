package lgr

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	hexenc "encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// The version ledger (lgr/versions.txt, written by `akshara lgr -all -out
// DIR` as DIR/versions.txt; go generate ./lgr): for each published export,
// its RFC 7940 version, an integer, and the digest of the export without
// its version. An export that differs from the published one in anything
// but the version (its language file, the policy data version in its
// comment, its date, the exporter) gets the next integer, so the version
// increases with each data change, as RFC 7940 §4.3.1 recommends and
// ICANN's lgr-core expects.
//
//go:embed versions.txt
var ledgerFile []byte

// LedgerEntry is one line of the ledger.
type LedgerEntry struct {
	Tag     string
	Version int
	Digest  string // the first 16 hex digits of the SHA-256 of the export written with version 0
}

// Ledger is a parsed version ledger, by language tag.
type Ledger map[string]LedgerEntry

var ledger struct {
	once sync.Once
	l    Ledger
}

// published is the ledger compiled in (an unreadable ledger is empty: every
// export is then version 1, and TestVersionLedger fails).
func published() Ledger {
	ledger.once.Do(func() {
		ledger.l, _ = ParseLedger(ledgerFile)
		if ledger.l == nil {
			ledger.l = Ledger{}
		}
	})
	return ledger.l
}

// next is the version of an export: the published one when the digest is
// the published digest, the next integer otherwise (1 for a language never
// published).
func (l Ledger) next(e LedgerEntry) int {
	p, ok := l[e.Tag]
	switch {
	case !ok:
		return 1
	case p.Digest == e.Digest:
		return p.Version
	}
	return p.Version + 1
}

func contentDigest(export []byte) string {
	sum := sha256.Sum256(export)
	return hexenc.EncodeToString(sum[:8])
}

// ParseLedger parses a ledger: lines `TAG VERSION DIGEST`, # comments.
func ParseLedger(data []byte) (Ledger, error) {
	l := Ledger{}
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			return nil, fmt.Errorf("versions.txt:%d: want TAG VERSION DIGEST", n+1)
		}
		v, err := strconv.Atoi(f[1])
		if err != nil || v < 1 {
			return nil, fmt.Errorf("versions.txt:%d: version %q is not a positive integer", n+1, f[1])
		}
		if _, dup := l[f[0]]; dup {
			return nil, fmt.Errorf("versions.txt:%d: %s is listed twice", n+1, f[0])
		}
		l[f[0]] = LedgerEntry{Tag: f[0], Version: v, Digest: f[2]}
	}
	return l, nil
}

// FormatLedger writes the ledger of these entries, sorted by tag.
func FormatLedger(entries []LedgerEntry) []byte {
	es := append([]LedgerEntry(nil), entries...)
	sort.Slice(es, func(i, j int) bool { return es[i].Tag < es[j].Tag })
	var b bytes.Buffer
	b.WriteString(`# The RFC 7940 versions of the exports (generated with them: go generate ./lgr;
# docs/lgr.md). TAG VERSION DIGEST: DIGEST is the start of the SHA-256 of
# the export written with version 0. An export that differs in anything but
# its version gets the next integer.
`)
	for _, e := range es {
		fmt.Fprintf(&b, "%s %d %s\n", e.Tag, e.Version, e.Digest)
	}
	return b.Bytes()
}
