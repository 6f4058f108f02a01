package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// The read cache (CacheReads) keeps the answers of FindBlocker and
// FindReserved, the two queries of every check, until a commit touches
// them. Whether the database changed is asked of the database itself, on
// every lookup: a query of a counter that changes whenever any connection,
// of this process or of another, has committed to the file since the
// previous one (SQLite's PRAGMA data_version on a connection that never
// writes). What changed is read, when the counter moved, from a change log
// that triggers write inside every committing transaction (SQLite's
// cache_changes, migration 150): the (zone, label) of every block and
// reserved name added, removed or moved, and the id of every domain whose
// row or exemptions a check shows. The entries that looked up one of those
// labels, or answered with one of those domains, are dropped; the others
// stay. The cache therefore needs nothing from the write path, and a name
// taken by a committed create, delete, import or reservation, here or by
// another process on the same file, is never answered from before it.
//
// The counter is the database's own answer, through a query: the cache
// reads none of the database's files itself (a dialect must not either:
// SQLite's locks are the process's, and closing a descriptor of the file
// opened outside SQLite drops them all; issue 34). The poll costs a read
// transaction on every lookup that does not share one (SQLite: two fcntl).
//
// Why it is correct: the polls run one at a time on one connection, so
// their answers are ordered, and the generation below increases when a
// poll sees a commit that the previous one did not; that poll reads the
// log after the counter, so it applies every commit the counter showed
// (and maybe later ones). A lookup uses a poll that began after the
// lookup did (concurrent lookups share one, see generation), so every
// commit acknowledged before the lookup began has been applied when it
// reads the entries: an entry present was either stored after the last
// change to its labels was applied, or was read after that change. An
// entry is stored under the generation polled before its query ran; it
// is not stored if a later poll already dropped one of its labels or its
// domain (touched), or dropped everything (floor): its query may have
// read the database before that change.
type readCache struct {
	// the polls: one at a time, shared by the callers waiting for it
	callMu  sync.Mutex
	running *pollCall // the poll running, if any
	next    *pollCall // the poll that callers arriving now will share

	// the poll's connection and statement, used by the running poll
	db      *sql.DB // the poll's own pool, of one connection
	query   string
	conn    *sql.Conn
	stmt    driver.Stmt // prepared on conn's driver connection
	dest    [1]driver.Value
	last    int64  // the counter at the last poll
	gen     uint64 // increases whenever a poll sees a change
	polling bool   // conn is open and last is its counter

	hits atomic.Int64 // lookups answered from memory

	// the change log (cache_changes, written by triggers): the seq of
	// the last row applied; seqKnown false: none read yet
	logQuery string
	lastSeq  int64
	seqKnown bool
	applied  atomic.Int64 // log rows applied (entries dropped by label)
	clears   atomic.Int64 // times every entry was dropped

	mu      sync.RWMutex
	entries map[string]*cacheItem
	// the entries by the labels they looked up ("zone\x00label") and by
	// the domain they answered with: a log row drops these. A reference
	// can outlive its entry (dropped by another label); refs counts them
	// so that the indexes stay bounded.
	byLabel  map[string][]*cacheItem
	byDomain map[int64][]*cacheItem
	refs     int
	// the generation at which a label or a domain was last dropped: an
	// entry read under an older generation is not kept (it may show the
	// database before the change); floor: no entry older than it is kept
	touched    map[string]uint64
	touchedDom map[int64]uint64
	floor      uint64
}

// cacheItem is an entry and what it depends on.
type cacheItem struct {
	key    string
	zone   string
	labels []string
	e      cacheEntry
}

// maxTouched bounds the touched maps: when full they start afresh and the
// floor rises to the poll's generation.
const maxTouched = 1 << 14

type cacheEntry struct {
	blocker  *registry.Domain       // FindBlocker's answer; nil: not found
	reserved *registry.ReservedName // FindReserved's answer; nil: not found
}

// maxCacheEntries bounds the cache: when it is full it starts afresh.
const maxCacheEntries = 1 << 16

