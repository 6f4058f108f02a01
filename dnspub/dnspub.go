// Package dnspub publishes the registry's zones continuously (issue 37;
// docs/delegation.md, "Continuous publication"): it drains the outbox of
// DNS changes the registry's commands record (registry/dnsoutbox.go) into
// DNS UPDATE messages (RFC 2136) signed with TSIG (RFC 8945) to the hidden
// primary (Knot DNS), which signs the changes incrementally and sends
// them on to the secondaries by NOTIFY and IXFR.
//
// Each round (every Interval) the publisher renews its lease in the
// store — one publisher acts among several processes on one database;
// another takes over within LeaseTTL when it dies — reads the rows not
// yet published, renders each owner's records as the registry holds them
// now (Service.OwnerRecords, the zone export's own code), and sends, for
// each owner, the deletion of its NS, DS, A and AAAA RRsets followed by
// its records: applying an owner twice, or an older row after a newer
// one, gives the same zone. Rows are deleted only after the primary
// answered NOERROR, so a publisher killed at any point loses nothing:
// the next round (its own or another's) sends them again.
//
// The change guard judges each round's batch: the delegations the batch
// would take off the primary (owners with NS records there and none in
// the registry) are held back, and logged, counted and alerted on, when
// they are more than both GuardFloor and GuardMaxDrop of the zone's
// delegations; the rest of the batch (additions, changes, other zones) is
// published. Held rows wait for the operator (akshara zone release).
package dnspub

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/akshara-idn/akshara/registry"
)

// Key is a TSIG key: its name and algorithm as absolute domain names
// (dns.HmacSHA256), the secret in base64.
type Key struct {
	Name, Alg, Secret string
}

// Options configure a Publisher.
type Options struct {
	Server   string        // the primary, HOST:PORT
	Key      *Key          // nil: UPDATEs unsigned (tests only; Knot's ACL should require a key)
	Zones    []string      // the zones to publish (names or A-labels)
	Interval time.Duration // between rounds; 0 for 1 s
	TTL      int           // of every record; 0 for 3600 (as zone export)
	Batch    int           // outbox rows read a round; 0 for 10,000
	PerMsg   int           // owners in one UPDATE message; 0 for 200
	Timeout  time.Duration // for one UPDATE or query; 0 for 10 s
	// The change guard: a round's drops of delegations are held back when
	// there are more than GuardFloor of them and more than GuardMaxDrop
	// (0..1) of the zone's delegations. GuardFloor < 0 turns it off; both
	// 0 are the defaults (DefaultGuardFloor, DefaultGuardMaxDrop).
	GuardFloor   int
	GuardMaxDrop float64
	Lease        string        // the lease's name; "" for "dns-publisher"
	LeaseTTL     time.Duration // 0 for 5 s
	Holder       string        // who holds the lease; "" for host:pid:random
	Logger       *slog.Logger
	// AfterUpdate, if set, is called after each UPDATE the primary
	// accepted, before its rows are marked published (tests: a publisher
	// killed between the two).
	AfterUpdate func()
}

// The change guard's defaults: a batch dropping 100 delegations or fewer
// is never held back; more, when they are more than 10% of the zone's.
const (
	DefaultGuardFloor   = 100
	DefaultGuardMaxDrop = 0.10
)

// Publisher drains the outbox to the primary.
type Publisher struct {
	svc   *registry.Service
	o     Options
	zones []zone
	log   *slog.Logger

	depth, held, lag *prometheus.GaugeVec
	failures         prometheus.Counter
	refusals         *prometheus.CounterVec
	published        prometheus.Counter
	leader           prometheus.Gauge

	mu     sync.Mutex
	counts map[string]countAt // the zones' delegations, for the guard
}

type zone struct {
	name, origin string
}

type countAt struct {
	n  int64
	at time.Time
}

