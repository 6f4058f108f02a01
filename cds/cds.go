// Package cds is the child DS automation's scanner (RFC 7344, RFC 8078;
// docs/dnssec.md): for each delegated domain of a zone it asks every
// address of every name server of the child for its DNSKEY, CDS and
// CDNSKEY records, requires every server to give the same CDS and CDNSKEY
// sets, validates them (the CDS set signed by a key of the child's
// DNSKEY set, which is signed by a key its current DS names, RFC 7344
// §4.1; for a domain without DS, by the keys the CDS itself names, RFC
// 8078 §3.3), and reports what it found to the registry
// (registry.Service.ObserveCDS), which decides: the same request over the
// acceptance period replaces the DS, and the sponsor is told by poll.
//
// The scanner only reads DNS and the registry's delegations; every
// change is the registry's one flow, one transaction per domain.
package cds

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/akshara-idn/akshara/registry"
)

// Resolver gives the addresses (host:port) to ask a child's name server
// host at; glue are the registry's own addresses of the host (a host
// under the domain), empty for others.
type Resolver func(ctx context.Context, host string, glue []string) ([]string, error)

// DefaultResolver asks the glue where the registry has it, else the
// system's resolver; port 53.
func DefaultResolver(ctx context.Context, host string, glue []string) ([]string, error) {
	addrs := glue
	if len(addrs) == 0 {
		var err error
		if addrs, err = net.DefaultResolver.LookupHost(ctx, host); err != nil {
			return nil, err
		}
	}
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = net.JoinHostPort(a, "53")
	}
	return out, nil
}

// Scanner scans one zone's delegations.
type Scanner struct {
	Service *registry.Service
	Zone    string
	// Accept is the acceptance period the registry applies
	// (registry.DefaultCDSAcceptance when zero).
	Accept registry.CDSAcceptance
	// Bootstrap: scan the domains without DS too (RFC 8078 §3.3, accept
	// after delay). Off, only signed delegations are scanned (rollovers
	// and deletes).
	Bootstrap bool
	// Resolve finds the name servers' addresses (DefaultResolver if nil).
	Resolve Resolver
	// Parallel is how many children are asked at once (1 if zero).
	Parallel int
	// Timeout bounds each query (5 s if zero).
	Timeout time.Duration
	// Now is the time signatures must be valid at (time.Now if nil).
	Now func() time.Time
	// Metrics counts the scanner's actions (nil: none).
	Metrics *Metrics
	// Log, if set, gets a line per domain whose request was rejected,
	// applied or deleted.
	Log *slog.Logger
}

// Result is one domain's scan.
type Result struct {
	Name    string
	Report  registry.CDSReport
	Outcome *registry.CDSResult // nil with Err
	Err     error
}

// Scan is one pass over the zone: every published delegation (with DS,
// or every one with Bootstrap) observed and reported, one domain at a
// time. An error of one domain is in its Result; Scan's own error is a
// failure to read the zone.
func (s *Scanner) Scan(ctx context.Context) ([]Result, error) {
	acc := s.Accept
	if acc == (registry.CDSAcceptance{}) {
		acc = registry.DefaultCDSAcceptance
	}
	var out []Result
	after := ""
	for {
		page, next, err := s.Service.CDSCandidates(ctx, s.Zone, after, 500)
		if err != nil {
			return out, err
		}
		page = slices.DeleteFunc(page, func(d registry.ZoneDelegation) bool { return len(d.DS) == 0 && !s.Bootstrap })
		// the children asked Parallel at a time; each report is its
		// domain's own transaction
		res := make([]Result, len(page))
		sem := make(chan struct{}, max(s.Parallel, 1))
		var wg sync.WaitGroup
		for i, d := range page {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				rep := s.Observe(ctx, d)
				res[i] = Result{Name: d.Name, Report: rep}
				res[i].Outcome, res[i].Err = s.Service.ObserveCDS(ctx, rep, acc)
				s.count(res[i])
			}()
		}
		wg.Wait()
		out = append(out, res...)
		if next == "" {
			break
		}
		after = next
	}
	s.Metrics.pass()
	return out, nil
}

