package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// Transfers, authInfo and the poll queues (registry.TransferStore): the
// tables of migration 050. Every transition is one transaction: the
// transfer's row, the domain's sponsor, the poll messages and the audit
// record commit together or not at all.

// SetAuthInfo implements registry.TransferStore.
func (s *Store) SetAuthInfo(ctx context.Context, domainID, registrarID int64, hash string, e registry.AuditEntry) error {
	return s.internal("setting the authInfo", s.tx(ctx, func(tx *sql.Tx) error {
		var owner int64
		err := tx.QueryRowContext(ctx, s.q(`SELECT registrar_id FROM domains WHERE id = ?`), domainID).Scan(&owner)
		if errors.Is(err, sql.ErrNoRows) {
			return registry.Errorf(registry.CodeNotFound, "%s is not registered", e.Name)
		}
		if err != nil {
			return err
		}
		if owner != registrarID {
			return registry.Errorf(registry.CodeForbidden, "%s belongs to another registrar", e.Name)
		}
		if err := s.noPendingTransfer(ctx, tx, domainID, e.Name); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM domain_auth WHERE domain_id = ?`), domainID); err != nil {
			return err
		}
		if hash != "" {
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO domain_auth (domain_id, pw_hash, updated) VALUES (?, ?, ?)`), domainID, hash, nanos(e.At)); err != nil {
				return err
			}
		}
		if e.Action == "" {
			return nil // part of a command that writes its own record
		}
		return s.auditTx(ctx, tx, e)
	}))
}

// noPendingTransfer refuses a registrar's transform of a domain with a
// pending transfer (RFC 5731 §2.3: pendingTransfer refuses every
// transform command but <transfer>): STATUS_PROHIBITS.
func (s *Store) noPendingTransfer(ctx context.Context, tx *sql.Tx, domainID int64, name string) error {
	var n int
	if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM transfers WHERE domain_id = ? AND status = 'pending'`), domainID).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return registry.Errorf(registry.CodeStatusProhibits, "%s has status pendingTransfer: its sponsor approves or rejects the transfer first", name)
	}
	return nil
}

// auditTx writes an audit record in a transaction.
func (s *Store) auditTx(ctx context.Context, tx *sql.Tx, e registry.AuditEntry) error {
	return s.noteAudit(ctx, tx.QueryRowContext(ctx, s.q(`INSERT INTO audit (at, registrar, action, name, result, channel, cltrid, svtrid) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
		nanos(e.At), e.Registrar, e.Action, e.Name, e.Result, e.Channel, e.ClTRID, e.SvTRID))
}

const transferColumns = `t.id, t.domain_id, d.zone, d.label, d.alabel, g.name, l.name, t.status, t.requested, t.due, t.acted, t.period`

const transferFrom = ` FROM transfers t JOIN domains d ON d.id = t.domain_id
	JOIN registrars g ON g.id = t.gaining_id JOIN registrars l ON l.id = t.losing_id`

// scanMore scans a row of transferColumns and more columns into more.
type scanMore struct {
	row  interface{ Scan(...any) error }
	more []any
}

func (m scanMore) Scan(dest ...any) error { return m.row.Scan(append(dest, m.more...)...) }

func scanTransfer(row interface{ Scan(...any) error }) (*registry.Transfer, int64, error) {
	t := &registry.Transfer{}
	var domainID, requested, due int64
	var acted sql.NullInt64
	var zone, label, alabel string
	if err := row.Scan(&t.ID, &domainID, &zone, &label, &alabel, &t.Gaining, &t.Losing, &t.Status, &requested, &due, &acted, &t.Period); err != nil {
		return nil, 0, err
	}
	t.Name, t.ALabel = label+"."+zone, alabel
	t.Requested = fromNanos(requested)
	if t.Status == registry.TransferPending || !acted.Valid {
		t.ActDate = fromNanos(due)
	} else {
		t.ActDate = fromNanos(acted.Int64)
	}
	return t, domainID, nil
}