// New makes a publisher of the zones o names.
func New(svc *registry.Service, o Options) (*Publisher, error) {
	if o.Server == "" {
		return nil, errors.New("dnspub: no primary (-dns-update HOST:PORT)")
	}
	if len(o.Zones) == 0 {
		return nil, errors.New("dnspub: no zone (-dns-zone ZONE)")
	}
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if o.TTL <= 0 {
		o.TTL = 3600
	}
	if o.Batch <= 0 {
		o.Batch = 10000
	}
	if o.PerMsg <= 0 {
		o.PerMsg = 200
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.GuardFloor == 0 && o.GuardMaxDrop == 0 {
		o.GuardFloor, o.GuardMaxDrop = DefaultGuardFloor, DefaultGuardMaxDrop
	}
	if o.Lease == "" {
		o.Lease = "dns-publisher"
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = 5 * time.Second
	}
	if o.Holder == "" {
		host, _ := os.Hostname()
		var b [4]byte
		rand.Read(b[:])
		o.Holder = fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(b[:]))
	}
	p := &Publisher{svc: svc, o: o, log: o.Logger, counts: map[string]countAt{}}
	if p.log == nil {
		p.log = slog.Default()
	}
	for _, z := range o.Zones {
		name, origin, err := svc.ZoneOrigin(strings.TrimSpace(z))
		if err != nil {
			return nil, err
		}
		p.zones = append(p.zones, zone{name, origin})
	}
	p.depth = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "akshara_dns_outbox_depth", Help: "DNS changes recorded and not yet published (owner names; held ones not counted)."}, []string{"zone"})
	p.held = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "akshara_dns_outbox_held", Help: "DNS changes held by the change guard, waiting for akshara zone release."}, []string{"zone"})
	p.lag = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "akshara_dns_publish_lag_seconds", Help: "Age of the oldest DNS change not yet published (0 when none)."}, []string{"zone"})
	p.failures = prometheus.NewCounter(prometheus.CounterOpts{Name: "akshara_dns_update_failures_total", Help: "DNS UPDATEs the primary did not accept (an error, a timeout or an rcode other than NOERROR)."})
	p.refusals = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "akshara_dns_guard_refusals_total", Help: "Batches whose drops of delegations the change guard held back."}, []string{"zone"})
	p.published = prometheus.NewCounter(prometheus.CounterOpts{Name: "akshara_dns_published_total", Help: "Owner names sent to the primary and accepted."})
	p.leader = prometheus.NewGauge(prometheus.GaugeOpts{Name: "akshara_dns_publisher_lease", Help: "1 when this process holds the publisher's lease (publishes), 0 when it stands by."})
	return p, nil
}

// Collectors are the publisher's metrics.
func (p *Publisher) Collectors() []prometheus.Collector {
	return []prometheus.Collector{p.depth, p.held, p.lag, p.failures, p.refusals, p.published, p.leader}
}

// Holder is who the publisher holds the lease as.
func (p *Publisher) Holder() string { return p.o.Holder }