// CacheReads makes FindBlocker, FindReserved and FindForCheck answer from
// memory while the query changed (a single-row, single-column integer
// query, such as SQLite's "PRAGMA data_version") returns the same value on
// a connection of poll, a handle on the same database that the store
// keeps for this (and closes with it). The query must change whenever
// another connection commits: the poll's connection never writes. Call it
// before the store is used.
//
// changes, if not empty, is the query of the change log: the rows after a
// seq (its one argument), in order, as (seq, zone, label, domain_id), the
// three last NULL when unknown. With it a commit drops only the entries it
// touched (see applyLog); without it any commit drops every entry.
func (s *Store) CacheReads(poll *sql.DB, changed, changes string) {
	s.cache = &readCache{db: poll, query: changed, logQuery: changes}
}

// CacheStats returns how many change-log rows the read cache applied and
// how many times it dropped every entry.
func (s *Store) CacheStats() (applied, clears int64) {
	if s.cache == nil {
		return 0, 0
	}
	return s.cache.applied.Load(), s.cache.clears.Load()
}

// CacheHits returns how many lookups the read cache has answered (0 with
// the cache off).
func (s *Store) CacheHits() int64 {
	if s.cache == nil {
		return 0
	}
	return s.cache.hits.Load()
}

// generation returns the cache generation valid now: that of a poll that
// began after this call did. Concurrent callers share one: those that
// arrive while a poll runs wait for it to end and share the next, so that
// a burst of checks costs about two polls. An error (the poll's
// connection is then closed and reopened at the next poll) means the cache
// must not be used.
func (c *readCache) generation(ctx context.Context) (uint64, error) {
	c.callMu.Lock()
	if c.next == nil {
		c.next = &pollCall{done: make(chan struct{})}
	}
	call := c.next
	for {
		select {
		case <-call.done: // led by another caller
			c.callMu.Unlock()
			return call.gen, call.err
		default:
		}
		if c.running == nil {
			break
		}
		running := c.running
		c.callMu.Unlock()
		<-running.done
		c.callMu.Lock()
	}
	// lead call: it begins now, after every caller that shares it arrived
	c.running, c.next = call, nil
	c.callMu.Unlock()
	call.gen, call.err = c.poll(ctx)
	c.callMu.Lock()
	c.running = nil
	close(call.done)
	c.callMu.Unlock()
	return call.gen, call.err
}

// pollCall is one poll and the callers that share it.
type pollCall struct {
	done chan struct{} // closed when gen and err are set
	gen  uint64
	err  error
}

// poll runs the query on the cache's connection (one poll at a time: the
// caller leads the running pollCall).
func (c *readCache) poll(ctx context.Context) (uint64, error) {
	if c.conn == nil {
		conn, err := c.db.Conn(ctx)
		if err != nil {
			return 0, err
		}
		c.conn, c.polling = conn, false
	}
	var v int64
	// Straight to the driver, with a statement prepared once: the poll is
	// a statement of one step, and database/sql's layers (and a context
	// that can end, which costs a goroutine per query in database/sql and
	// in the driver) would cost as much as the poll itself.
	err := c.conn.Raw(func(dc any) error {
		if c.stmt == nil {
			p, ok := dc.(driver.ConnPrepareContext)
			if !ok {
				return errors.New("read cache: the driver cannot prepare statements")
			}
			st, err := p.PrepareContext(context.Background(), c.query)
			if err != nil {
				return err
			}
			c.stmt = st
		}
		q, ok := c.stmt.(driver.StmtQueryContext)
		if !ok {
			return errors.New("read cache: the driver cannot query with a context")
		}
		rows, err := q.QueryContext(context.Background(), nil)
		if err != nil {
			return err
		}
		if err := rows.Next(c.dest[:]); err != nil {
			rows.Close()
			return err
		}
		if err := rows.Close(); err != nil {
			return err
		}
		n, ok := c.dest[0].(int64)
		if !ok {
			return fmt.Errorf("read cache: %q returned %T, not an integer", c.query, c.dest[0])
		}
		v = n
		return nil
	})
	if err != nil {
		c.closePoll()
		return 0, err
	}
	if !c.polling || v != c.last {
		// a change, or a new connection whose counter says nothing yet
		c.gen++
		c.last, c.polling = v, true
		if err := c.applyLog(ctx); err != nil {
			c.closePoll()
			return 0, err
		}
	}
	return c.gen, nil
}