// TransferState implements registry.TransferStore: one statement for
// the authInfo, the last approval and the latest transfer's id, and for a
// domain ever asked for, one for that transfer.
func (s *Store) TransferState(ctx context.Context, domainID int64) (st *registry.TransferState, hash string, err error) {
	err = s.do(ctx, func() error {
		st, hash = &registry.TransferState{}, ""
		var at, last sql.NullInt64
		err := s.queryRow(ctx, nil, `SELECT COALESCE((SELECT pw_hash FROM domain_auth WHERE domain_id = ?), ''),
			(SELECT MAX(acted) FROM transfers WHERE domain_id = ? AND status IN ('clientApproved', 'serverApproved')),
			(SELECT MAX(id) FROM transfers WHERE domain_id = ?)`, domainID, domainID, domainID).Scan(&hash, &at, &last)
		if err != nil {
			return err
		}
		st.AuthInfoSet = hash != ""
		if at.Valid {
			st.Transferred = fromNanos(at.Int64)
		}
		if !last.Valid {
			return nil
		}
		t, _, err := scanTransfer(s.queryRow(ctx, nil, `SELECT `+transferColumns+transferFrom+` WHERE t.id = ?`, last.Int64))
		if err != nil {
			return err
		}
		st.Last = t
		if t.Status == registry.TransferPending {
			st.Pending = t
		}
		return nil
	})
	return st, hash, internal("reading the transfer state", err)
}

// RequestTransfer implements registry.TransferStore.
func (s *Store) RequestTransfer(ctx context.Context, r *registry.TransferRequest) (*registry.Transfer, error) {
	var out *registry.Transfer
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var losing int64
		var sponsor, hash string
		err := tx.QueryRowContext(ctx, s.q(`SELECT d.registrar_id, r.name, COALESCE((SELECT pw_hash FROM domain_auth WHERE domain_id = d.id), '')
			FROM domains d JOIN registrars r ON r.id = d.registrar_id WHERE d.id = ?`), r.DomainID).Scan(&losing, &sponsor, &hash)
		if errors.Is(err, sql.ErrNoRows) {
			return registry.Errorf(registry.CodeNotFound, "%s is not registered", r.Name)
		}
		if err != nil {
			return err
		}
		if sponsor != r.Losing || hash != r.AuthHash {
			// changed since the authInfo was verified: verify again
			return registry.Errorf(registry.CodeBadAuthInfo, "the authInfo of %s changed; ask its registrant for the new one", r.Name)
		}
		r.LosingID = losing
		var id int64
		err = tx.QueryRowContext(ctx, s.q(`INSERT INTO transfers (domain_id, gaining_id, losing_id, status, requested, due, period) VALUES (?, ?, ?, 'pending', ?, ?, ?) RETURNING id`),
			r.DomainID, r.GainingID, losing, nanos(r.Requested), nanos(r.Due), r.Period).Scan(&id)
		if err != nil {
			if s.d.IsUnique(err) {
				return registry.Errorf(registry.CodePendingTransfer, "a transfer of %s is pending already", r.Name)
			}
			return err
		}
		out = &registry.Transfer{ID: id, Name: r.Name, ALabel: r.ALabel, Status: registry.TransferPending, Gaining: r.Gaining, Losing: sponsor,
			Requested: r.Requested, ActDate: r.Due, Period: r.Period}
		if err := s.enqueueTx(ctx, tx, []registry.PollMessage{registry.TransferMessage(registry.PollTransferRequested, losing, out, r.Requested)}); err != nil {
			return err
		}
		return s.auditTx(ctx, tx, r.Audit)
	})
	if err != nil {
		return nil, s.internal("requesting a transfer", err)
	}
	return out, nil
}

