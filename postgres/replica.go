package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options are the optional parts of a PostgreSQL store (OpenWith).
type Options struct {
	// ReplicaDSN, if set, is a hot standby of the database (streaming
	// replication) that answers the reads of read-only requests: checks,
	// infos, RDAP and WHOIS lookups (docs/replicas.md).
	ReplicaDSN string
	// MaxLag is how far behind the primary the standby may be and still
	// answer (0: DefaultMaxLag). A standby further behind, or down, is
	// not asked: the primary answers.
	MaxLag time.Duration
	// Poll is how often the standby's replay position is read (0:
	// DefaultPoll).
	Poll time.Duration
	// ReplicaTimeout bounds a read on the standby before the primary
	// answers it instead (0: DefaultReplicaTimeout).
	ReplicaTimeout time.Duration
	// RetryBudget, if not 0, is how long the store keeps retrying a
	// transient fault (sqlstore.Retry.Budget): it should cover a failover
	// (the promotion of a standby, 30 s by default).
	RetryBudget time.Duration
}

const (
	DefaultMaxLag         = 2 * time.Second
	DefaultPoll           = 50 * time.Millisecond
	DefaultReplicaTimeout = 2 * time.Second
)

// standby routes reads to a hot standby (sqlstore.Replica). A poller
// reads, every Poll, the primary's WAL position (pg_current_wal_lsn) and
// the standby's replay position (pg_last_wal_replay_lsn): the standby's
// lag is the time since the primary was at the position the standby has
// replayed. After each commit of the store, Wrote reads the primary's
// position again: until the standby has replayed past it, reads go to the
// primary (read-your-writes for every client of this process).
type standby struct {
	primary, db  *sql.DB
	maxLag, poll time.Duration

	lastWrite atomic.Uint64 // the primary's position after the store's last commit
	replayed  atomic.Uint64 // the standby's replay position at the last poll
	usable    atomic.Bool   // up, in recovery and within maxLag at the last poll
	pinned    atomic.Int64  // unix ns until which reads go to the primary (a commit's position unknown)

	mu      sync.Mutex
	samples []sample // the primary's positions, oldest first
	lag     atomic.Int64
	kick    chan struct{} // a commit: poll soon, not at the next tick
	stop    chan struct{}
	done    chan struct{}
}

// kickDelay is how long after a commit the standby is polled.
const kickDelay = 2 * time.Millisecond

type sample struct {
	at  time.Time
	lsn uint64
}

func newStandby(primary, db *sql.DB, o Options) *standby {
	s := &standby{primary: primary, db: db, maxLag: o.MaxLag, poll: o.Poll, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	if s.maxLag <= 0 {
		s.maxLag = DefaultMaxLag
	}
	if s.poll <= 0 {
		s.poll = DefaultPoll
	}
	// the reads wait for the standby to have what the primary has now
	// (the migrations the store just applied among it)
	s.Wrote(context.Background())
	s.check(context.Background())
	go s.run()
	return s
}

// Reader implements sqlstore.Replica.
func (s *standby) Reader(own bool) *sql.DB {
	if !s.usable.Load() || own && (s.replayed.Load() < s.lastWrite.Load() || time.Now().UnixNano() < s.pinned.Load()) {
		return nil
	}
	return s.db
}

// Wrote implements sqlstore.Replica: one query on the primary after a
// commit. If it fails, reads go to the primary for a lag bound and a poll.
func (s *standby) Wrote(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	var text string
	err := s.primary.QueryRowContext(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&text)
	lsn, perr := parseLSN(text)
	if err != nil || perr != nil {
		s.pinned.Store(time.Now().Add(s.maxLag + s.poll).UnixNano())
		return
	}
	for {
		old := s.lastWrite.Load()
		if lsn <= old || s.lastWrite.CompareAndSwap(old, lsn) {
			break
		}
	}
	select {
	case s.kick <- struct{}{}:
	default: // a poll is due already
	}
}

// Failed implements sqlstore.Replica: the standby is not asked until the
// next poll finds it usable.
func (s *standby) Failed(error) { s.usable.Store(false) }

// Lag returns the standby's lag at the last poll.
func (s *standby) Lag() time.Duration { return time.Duration(s.lag.Load()) }

func (s *standby) run() {
	defer close(s.done)
	t := time.NewTicker(s.poll)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.check(context.Background())
		case <-s.kick:
			// the standby streams a commit within a millisecond or two
			// on a local network: the reads after a commit go back to it
			// then, not a whole poll later
			time.Sleep(kickDelay)
			s.check(context.Background())
		}
	}
}

// check reads both positions and decides whether the standby may answer.
func (s *standby) check(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	now := time.Now()
	var ptext string
	if err := s.primary.QueryRowContext(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&ptext); err == nil {
		if p, err := parseLSN(ptext); err == nil {
			s.mu.Lock()
			s.samples = append(s.samples, sample{now, p})
			// a standby behind all that is kept is beyond the bound anyway
			k := 0
			for k < len(s.samples)-1 && now.Sub(s.samples[k].at) > 2*s.maxLag {
				k++
			}
			s.samples = s.samples[k:]
			s.mu.Unlock()
		}
	}
	var rtext sql.NullString
	var recovery bool
	err := s.db.QueryRowContext(ctx, `SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text`).Scan(&recovery, &rtext)
	if err != nil || !recovery || !rtext.Valid {
		// down, or promoted (no longer a copy of this primary)
		s.usable.Store(false)
		return
	}
	r, err := parseLSN(rtext.String)
	if err != nil {
		s.usable.Store(false)
		return
	}
	s.replayed.Store(r)
	lag := s.lagAt(now, r)
	s.lag.Store(int64(lag))
	s.usable.Store(lag <= s.maxLag)
}

// lagAt is how long ago the primary was last at or before position r
// (0 if it still is): the standby holds everything the primary had then.
// It forgets the samples older than that one.
func (s *standby) lagAt(now time.Time, r uint64) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := len(s.samples) - 1
	for i >= 0 && s.samples[i].lsn > r {
		i--
	}
	if i < 0 {
		// behind every sample kept: at least as old as the oldest
		if len(s.samples) == 0 {
			return 0
		}
		return now.Sub(s.samples[0].at)
	}
	if i == len(s.samples)-1 {
		s.samples = s.samples[i:]
		return 0
	}
	// the primary moved past r after samples[i]: the standby is behind
	// since the next sample at the latest
	lag := now.Sub(s.samples[i+1].at)
	s.samples = s.samples[i:]
	return lag
}

// Close implements sqlstore.Replica.
func (s *standby) Close() error {
	close(s.stop)
	<-s.done
	return s.db.Close()
}

// parseLSN reads a pg_lsn's text form (hex "X/Y").
func parseLSN(text string) (uint64, error) {
	hi, lo, ok := strings.Cut(text, "/")
	if !ok {
		return 0, fmt.Errorf("postgres: not an LSN: %q", text)
	}
	h, err := strconv.ParseUint(hi, 16, 32)
	if err != nil {
		return 0, err
	}
	l, err := strconv.ParseUint(lo, 16, 32)
	if err != nil {
		return 0, err
	}
	return h<<32 | l, nil
}