// maxLogRows is the most change-log rows one poll applies one by one;
// beyond it every entry is dropped.
const maxLogRows = 4096

// applyLog drops the entries that the commits since the last poll touched,
// as the change log says; every entry when there is no log, when the log
// does not reach back to the last row seen (pruned past it) or says "all",
// or when it is longer than maxLogRows. It runs in a poll (one at a time),
// after the counter was read: it may apply commits newer than the counter
// (the next poll then reads no new rows), never fewer.
func (c *readCache) applyLog(ctx context.Context) error {
	if c.logQuery == "" {
		c.dropAll()
		return nil
	}
	rows, err := c.conn.QueryContext(ctx, c.logQuery, c.lastSeq)
	if err != nil {
		return err
	}
	defer rows.Close()
	type change struct {
		zone, label sql.NullString
		domain      sql.NullInt64
	}
	var (
		changes []change
		all     = !c.seqKnown
		seq     = c.lastSeq
		first   = true
	)
	for rows.Next() {
		var ch change
		var n int64
		if err := rows.Scan(&n, &ch.zone, &ch.label, &ch.domain); err != nil {
			return err
		}
		if first && n != c.lastSeq+1 {
			all = true // the rows after the last seen were pruned
		}
		first, seq = false, n
		if !ch.label.Valid && !ch.domain.Valid {
			all = true
		}
		if !all && len(changes) < maxLogRows {
			changes = append(changes, ch)
		} else {
			all = true
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	c.lastSeq, c.seqKnown = seq, true
	if all {
		c.dropAll()
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ch := range changes {
		if ch.label.Valid {
			k := ch.zone.String + "\x00" + ch.label.String
			for _, it := range c.byLabel[k] {
				c.dropItem(it)
			}
			c.refs -= len(c.byLabel[k])
			delete(c.byLabel, k)
			c.touched[k] = c.gen
		}
		if ch.domain.Valid {
			id := ch.domain.Int64
			for _, it := range c.byDomain[id] {
				c.dropItem(it)
			}
			c.refs -= len(c.byDomain[id])
			delete(c.byDomain, id)
			c.touchedDom[id] = c.gen
		}
	}
	c.applied.Add(int64(len(changes)))
	if len(c.touched) > maxTouched || len(c.touchedDom) > maxTouched {
		c.touched, c.touchedDom = make(map[string]uint64), make(map[int64]uint64)
		c.floor = c.gen
	}
	return nil
}

// dropItem removes it from the entries if it is still there.
func (c *readCache) dropItem(it *cacheItem) {
	if c.entries[it.key] == it {
		delete(c.entries, it.key)
	}
}

// dropAll drops every entry; entries read before the poll of c.gen are
// not kept.
func (c *readCache) dropAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reset()
	c.floor = c.gen
	c.clears.Add(1)
}

// reset empties the entries and their indexes (c.mu held).
func (c *readCache) reset() {
	c.entries = make(map[string]*cacheItem)
	c.byLabel = make(map[string][]*cacheItem)
	c.byDomain = make(map[int64][]*cacheItem)
	c.touched = make(map[string]uint64)
	c.touchedDom = make(map[int64]uint64)
	c.refs = 0
}

func (c *readCache) closePoll() {
	if c.conn == nil {
		return
	}
	if c.stmt != nil {
		c.conn.Raw(func(any) error { return c.stmt.Close() })
	}
	c.conn.Close()
	c.conn, c.stmt, c.polling = nil, nil, false
}

// close closes the poll's connection; no lookup may run any more.
func (c *readCache) close() {
	c.callMu.Lock()
	running := c.running
	c.callMu.Unlock()
	if running != nil {
		<-running.done
	}
	c.closePoll()
	c.db.Close()
}

// get returns the entry of key. Every entry present is current for the
// lookup whose poll returned: that poll applied every commit before it
// (dropping the entries they touched), and put keeps no entry read before
// a commit that touched it.
func (c *readCache) get(key []byte) (cacheEntry, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	it, ok := c.entries[string(key)] // (no string made)
	if !ok {
		return cacheEntry{}, false
	}
	return it.e, true
}

// put stores an entry read after the poll that returned gen, unless a
// later poll dropped one of its labels or its domain (or everything).
func (c *readCache) put(gen uint64, key, zone string, labels []string, e cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen < c.floor {
		return
	}
	if c.entries == nil || len(c.entries) >= maxCacheEntries || c.refs >= 4*maxCacheEntries {
		c.reset()
	}
	var lk [128]byte
	for _, l := range labels {
		k := append(append(append(lk[:0], zone...), 0), l...)
		if c.touched[string(k)] > gen {
			return
		}
	}
	if e.blocker != nil && c.touchedDom[e.blocker.ID] > gen {
		return
	}
	it := &cacheItem{key: key, zone: zone, labels: slices.Clone(labels), e: e}
	c.entries[key] = it
	for _, l := range labels {
		k := zone + "\x00" + l
		c.byLabel[k] = append(c.byLabel[k], it)
	}
	c.refs += len(labels)
	if e.blocker != nil {
		c.byDomain[e.blocker.ID] = append(c.byDomain[e.blocker.ID], it)
		c.refs++
	}
}

// appendCacheKey appends the key of a lookup of labels in zone ('b':
// FindBlocker, 'r': FindReserved, 'c': FindForCheck).
func appendCacheKey(b []byte, kind byte, zone string, labels []string) []byte {
	b = append(b, kind)
	b = append(b, zone...)
	for _, l := range labels {
		b = append(b, 0)
		b = append(b, l...)
	}
	return b
}

// cached answers a lookup from the cache, or runs it and keeps its answer
// (a result or ErrNotFound; never another error). With the cache off, or
// when the poll fails, it runs the lookup. The key is built on the stack
// (kind, zone, labels: appendCacheKey) and made a string only to be kept.
func (s *Store) cached(ctx context.Context, kind byte, zone string, labels []string, run func() (cacheEntry, error)) (cacheEntry, error) {
	if s.cache == nil || s.inTx(ctx) != nil { // a command reads its own transaction
		return run()
	}
	gen, err := s.cache.generation(ctx)
	if err != nil {
		return run()
	}
	var buf [256]byte
	k := appendCacheKey(buf[:0], kind, zone, labels)
	if e, ok := s.cache.get(k); ok {
		s.cache.hits.Add(1)
		return e, nil
	}
	e, err := run()
	if err == nil {
		s.cache.put(gen, string(k), zone, labels, e)
	}
	return e, err
}

// FindForCheck implements registry.CheckFinder: one poll of the read cache
// for a check's two lookups. Its answers are the cache's own, not copies
// (CheckFinder's callers only read them; FindBlocker and FindReserved,
// whose callers may keep and change theirs, copy).
func (s *Store) FindForCheck(ctx context.Context, zone string, labels []string) (*registry.Domain, *registry.ReservedName, error) {
	if len(labels) == 0 {
		return nil, nil, nil
	}
	e, err := s.cached(ctx, 'c', zone, labels, func() (cacheEntry, error) {
		if s.d.CheckInOneStatement {
			return s.findForCheck(ctx, zone, labels)
		}
		d, err := s.findBlocker(ctx, zone, labels)
		if err != nil || d != nil {
			return cacheEntry{blocker: d}, err
		}
		r, err := s.findReserved(ctx, zone, labels)
		return cacheEntry{reserved: r}, err
	})
	if err != nil {
		return nil, nil, internal("finding blocker", err)
	}
	return e.blocker, e.reserved, nil
}

// findForCheck is FindForCheck's query with Dialect.CheckInOneStatement:
// findBlocker's and findReserved's in one statement, which gives one row:
// the blocker's columns, NULL if no domain holds the labels, and the
// reserved name's, NULL if none is reserved. A check on PostgreSQL costs
// one round trip, not two (the reserved name is looked up even when a
// domain holds the labels, and then not used: a lookup of a primary key
// costs the server less than a second statement costs the check).
func (s *Store) findForCheck(ctx context.Context, zone string, labels []string) (cacheEntry, error) {
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(labels)), ", ")
	args := make([]any, 0, 2+2*len(labels))
	args = append(args, s.key(zone)) // blocks: the family's key
	for _, l := range labels {
		args = append(args, l)
	}
	zones := s.members(zone) // a reserved name holds its set in its family
	for _, z := range zones {
		args = append(args, z)
	}
	zoneMarks := strings.TrimSuffix(strings.Repeat("?, ", len(zones)), ", ")
	for _, l := range labels {
		args = append(args, l)
	}
	query := `SELECT bl.id, bl.zone, bl.label, bl.alabel, bl.lang, bl.name, bl.created, bl.data_version, bl.legacy, bl.exempt, bl.statuses, bl.purge_at, bl.redemption_end, bl.variant_group,
		rv.zone, rv.label, rv.reason, rv.created
		FROM (SELECT 1 AS one) o
		LEFT JOIN (SELECT ` + domainColumns + `, (SELECT COUNT(*) FROM exemptions e WHERE e.domain_id = d.id) AS exempt
			FROM blocks b JOIN domains d ON d.id = b.domain_id JOIN registrars r ON r.id = d.registrar_id
			WHERE b.zone = ? AND b.label IN (` + marks + `) ORDER BY d.id LIMIT 1) bl ON 1 = 1
		LEFT JOIN (SELECT zone, label, reason, created FROM reserved
			WHERE zone IN (` + zoneMarks + `) AND label IN (` + marks + `) ORDER BY label LIMIT 1) rv ON 1 = 1`
	var (
		id, created, exempt                         sql.NullInt64
		dzone, label, alabel, lang, reg, dv, legacy sql.NullString
		rzone, rlabel, reason                       sql.NullString
		rcreated                                    sql.NullInt64
		statuses                                    sql.NullString
		purge, rend                                 sql.NullInt64
		group                                       sql.NullInt64 // its variant group (variantgroup.go)
	)
	err := s.read(ctx, func(ctx context.Context) error {
		return s.queryRow(ctx, nil, query, args...).Scan(&id, &dzone, &label, &alabel, &lang, &reg, &created, &dv, &legacy, &exempt, &statuses, &purge, &rend, &group,
			&rzone, &rlabel, &reason, &rcreated)
	})
	if err != nil {
		return cacheEntry{}, err
	}
	if id.Valid {
		d := &registry.Domain{ID: id.Int64, Zone: dzone.String, Label: label.String, ALabel: alabel.String, Lang: lang.String,
			Registrar: reg.String, DataVersion: dv.String, Exempted: exempt.Int64 > 0}
		d.Name = d.Label + "." + d.Zone
		d.Created = time.Unix(0, created.Int64).UTC()
		d.Legacy = strings.Fields(legacy.String)
		d.Statuses = strings.Fields(statuses.String)
		d.PurgeAt, d.RedemptionEnds = fromNanos(purge.Int64), fromNanos(rend.Int64)
		d.Group = group.Int64
		return cacheEntry{blocker: d}, nil
	}
	if rlabel.Valid {
		return cacheEntry{reserved: &registry.ReservedName{Zone: rzone.String, Label: rlabel.String, Reason: reason.String,
			Created: time.Unix(0, rcreated.Int64).UTC()}}, nil
	}
	return cacheEntry{}, nil
}

// copyDomain is the caller's own copy of a cached domain (nil: nil).
func copyDomain(d *registry.Domain) *registry.Domain {
	if d == nil {
		return nil
	}
	c := *d
	c.Legacy = slices.Clone(d.Legacy)
	c.Statuses = slices.Clone(d.Statuses)
	return &c
}

func copyReserved(r *registry.ReservedName) *registry.ReservedName {
	if r == nil {
		return nil
	}
	c := *r
	return &c
}

var _ registry.CheckFinder = (*Store)(nil)