// ActOnTransfer implements registry.TransferStore.
func (s *Store) ActOnTransfer(ctx context.Context, domainID, registrarID int64, status string, at time.Time, e registry.AuditEntry) (*registry.Transfer, error) {
	var out *registry.Transfer
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var gaining, sponsor int64
		t, _, err := scanTransfer(scanMore{tx.QueryRowContext(ctx, s.q(`SELECT `+transferColumns+`, t.gaining_id, d.registrar_id`+transferFrom+` WHERE t.domain_id = ? AND t.status = 'pending'`), domainID), []any{&gaining, &sponsor}})
		if errors.Is(err, sql.ErrNoRows) {
			return registry.Errorf(registry.CodeNotPendingTransfer, "%s has no transfer pending", e.Name)
		}
		if err != nil {
			return err
		}
		var kinds []struct {
			kind string
			to   int64
		}
		switch status {
		case registry.TransferClientApproved, registry.TransferClientRejected:
			if registrarID != sponsor {
				if registrarID == gaining {
					return registry.Errorf(registry.CodeForbidden, "the sponsoring registrar of %s approves or rejects its transfer; the requester may cancel it", t.Name)
				}
				return registry.Errorf(registry.CodeForbidden, "%s belongs to another registrar", t.Name)
			}
			kind := registry.PollTransferApproved
			if status == registry.TransferClientRejected {
				kind = registry.PollTransferRejected
			}
			kinds = append(kinds, struct {
				kind string
				to   int64
			}{kind, gaining})
		case registry.TransferClientCancelled:
			if registrarID != gaining {
				return registry.Errorf(registry.CodeForbidden, "only the registrar that requested the transfer of %s may cancel it", t.Name)
			}
			withdrawn, err := s.withdrawRequested(ctx, tx, sponsor, t)
			if err != nil {
				return err
			}
			if !withdrawn {
				kinds = append(kinds, struct {
					kind string
					to   int64
				}{registry.PollTransferCancelled, sponsor})
			}
		case registry.TransferServerApproved, registry.TransferServerCancelled:
			if registrarID != 0 {
				return registry.Errorf(registry.CodeForbidden, "only the registry acts as the server")
			}
			if status == registry.TransferServerApproved && at.Before(t.ActDate) {
				return registry.Errorf(registry.CodeNotPendingTransfer, "the transfer of %s is not due until %s", t.Name, t.ActDate.Format(time.RFC3339))
			}
			kind := registry.PollTransferAuto
			if status == registry.TransferServerCancelled {
				kind = registry.PollTransferCancelled
			}
			kinds = append(kinds, struct {
				kind string
				to   int64
			}{kind, gaining}, struct {
				kind string
				to   int64
			}{kind, sponsor})
		default:
			return registry.Errorf(registry.CodeInternal, "no transfer status %q", status)
		}
		res, err := tx.ExecContext(ctx, s.q(`UPDATE transfers SET status = ?, acted = ? WHERE id = ? AND status = 'pending'`), status, nanos(at), t.ID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != 1 {
			return registry.Errorf(registry.CodeNotPendingTransfer, "%s has no transfer pending", t.Name)
		}
		if status == registry.TransferClientApproved || status == registry.TransferServerApproved {
			// the conflict set is held by the domain's ID: it moves with it
			res, err := tx.ExecContext(ctx, s.q(`UPDATE domains SET registrar_id = ? WHERE id = ? AND registrar_id = ?`), gaining, domainID, sponsor)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n != 1 {
				return registry.Errorf(registry.CodeInternal, "%s changed sponsor during its transfer", t.Name)
			}
			// the old authInfo is known to the losing registrar (RFC 9154 §4.3)
			if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM domain_auth WHERE domain_id = ?`), domainID); err != nil {
				return err
			}
			if err := s.extendOnTransfer(ctx, tx, domainID, t.Period, at); err != nil {
				return err
			}
			// its variant group moves with it (variantgroup.go)
			if err := s.moveGroup(ctx, tx, domainID, gaining, sponsor, at, func(id int64, name, alabel string) []registry.PollMessage {
				return registry.GroupMoveMessages(id, name, alabel, t, gaining, sponsor, at)
			}); err != nil {
				return err
			}
		}
		t.Status, t.ActDate = status, at
		msgs := make([]registry.PollMessage, len(kinds))
		for i, k := range kinds {
			msgs[i] = registry.TransferMessage(k.kind, k.to, t, at)
		}
		if err := s.enqueueTx(ctx, tx, msgs); err != nil {
			return err
		}
		out = t
		return s.auditTx(ctx, tx, e)
	})
	if err != nil {
		return nil, s.internal("acting on a transfer", err)
	}
	return out, nil
}

// withdrawRequested removes the message of transfer t's request from the
// sponsor's queue, if the sponsor has not acknowledged it yet, and reports
// whether it did: a cancelled request the sponsor never took off its
// queue is withdrawn instead of followed by a cancellation, so that
// another registrar's request/cancel pairs cannot fill the sponsor's
// queue (issue 34; docs/registry.md "The poll queue").
func (s *Store) withdrawRequested(ctx context.Context, tx *sql.Tx, sponsor int64, t *registry.Transfer) (bool, error) {
	res, err := tx.ExecContext(ctx, s.q(`DELETE FROM poll_messages WHERE registrar_id = ? AND kind = ? AND name = ? AND queued = ?`),
		sponsor, registry.PollTransferRequested, t.Name, nanos(t.Requested))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return false, err
	}
	_, err = tx.ExecContext(ctx, s.q(`UPDATE poll_queues SET msgs = msgs - ? WHERE registrar_id = ?`), n, sponsor)
	return err == nil, err
}

// extendOnTransfer adds a transfer's period (years) to the domain's
// expiry (RFC 5731 §3.2.4; a domain without one keeps none), in the
// approving transaction, and moves the domain's revision on: a lifecycle
// change decided before the transfer (by the losing sponsor) no longer
// applies (registry.Store.ApplyChange).
func (s *Store) extendOnTransfer(ctx context.Context, tx *sql.Tx, domainID int64, years int, at time.Time) error {
	var expires int64
	if err := tx.QueryRowContext(ctx, s.q(`SELECT expires FROM domains WHERE id = ?`), domainID).Scan(&expires); err != nil {
		return err
	}
	if years > 0 && expires > 0 {
		expires = registry.AddMonths(fromNanos(expires), 12*years).UnixNano()
	}
	_, err := tx.ExecContext(ctx, s.q(`UPDATE domains SET expires = ?, updated = ?, rev = rev + 1 WHERE id = ?`), expires, nanos(at), domainID)
	return err
}

// EndTransfers ends a domain's transfer state in tx when it is deleted: a
// pending transfer is cancelled by the server (both parties told by poll),
// the authInfo removed. DeleteDomain calls it; the lifecycle's delete
// (pendingDelete) and purge transitions call it in their transactions.
func (s *Store) EndTransfers(ctx context.Context, tx *sql.Tx, domainID int64, at time.Time) error {
	t, _, err := scanTransfer(tx.QueryRowContext(ctx, s.q(`SELECT `+transferColumns+transferFrom+` WHERE t.domain_id = ? AND t.status = 'pending'`), domainID))
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return err
	default:
		var gaining, losing int64
		if err := tx.QueryRowContext(ctx, s.q(`SELECT gaining_id, losing_id FROM transfers WHERE id = ?`), t.ID).Scan(&gaining, &losing); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE transfers SET status = 'serverCancelled', acted = ? WHERE id = ?`), nanos(at), t.ID); err != nil {
			return err
		}
		t.Status, t.ActDate = registry.TransferServerCancelled, at
		if err := s.enqueueTx(ctx, tx, []registry.PollMessage{
			registry.TransferMessage(registry.PollTransferCancelled, gaining, t, at),
			registry.TransferMessage(registry.PollTransferCancelled, losing, t, at),
		}); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, s.q(`DELETE FROM domain_auth WHERE domain_id = ?`), domainID)
	return err
}