// Run publishes a round every Interval until ctx is done.
func (p *Publisher) Run(ctx context.Context) error {
	t := time.NewTicker(p.o.Interval)
	defer t.Stop()
	for {
		rep, err := p.Round(ctx)
		if err != nil && ctx.Err() == nil {
			p.log.Warn("dns publish", "error", err)
		}
		if err == nil && rep.Remaining && ctx.Err() == nil {
			continue // a full batch: more rows wait, at once
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// RoundReport says what a round did.
type RoundReport struct {
	Leader    bool // held the lease
	Owners    int  // owner names sent and accepted
	Updates   int  // UPDATE messages accepted
	Held      int  // owner names held back by the guard
	Remaining bool // the batch was full: more rows wait
}

// Round publishes one batch: the lease, the rows, the guard, the UPDATEs,
// the marks.
func (p *Publisher) Round(ctx context.Context) (rep RoundReport, err error) {
	defer p.observe(ctx)
	ok, err := p.svc.TakeDNSLease(ctx, p.o.Lease, p.o.Holder, p.o.LeaseTTL)
	if err != nil {
		return rep, err
	}
	p.leader.Set(b2f(ok))
	if !ok {
		return rep, nil
	}
	rep.Leader = true
	names := make([]string, len(p.zones))
	for i, z := range p.zones {
		names[i] = z.name
	}
	rows, err := p.svc.PendingDNS(ctx, names, p.o.Batch)
	if err != nil || len(rows) == 0 {
		return rep, err
	}
	rep.Remaining = len(rows) == p.o.Batch
	for _, z := range p.zones {
		n, held, err := p.publishZone(ctx, z, rows)
		rep.Owners += n.owners
		rep.Updates += n.updates
		rep.Held += held
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

type sent struct{ owners, updates int }

// owner is an owner name of a batch, with its rows.
type owner struct {
	name     string // absolute
	ids      []int64
	released bool // a row released by the operator: no guard
	recs     []dns.RR
	hasNS    bool
}

func (p *Publisher) publishZone(ctx context.Context, z zone, rows []registry.DNSChange) (n sent, held int, err error) {
	byName := map[string]*owner{}
	var order []*owner
	for _, r := range rows {
		if r.Owner.Zone != z.name {
			continue
		}
		name := dns.Fqdn(r.Owner.Name)
		o := byName[name]
		if o == nil {
			o = &owner{name: name}
			byName[name] = o
			order = append(order, o)
		}
		o.ids = append(o.ids, r.ID)
		o.released = o.released || r.State == registry.DNSReleased
	}
	if len(order) == 0 {
		return n, 0, nil
	}
	sort.Slice(order, func(i, j int) bool { return order[i].name < order[j].name })
	for _, o := range order {
		recs, err := p.svc.OwnerRecords(ctx, z.name, o.name)
		if err != nil {
			return n, 0, err
		}
		for _, r := range recs {
			rr, err := dns.NewRR(fmt.Sprintf("%s %d IN %s %s", r.Owner, p.o.TTL, r.Type, r.Data))
			if err != nil {
				return n, 0, fmt.Errorf("dnspub: record %v: %w", r, err)
			}
			o.recs = append(o.recs, rr)
			o.hasNS = o.hasNS || r.Type == "NS"
		}
	}
	order, held, err = p.guard(ctx, z, order)
	if err != nil {
		return n, held, err
	}
	for i := 0; i < len(order); i += p.o.PerMsg {
		part := order[i:min(i+p.o.PerMsg, len(order))]
		if err := p.update(z, part); err != nil {
			p.failures.Inc()
			return n, held, err
		}
		if p.o.AfterUpdate != nil {
			p.o.AfterUpdate()
		}
		var ids []int64
		var owners []registry.DNSOwner
		for _, o := range part {
			ids = append(ids, o.ids...)
			owners = append(owners, registry.DNSOwner{Zone: z.name, Name: strings.TrimSuffix(o.name, ".")})
		}
		still, err := p.svc.PublishedDNS(ctx, p.o.Lease, p.o.Holder, ids, owners)
		if err != nil {
			return n, held, err
		}
		if !still {
			// the lease went to another publisher while this one sent:
			// the owners are recorded again, for it to send over ours
			p.leader.Set(0)
			return n, held, fmt.Errorf("dnspub: the lease was lost during a round; %d owners recorded again", len(owners))
		}
		n.owners += len(part)
		n.updates++
		p.published.Add(float64(len(part)))
	}
	return n, held, nil
}

// update sends one UPDATE: for each owner, its NS, DS, A and AAAA RRsets
// deleted, then its records added.
func (p *Publisher) update(z zone, owners []*owner) error {
	m := new(dns.Msg)
	m.SetUpdate(z.origin)
	for _, o := range owners {
		m.RemoveRRset([]dns.RR{
			&dns.NS{Hdr: dns.RR_Header{Name: o.name, Rrtype: dns.TypeNS}},
			&dns.DS{Hdr: dns.RR_Header{Name: o.name, Rrtype: dns.TypeDS}},
			&dns.A{Hdr: dns.RR_Header{Name: o.name, Rrtype: dns.TypeA}},
			&dns.AAAA{Hdr: dns.RR_Header{Name: o.name, Rrtype: dns.TypeAAAA}},
		})
		if len(o.recs) > 0 {
			m.Insert(o.recs)
		}
	}
	r, err := p.exchange(m)
	if err != nil {
		return fmt.Errorf("dnspub: UPDATE of %s to %s: %w", z.origin, p.o.Server, err)
	}
	if r.Rcode != dns.RcodeSuccess {
		return fmt.Errorf("dnspub: UPDATE of %s to %s: %s", z.origin, p.o.Server, dns.RcodeToString[r.Rcode])
	}
	return nil
}

// exchange sends m over TCP, signed with the key if there is one.
func (p *Publisher) exchange(m *dns.Msg) (*dns.Msg, error) {
	c := &dns.Client{Net: "tcp", Timeout: p.o.Timeout}
	if k := p.o.Key; k != nil {
		c.TsigSecret = map[string]string{k.Name: k.Secret}
		m.SetTsig(k.Name, k.Alg, 300, time.Now().Unix())
	}
	r, _, err := c.Exchange(m, p.o.Server)
	return r, err
}

// guard holds back the batch's drops of delegations when there are too
// many (Options.GuardFloor, GuardMaxDrop) and returns the rest.
func (p *Publisher) guard(ctx context.Context, z zone, order []*owner) ([]*owner, int, error) {
	if p.o.GuardFloor < 0 {
		return order, 0, nil
	}
	// the candidates: domains (one label below the apex) with no NS in
	// the registry now, not released by the operator
	var cand []*owner
	for _, o := range order {
		if !o.hasNS && !o.released && strings.Count(strings.TrimSuffix(o.name, z.origin), ".") == 1 {
			cand = append(cand, o)
		}
	}
	if len(cand) <= p.o.GuardFloor {
		return order, 0, nil // never refused below the floor: nothing to ask
	}
	// drops: those the primary delegates now
	drop := map[*owner]bool{}
	for _, o := range cand {
		has, err := p.delegated(o.name)
		if err != nil {
			return nil, 0, err
		}
		if has {
			drop[o] = true
		}
	}
	if len(drop) <= p.o.GuardFloor {
		return order, 0, nil
	}
	total, err := p.delegations(ctx, z)
	if err != nil {
		return nil, 0, err
	}
	// the zone's delegations: the registry's domains with name servers
	// (held and deleted ones keep theirs), at least the drops
	before := max(total, int64(len(drop)))
	if float64(len(drop)) <= p.o.GuardMaxDrop*float64(before) {
		return order, 0, nil
	}
	var ids []int64
	var kept []*owner
	for _, o := range order {
		if drop[o] {
			ids = append(ids, o.ids...)
		} else {
			kept = append(kept, o)
		}
	}
	if err := p.svc.HoldDNS(ctx, ids); err != nil {
		return nil, 0, err
	}
	p.refusals.WithLabelValues(z.origin).Inc()
	p.log.Error("dns change guard: a batch's drops held back (the rest is published); check the registry, then akshara zone release",
		"zone", z.origin, "drops", len(drop), "floor", p.o.GuardFloor, "max_drop", p.o.GuardMaxDrop, "delegations", before)
	return kept, len(drop), nil
}

// delegated asks the primary whether it delegates name (NS records at
// name in its answer or referral).
func (p *Publisher) delegated(name string) (bool, error) {
	m := new(dns.Msg)
	m.SetQuestion(name, dns.TypeNS)
	m.RecursionDesired = false
	c := &dns.Client{Net: "tcp", Timeout: p.o.Timeout}
	r, _, err := c.Exchange(m, p.o.Server)
	if err != nil {
		return false, fmt.Errorf("dnspub: asking %s for %s NS: %w", p.o.Server, name, err)
	}
	for _, rr := range append(r.Answer, r.Ns...) {
		if rr.Header().Rrtype == dns.TypeNS && strings.EqualFold(rr.Header().Name, name) {
			return true, nil
		}
	}
	return false, nil
}

// delegations is the zone's count of delegations, read at most once a
// minute.
func (p *Publisher) delegations(ctx context.Context, z zone) (int64, error) {
	p.mu.Lock()
	c, ok := p.counts[z.name]
	p.mu.Unlock()
	if ok && time.Since(c.at) < time.Minute {
		return c.n, nil
	}
	n, err := p.svc.ZoneDelegations(ctx, z.name)
	if err != nil {
		return 0, err
	}
	p.mu.Lock()
	p.counts[z.name] = countAt{n, time.Now()}
	p.mu.Unlock()
	return n, nil
}

// observe sets the gauges.
func (p *Publisher) observe(ctx context.Context) {
	for _, z := range p.zones {
		st, err := p.svc.DNSOutbox(ctx, z.name)
		if err != nil {
			continue
		}
		p.depth.WithLabelValues(z.origin).Set(float64(st.Pending))
		p.held.WithLabelValues(z.origin).Set(float64(st.Held))
		lag := 0.0
		if !st.Oldest.IsZero() {
			lag = max(time.Since(st.Oldest).Seconds(), 0)
		}
		p.lag.WithLabelValues(z.origin).Set(lag)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