// Run scans every interval until ctx ends (the first pass at once).
func (s *Scanner) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if _, err := s.Scan(ctx); err != nil && ctx.Err() == nil && s.Log != nil {
			s.Log.Error("CDS scan", "zone", s.Zone, "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Scanner) count(r Result) {
	outcome := "error"
	if r.Outcome != nil {
		outcome = r.Outcome.Outcome
	}
	s.Metrics.domain(outcome)
	if s.Log == nil {
		return
	}
	switch {
	case r.Err != nil:
		s.Log.Error("CDS", "domain", r.Name, "error", r.Err)
	case outcome == registry.CDSApplied || outcome == registry.CDSDeleted:
		s.Log.Info("CDS", "domain", r.Name, "outcome", outcome, "ds", fmt.Sprint(r.Outcome.DS))
	case outcome == registry.CDSRejected || outcome == registry.CDSProhibited:
		s.Log.Warn("CDS", "domain", r.Name, "outcome", outcome, "reason", r.Outcome.Reason)
	}
}

// answer is one server's DNSKEY, CDS and CDNSKEY records with their
// RRSIGs.
type answer struct {
	addr                  string
	dnskey, cds, cdnskey  []dns.RR
	sigKey, sigCDS, sigCN []*dns.RRSIG
}

// Observe asks the child's servers and makes the report (no registry
// change).
func (s *Scanner) Observe(ctx context.Context, d registry.ZoneDelegation) registry.CDSReport {
	rep := registry.CDSReport{Name: d.Name, Current: d.DS, Bootstrap: len(d.DS) == 0}
	problem := func(format string, args ...any) registry.CDSReport {
		rep.Problem = fmt.Sprintf(format, args...)
		return rep
	}
	resolve := s.Resolve
	if resolve == nil {
		resolve = DefaultResolver
	}
	var answers []*answer
	for _, host := range d.NS {
		var glue []string
		for _, g := range d.Glue {
			if g.Name == host {
				glue = g.Addrs
			}
		}
		addrs, err := resolve(ctx, host, glue)
		if err != nil || len(addrs) == 0 {
			return problem("name server %s has no address: %v", host, err)
		}
		for _, a := range addrs {
			ans, err := s.ask(ctx, d.Name, a)
			if err != nil {
				s.Metrics.queryFailed()
				return problem("name server %s at %s: %v", host, a, err)
			}
			answers = append(answers, ans)
		}
	}
	if len(answers) == 0 {
		return problem("no name servers")
	}
	// every server the same CDS and CDNSKEY sets
	first := answers[0]
	for _, a := range answers[1:] {
		if setText(a.cds) != setText(first.cds) || setText(a.cdnskey) != setText(first.cdnskey) {
			return problem("the name servers disagree: %s and %s give different CDS or CDNSKEY records", first.addr, a.addr)
		}
	}
	if len(first.cds)+len(first.cdnskey) == 0 {
		rep.None = true
		return rep
	}
	// each server's answer validates
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	var ds []registry.DS
	var del bool
	for _, a := range answers {
		var err error
		if ds, del, err = validate(d.Name, d.DS, a, now()); err != nil {
			return problem("%s: %v", a.addr, err)
		}
	}
	if del && rep.Bootstrap {
		rep.None = true // nothing to delete
		return rep
	}
	rep.DS, rep.Delete = ds, del
	return rep
}

// ask queries one server for the child's DNSKEY, CDS and CDNSKEY sets
// (DO bit, TCP): each answer must be authoritative, NOERROR.
func (s *Scanner) ask(ctx context.Context, name, addr string) (*answer, error) {
	timeout := s.Timeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	c := &dns.Client{Net: "tcp", Timeout: timeout}
	a := &answer{addr: addr}
	for _, q := range []struct {
		t    uint16
		rrs  *[]dns.RR
		sigs *[]*dns.RRSIG
	}{{dns.TypeDNSKEY, &a.dnskey, &a.sigKey}, {dns.TypeCDS, &a.cds, &a.sigCDS}, {dns.TypeCDNSKEY, &a.cdnskey, &a.sigCN}} {
		m := new(dns.Msg)
		m.SetQuestion(dns.Fqdn(name), q.t)
		m.SetEdns0(4096, true)
		m.RecursionDesired = false
		r, _, err := c.ExchangeContext(ctx, m, addr)
		if err != nil {
			return nil, err
		}
		if r.Rcode != dns.RcodeSuccess || !r.Authoritative {
			return nil, fmt.Errorf("%s %s: %s, authoritative %v", name, dns.TypeToString[q.t], dns.RcodeToString[r.Rcode], r.Authoritative)
		}
		for _, rr := range r.Answer {
			if !strings.EqualFold(dns.CanonicalName(rr.Header().Name), dns.CanonicalName(dns.Fqdn(name))) {
				continue
			}
			switch x := rr.(type) {
			case *dns.RRSIG:
				if x.TypeCovered == q.t {
					*q.sigs = append(*q.sigs, x)
				}
			default:
				if rr.Header().Rrtype == q.t {
					*q.rrs = append(*q.rrs, rr)
				}
			}
		}
	}
	return a, nil
}

// setText is an RRset's records in canonical text, sorted, TTLs aside.
func setText(rrs []dns.RR) string {
	var lines []string
	for _, rr := range rrs {
		c := dns.Copy(rr)
		c.Header().Ttl = 0
		c.Header().Name = dns.CanonicalName(c.Header().Name)
		lines = append(lines, c.String())
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// validate checks one server's answer and returns the DS the child asks
// for (del: none, RFC 8078 §4):
//
//   - the DNSKEY set is signed (validly at now) by a trust anchor: a key
//     the current DS names, or, with no DS (bootstrap), a key the CDS or
//     CDNSKEY set names;
//   - the CDS set and the CDNSKEY set are each signed by a key of that
//     DNSKEY set;
//   - CDS and CDNSKEY, when both are published, name the same keys;
//   - a delete is the only record of its set; a request that is not one
//     names a key that signs the DNSKEY set (the new DS would not break
//     the chain).
func validate(name string, current []registry.DS, a *answer, now time.Time) ([]registry.DS, bool, error) {
	keys := map[uint16][]*dns.DNSKEY{}
	for _, rr := range a.dnskey {
		k := rr.(*dns.DNSKEY)
		keys[k.KeyTag()] = append(keys[k.KeyTag()], k)
	}
	if len(keys) == 0 {
		return nil, false, errors.New("no DNSKEY")
	}
	// what the child asks: from CDS, or made from CDNSKEY
	var fromCDS, fromKeys []registry.DS
	delCDS, delKey := false, false
	for _, rr := range a.cds {
		c := rr.(*dns.CDS)
		if c.Algorithm == 0 {
			delCDS = true
			continue
		}
		if _, ok := registry.DSDigestTypes[int(c.DigestType)]; !ok {
			continue // a digest type the registry does not take (SHA-1): the others are used
		}
		fromCDS = append(fromCDS, registry.DS{KeyTag: int(c.KeyTag), Algorithm: int(c.Algorithm), DigestType: int(c.DigestType), Digest: strings.ToUpper(c.Digest)})
	}
	for _, rr := range a.cdnskey {
		c := rr.(*dns.CDNSKEY)
		if c.Algorithm == 0 {
			delKey = true
			continue
		}
		k := c.DNSKEY
		k.Hdr.Rrtype = dns.TypeDNSKEY
		d := k.ToDS(dns.SHA256)
		if d == nil {
			return nil, false, fmt.Errorf("CDNSKEY %d: not a key", c.KeyTag())
		}
		fromKeys = append(fromKeys, registry.DS{KeyTag: int(d.KeyTag), Algorithm: int(d.Algorithm), DigestType: int(d.DigestType), Digest: strings.ToUpper(d.Digest)})
	}
	if (delCDS && len(a.cds) != 1) || (delKey && len(a.cdnskey) != 1) {
		return nil, false, errors.New("a delete CDS or CDNSKEY is not alone in its set (RFC 8078 §4)")
	}
	if len(a.cds) > 0 && len(a.cdnskey) > 0 {
		if delCDS != delKey {
			return nil, false, errors.New("CDS and CDNSKEY disagree: one asks to delete, the other not")
		}
		if !sameKeys(fromCDS, fromKeys) {
			return nil, false, errors.New("CDS and CDNSKEY name different keys")
		}
	}
	del := delCDS || delKey
	want := fromCDS
	if len(a.cds) == 0 {
		want = fromKeys
	}
	if !del && len(want) == 0 {
		return nil, false, errors.New("no CDS of a digest type the registry takes (SHA-256, SHA-384)")
	}
	// the trust anchors: the current DS, or (bootstrap) the request
	anchors := current
	if len(anchors) == 0 {
		if del {
			return nil, true, nil
		}
		anchors = want
	}
	signers := signersOf(a.dnskey, a.sigKey, keys, now, func(k *dns.DNSKEY) bool { return matchesAny(k, anchors) })
	if len(signers) == 0 {
		return nil, false, errors.New("the DNSKEY set is not signed by a key the DS names (validly, now)")
	}
	for _, set := range []struct {
		what string
		rrs  []dns.RR
		sigs []*dns.RRSIG
	}{{"CDS", a.cds, a.sigCDS}, {"CDNSKEY", a.cdnskey, a.sigCN}} {
		if len(set.rrs) == 0 {
			continue
		}
		if len(signersOf(set.rrs, set.sigs, keys, now, func(*dns.DNSKEY) bool { return true })) == 0 {
			return nil, false, fmt.Errorf("the %s set has no valid signature by the child's DNSKEY set", set.what)
		}
	}
	if del {
		return nil, true, nil
	}
	ok := false
	for _, k := range signers {
		ok = ok || matchesAny(k, want)
	}
	if !ok {
		return nil, false, errors.New("no DS asked names a key that signs the DNSKEY set: it would break the chain of trust")
	}
	registry.SortDS(want)
	return want, false, nil
}

// signersOf are the keys (those trusted) whose RRSIG over rrs validates
// at now.
func signersOf(rrs []dns.RR, sigs []*dns.RRSIG, keys map[uint16][]*dns.DNSKEY, now time.Time, trusted func(*dns.DNSKEY) bool) []*dns.DNSKEY {
	var out []*dns.DNSKEY
	for _, sig := range sigs {
		if !sig.ValidityPeriod(now) {
			continue
		}
		for _, k := range keys[sig.KeyTag] {
			if k.Algorithm == sig.Algorithm && trusted(k) && sig.Verify(k, rrs) == nil {
				out = append(out, k)
			}
		}
	}
	return out
}

// matchesAny reports whether a DS of list names key k.
func matchesAny(k *dns.DNSKEY, list []registry.DS) bool {
	for _, d := range list {
		if int(k.KeyTag()) != d.KeyTag || int(k.Algorithm) != d.Algorithm {
			continue
		}
		if x := k.ToDS(uint8(d.DigestType)); x != nil && strings.EqualFold(x.Digest, d.Digest) {
			return true
		}
	}
	return false
}

// sameKeys reports whether two DS lists name the same keys (key tag and
// algorithm).
func sameKeys(a, b []registry.DS) bool {
	ids := func(l []registry.DS) []string {
		var out []string
		for _, d := range l {
			out = append(out, fmt.Sprintf("%d/%d", d.KeyTag, d.Algorithm))
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	return slices.Equal(ids(a), ids(b))
}

// Metrics are the scanner's Prometheus counters.
type Metrics struct {
	passes   prometheus.Counter
	outcomes *prometheus.CounterVec
	failed   prometheus.Counter
}

// NewMetrics makes the counters and registers them with r (if not nil):
// akshara_cds_scans_total (passes over a zone),
// akshara_cds_domains_total{outcome} (each domain's outcome: none,
// in-sync, pending, applied, deleted, rejected, prohibited, stale,
// error), akshara_cds_query_failures_total (a name server that did not
// answer).
func NewMetrics(r prometheus.Registerer) *Metrics {
	m := &Metrics{
		passes:   prometheus.NewCounter(prometheus.CounterOpts{Name: "akshara_cds_scans_total", Help: "Passes of the CDS scanner over a zone (docs/dnssec.md)."}),
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "akshara_cds_domains_total", Help: "Domains the CDS scanner observed, by outcome (applied, deleted: DS changed by the child's CDS)."}, []string{"outcome"}),
		failed:   prometheus.NewCounter(prometheus.CounterOpts{Name: "akshara_cds_query_failures_total", Help: "Queries of a child's name server that failed (no answer, not authoritative, an error code)."}),
	}
	if r != nil {
		r.MustRegister(m.passes, m.outcomes, m.failed)
	}
	return m
}

func (m *Metrics) pass() {
	if m != nil {
		m.passes.Inc()
	}
}

func (m *Metrics) domain(outcome string) {
	if m != nil {
		m.outcomes.WithLabelValues(outcome).Inc()
	}
}

func (m *Metrics) queryFailed() {
	if m != nil {
		m.failed.Inc()
	}
}