// DueTransfers implements registry.TransferStore.
func (s *Store) DueTransfers(ctx context.Context, now time.Time, limit int) ([]int64, error) {
	ids, err := queryRows(ctx, s, `SELECT domain_id FROM transfers WHERE status = 'pending' AND due <= ? ORDER BY due, id LIMIT ?`, func(rows *sql.Rows) (id int64, err error) {
		err = rows.Scan(&id)
		return id, err
	}, nanos(now), limit)
	return ids, internal("listing due transfers", err)
}

// TransferPolicy implements registry.TransferStore.
func (s *Store) TransferPolicy(ctx context.Context, zone string) (period, lock time.Duration, err error) {
	var p, l int64
	err = s.do(ctx, func() error {
		return s.queryRow(ctx, nil, `SELECT pending_s, lock_s FROM transfer_policy WHERE zone = ?`, zone).Scan(&p, &l)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return registry.DefaultTransferPeriod, registry.DefaultTransferLock, nil
	}
	if err != nil {
		return 0, 0, internal("reading the transfer policy", err)
	}
	return time.Duration(p) * time.Second, time.Duration(l) * time.Second, nil
}

// SetTransferPolicy implements registry.TransferStore.
func (s *Store) SetTransferPolicy(ctx context.Context, zone string, period, lock time.Duration) error {
	return s.internal("setting the transfer policy", s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM transfer_policy WHERE zone = ?`), zone); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO transfer_policy (zone, pending_s, lock_s) VALUES (?, ?, ?)`), zone, int64(period/time.Second), int64(lock/time.Second))
		return err
	}))
}

// pollData is what a poll message keeps beside its columns.
type pollData struct {
	Transfer     *registry.Transfer          `json:"transfer,omitempty"`
	ExDate       *time.Time                  `json:"ex_date,omitempty"`
	DomainID     int64                       `json:"domain_id,omitempty"` // a deletion's (registry/pollaction.go)
	Statuses     []string                    `json:"statuses,omitempty"`
	AuthFailures *registry.AuthFailureNotice `json:"auth_failures,omitempty"`
	Change       *registry.ChangeData        `json:"change,omitempty"` // RFC 8590 (registry/changepoll.go)
	Maint        *registry.MaintNote         `json:"maint,omitempty"`  // RFC 9167 (registry/maintenance.go)
}

// EnqueuePoll appends messages to their registrars' queues in tx: for the
// lifecycle's transitions (auto-renewal, deletion, purge), which queue
// their messages in their own transaction. Each registrar's row of
// poll_queues is taken (and held locked until tx ends) in the order of
// the registrars' IDs, so that two transactions queueing for the same
// registrars cannot deadlock, and a queue's seq is in commit order.
func (s *Store) EnqueuePoll(ctx context.Context, tx *sql.Tx, msgs []registry.PollMessage) error {
	return s.enqueueTx(ctx, tx, msgs)
}

func (s *Store) enqueueTx(ctx context.Context, tx *sql.Tx, msgs []registry.PollMessage) error {
	if len(msgs) == 0 {
		return nil
	}
	sorted := append([]registry.PollMessage(nil), msgs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].RegistrarID < sorted[j].RegistrarID })
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j].RegistrarID == sorted[i].RegistrarID {
			j++
		}
		n := int64(j - i)
		var last int64
		err := tx.QueryRowContext(ctx, s.q(`INSERT INTO poll_queues (registrar_id, seq, msgs) VALUES (?, ?, ?)
			ON CONFLICT (registrar_id) DO UPDATE SET seq = poll_queues.seq + excluded.seq, msgs = poll_queues.msgs + excluded.msgs RETURNING seq`),
			sorted[i].RegistrarID, n, n).Scan(&last)
		if err != nil {
			return err
		}
		// the messages in multi-row inserts (a purge batch queues hundreds)
		const rows = 100
		for k0 := i; k0 < j; k0 += rows {
			k1 := min(k0+rows, j)
			args := make([]any, 0, 8*(k1-k0))
			for k := k0; k < k1; k++ {
				m := &sorted[k]
				d := pollData{Transfer: m.Transfer, DomainID: m.DomainID, Statuses: m.Statuses, AuthFailures: m.AuthFailures, Change: m.Change, Maint: m.Maint}
				if !m.ExDate.IsZero() {
					d.ExDate = &m.ExDate
				}
				data, err := json.Marshal(d)
				if err != nil {
					return err
				}
				seq := last - n + int64(k-i) + 1
				args = append(args, m.RegistrarID, seq, nanos(m.Queued), m.Kind, m.Name, m.ALabel, m.Text, string(data))
			}
			q := `INSERT INTO poll_messages (registrar_id, seq, queued, kind, name, alabel, msg, data) VALUES ` +
				strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?), ", k1-k0), ", ")
			if _, err := tx.ExecContext(ctx, s.q(q), args...); err != nil {
				return err
			}
		}
		i = j
	}
	return nil
}

// Enqueue implements registry.PollStore.
func (s *Store) Enqueue(ctx context.Context, msgs []registry.PollMessage) error {
	return s.internal("queueing poll messages", s.tx(ctx, func(tx *sql.Tx) error { return s.enqueueTx(ctx, tx, msgs) }))
}

// PollHead implements registry.PollStore: the head and the count in one
// statement, so that they agree.
func (s *Store) PollHead(ctx context.Context, registrarID int64) (m *registry.PollMessage, count int, err error) {
	err = s.do(ctx, func() error {
		m = &registry.PollMessage{RegistrarID: registrarID}
		var queued int64
		var data string
		err := s.queryRow(ctx, nil, `SELECT m.id, m.queued, m.kind, m.name, m.alabel, m.msg, m.data, q.msgs FROM poll_queues q JOIN poll_messages m ON m.registrar_id = q.registrar_id
			WHERE q.registrar_id = ? ORDER BY m.seq LIMIT 1`, registrarID).Scan(&m.ID, &queued, &m.Kind, &m.Name, &m.ALabel, &m.Text, &data, &count)
		if err != nil {
			return err
		}
		m.Queued = fromNanos(queued)
		var d pollData
		if err := json.Unmarshal([]byte(data), &d); err != nil {
			return err
		}
		m.Transfer, m.DomainID, m.Statuses, m.AuthFailures, m.Change, m.Maint = d.Transfer, d.DomainID, d.Statuses, d.AuthFailures, d.Change, d.Maint
		if d.ExDate != nil {
			m.ExDate = d.ExDate.UTC()
		}
		return nil
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, internal("reading the poll queue", err)
	}
	return m, count, nil
}

// PollAck implements registry.PollStore.
func (s *Store) PollAck(ctx context.Context, registrarID, id int64) (int, error) {
	var left int
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM poll_messages WHERE registrar_id = ? AND id = ?`), registrarID, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return registry.Errorf(registry.CodeNotFound, "there is no message %d in your queue", id)
		}
		return tx.QueryRowContext(ctx, s.q(`UPDATE poll_queues SET msgs = msgs - 1 WHERE registrar_id = ? RETURNING msgs`), registrarID).Scan(&left)
	})
	return left, s.internal("acknowledging a poll message", err)
}

var (
	_ registry.TransferStore = (*Store)(nil)
	_ registry.PollStore     = (*Store)(nil)
)
