package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// Accounts, ledgers and prices (registry.BillingStore; migration 210). A
// charge is one conditional UPDATE of the registrar's account row, which
// holds the row until the command commits, and one INSERT into the
// ledger, in the command's transaction: two commands of one registrar
// that race for the last of its balance serialize on the row, and the
// second finds the balance the first left.

// The statements every charged command runs, prepared when the store
// opens (prepare) so that a command's transaction runs them without
// parsing them again.
const (
	priceAtQuery = `SELECT zone, command, years, label, amount, valid_from, created FROM prices
			WHERE zone IN (?, ?) AND command IN (?, ?) AND years IN (?, 1) AND label IN ('', ?) AND valid_from <= ?
			ORDER BY CASE WHEN label = '' THEN 1 ELSE 0 END, CASE WHEN years = ? THEN 0 ELSE 1 END,
				CASE WHEN zone = ? THEN 0 ELSE 1 END, CASE WHEN command = ? THEN 0 ELSE 1 END, valid_from DESC LIMIT 1`
	debitQuery   = `UPDATE accounts SET balance = balance + ? WHERE registrar_id = ? AND balance + ? >= -credit_limit RETURNING ` + accountColumns
	creditQuery  = `UPDATE accounts SET balance = balance + ? WHERE registrar_id = ? RETURNING ` + accountColumns
	accountQuery = `SELECT ` + accountColumns + ` FROM accounts WHERE registrar_id = ?`
	ledgerInsert = `INSERT INTO ledger (registrar_id, at, kind, command, zone, name, domain_id, months, price, amount, balance, audit_id, refund_of, note)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`
)

var billingStatements = []string{priceAtQuery, debitQuery, creditQuery, accountQuery, ledgerInsert}

// PriceAt implements registry.BillingStore: one indexed query. Of the
// rows in force at at (valid_from <= at) for the command or its
// fallback, the years or 1, one of the zones, the label or every label,
// it takes the label's own, then the years', then the first zone's, then
// the command's own, then the latest.
func (s *Store) PriceAt(ctx context.Context, zones []string, command, fallback string, years int, label string, at time.Time) (*registry.Price, error) {
	if len(zones) == 0 {
		return nil, nil
	}
	if fallback == "" {
		fallback = command
	}
	zone2 := zones[0]
	if len(zones) > 1 {
		zone2 = zones[1]
	}
	var p registry.Price
	var from, created int64
	err := s.do(ctx, func() error {
		return s.queryRow(ctx, nil, priceAtQuery, zones[0], zone2, command, fallback, years, label, at.UnixNano(), years, zones[0], command).
			Scan(&p.Zone, &p.Command, &p.Years, &p.Label, &p.Amount, &from, &created)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, internal("reading the price list", err)
	}
	p.From, p.Created = fromNanos(from), fromNanos(created)
	return &p, nil
}

// SetPrice implements registry.BillingStore.
func (s *Store) SetPrice(ctx context.Context, p registry.Price) error {
	return s.internal("setting a price", s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM prices WHERE zone = ? AND command = ? AND years = ? AND label = ? AND valid_from = ?`),
			p.Zone, p.Command, p.Years, p.Label, p.From.UnixNano()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO prices (zone, command, years, label, amount, valid_from, created) VALUES (?, ?, ?, ?, ?, ?, ?)`),
			p.Zone, p.Command, p.Years, p.Label, int64(p.Amount), p.From.UnixNano(), nanos(p.Created))
		return err
	}))
}

// Prices implements registry.BillingStore.
func (s *Store) Prices(ctx context.Context, zone string) ([]registry.Price, error) {
	q := `SELECT zone, command, years, label, amount, valid_from, created FROM prices`
	var args []any
	if zone != "" {
		q += ` WHERE zone = ?`
		args = append(args, zone)
	}
	q += ` ORDER BY zone` + s.d.ByteOrder + `, command, years, label` + s.d.ByteOrder + `, valid_from`
	out, err := queryRows(ctx, s, q, func(rows *sql.Rows) (p registry.Price, err error) {
		var from, created int64
		err = rows.Scan(&p.Zone, &p.Command, &p.Years, &p.Label, &p.Amount, &from, &created)
		p.From, p.Created = fromNanos(from), fromNanos(created)
		return p, err
	}, args...)
	return out, internal("listing prices", err)
}

// RegistrarNamed implements registry.BillingStore.
func (s *Store) RegistrarNamed(ctx context.Context, name string) (*registry.Registrar, error) {
	r := &registry.Registrar{Name: name}
	var created int64
	err := s.do(ctx, func() error {
		return s.queryRow(ctx, nil, `SELECT id, created FROM registrars WHERE name = ?`, name).Scan(&r.ID, &created)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, registry.Errorf(registry.CodeNotFound, "there is no registrar %q", name)
	}
	if err != nil {
		return nil, internal("finding a registrar", err)
	}
	r.Created = fromNanos(created)
	return r, nil
}

const accountColumns = `balance, credit_limit, low_balance, gstin, state, legal_name`

func scanAccount(row interface{ Scan(...any) error }, a *registry.Account) error {
	return row.Scan(&a.Balance, &a.CreditLimit, &a.LowBalance, &a.GSTIN, &a.State, &a.LegalName)
}

// Post implements registry.BillingStore.
func (s *Store) Post(ctx context.Context, e *registry.LedgerEntry, limit bool) (posted bool, a *registry.Account, err error) {
	err = s.tx(ctx, func(tx *sql.Tx) error {
		posted, a = false, &registry.Account{RegistrarID: e.RegistrarID}
		if e.RegistrarID == 0 {
			if err := tx.QueryRowContext(ctx, s.q(`SELECT id FROM registrars WHERE name = ?`), e.Registrar).Scan(&e.RegistrarID); err != nil {
				if errors.Is(err, sql.ErrNoRows) {
					return registry.Errorf(registry.CodeNotFound, "there is no registrar %q", e.Registrar)
				}
				return err
			}
			a.RegistrarID = e.RegistrarID
		}
		q, args := creditQuery, []any{int64(e.Amount), e.RegistrarID}
		if limit {
			q, args = debitQuery, append(args, int64(e.Amount))
		}
		for try := 0; ; try++ {
			err := scanAccount(s.queryRow(ctx, tx, q, args...), a)
			if err == nil {
				break
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			// no row, or the balance cannot pay: which one
			err = scanAccount(s.queryRow(ctx, tx, accountQuery, e.RegistrarID), a)
			if err == nil || !errors.Is(err, sql.ErrNoRows) || try > 0 {
				return err // the account cannot pay (posted false)
			}
			// the registrar's first entry: its account, then again
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO accounts (registrar_id) VALUES (?) ON CONFLICT (registrar_id) DO NOTHING`), e.RegistrarID); err != nil {
				return err
			}
		}
		e.Balance = a.Balance
		var audit, refund any
		if e.AuditID != 0 {
			audit = e.AuditID
		}
		if e.RefundOf != 0 {
			refund = e.RefundOf
		}
		if err := s.queryRow(ctx, tx, ledgerInsert,
			e.RegistrarID, e.At.UnixNano(), e.Kind, e.Command, e.Zone, e.Name, e.DomainID, e.Months, int64(e.Price), int64(e.Amount), int64(e.Balance),
			audit, refund, e.Note).Scan(&e.ID); err != nil {
			return err
		}
		posted = true
		return nil
	})
	if err != nil {
		return false, nil, s.internal("posting to an account", err)
	}
	return posted, a, nil
}

// Account implements registry.BillingStore.
func (s *Store) Account(ctx context.Context, registrarID int64) (*registry.Account, error) {
	a := &registry.Account{RegistrarID: registrarID}
	err := s.do(ctx, func() error {
		var id int64
		if err := s.queryRow(ctx, nil, `SELECT id FROM registrars WHERE id = ?`, registrarID).Scan(&id); err != nil {
			return err
		}
		err := scanAccount(s.queryRow(ctx, nil, accountQuery, registrarID), a)
		if errors.Is(err, sql.ErrNoRows) {
			*a = registry.Account{RegistrarID: registrarID} // none yet: empty
			return nil
		}
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, registry.Errorf(registry.CodeNotFound, "there is no registrar %d", registrarID)
	}
	return a, internal("reading an account", err)
}

// SetAccount implements registry.BillingStore.
func (s *Store) SetAccount(ctx context.Context, a *registry.Account) error {
	return s.internal("setting an account", s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO accounts (registrar_id, credit_limit, low_balance, gstin, state, legal_name) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (registrar_id) DO UPDATE SET credit_limit = excluded.credit_limit, low_balance = excluded.low_balance,
			gstin = excluded.gstin, state = excluded.state, legal_name = excluded.legal_name`),
			a.RegistrarID, int64(a.CreditLimit), int64(a.LowBalance), a.GSTIN, a.State, a.LegalName)
		return err
	}))
}

const ledgerColumns = `l.id, l.registrar_id, r.name, l.at, l.kind, l.command, l.zone, l.name, l.domain_id, l.months, l.price, l.amount, l.balance,
	COALESCE(l.audit_id, 0), COALESCE(l.refund_of, 0), l.note`

func scanEntry(rows *sql.Rows) (e registry.LedgerEntry, err error) {
	var at int64
	err = rows.Scan(&e.ID, &e.RegistrarID, &e.Registrar, &at, &e.Kind, &e.Command, &e.Zone, &e.Name, &e.DomainID, &e.Months,
		&e.Price, &e.Amount, &e.Balance, &e.AuditID, &e.RefundOf, &e.Note)
	e.At = fromNanos(at)
	return e, err
}

// Ledger implements registry.BillingStore.
func (s *Store) Ledger(ctx context.Context, f registry.LedgerFilter) ([]registry.LedgerEntry, error) {
	q := `SELECT ` + ledgerColumns + ` FROM ledger l JOIN registrars r ON r.id = l.registrar_id WHERE l.id > ?`
	args := []any{f.AfterID}
	if f.RegistrarID != 0 {
		q += ` AND l.registrar_id = ?`
		args = append(args, f.RegistrarID)
	}
	if f.DomainID != 0 {
		q += ` AND l.domain_id = ?`
		args = append(args, f.DomainID)
	}
	if f.Kind != "" {
		q += ` AND l.kind = ?`
		args = append(args, f.Kind)
	}
	if !f.Since.IsZero() {
		q += ` AND l.at >= ?`
		args = append(args, f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		q += ` AND l.at < ?`
		args = append(args, f.Until.UnixNano())
	}
	q += ` ORDER BY l.id`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	out, err := queryRows(ctx, s, q, scanEntry, args...)
	return out, internal("reading the ledger", err)
}

// LedgerSum implements registry.BillingStore.
func (s *Store) LedgerSum(ctx context.Context, registrarID int64, until time.Time) (registry.Money, error) {
	var sum int64
	err := s.do(ctx, func() error {
		return s.queryRow(ctx, nil, `SELECT COALESCE(SUM(amount), 0) FROM ledger WHERE registrar_id = ? AND at < ?`, registrarID, until.UnixNano()).Scan(&sum)
	})
	return registry.Money(sum), internal("summing the ledger", err)
}

// Refundable implements registry.BillingStore.
func (s *Store) Refundable(ctx context.Context, domainID int64, commands []string, since time.Time) ([]registry.LedgerEntry, error) {
	q := `SELECT ` + ledgerColumns + ` FROM ledger l JOIN registrars r ON r.id = l.registrar_id
		WHERE l.domain_id = ? AND l.kind = 'debit' AND l.at >= ? AND NOT EXISTS (SELECT 1 FROM ledger x WHERE x.refund_of = l.id)`
	args := []any{domainID, since.UnixNano()}
	if len(commands) > 0 {
		q += ` AND l.command IN (` + marks(len(commands)) + `)`
		for _, c := range commands {
			args = append(args, c)
		}
	}
	out, err := queryRows(ctx, s, q+` ORDER BY l.id`, scanEntry, args...)
	return out, internal("reading refundable debits", err)
}

// Reconcile implements registry.BillingStore: per registrar with an
// account, the balance, the ledger's sum and count, the entries whose
// balance is not the one before plus their amount (in ledger order), and
// the debits and refunds whose audit record is missing or is not of a
// successful command of their domain.
func (s *Store) Reconcile(ctx context.Context) ([]registry.Reconciliation, error) {
	out, err := queryRows(ctx, s, `SELECT r.name, a.balance,
		COALESCE((SELECT SUM(amount) FROM ledger WHERE registrar_id = a.registrar_id), 0),
		(SELECT COUNT(*) FROM ledger WHERE registrar_id = a.registrar_id),
		(SELECT COUNT(*) FROM (SELECT balance, amount, LAG(balance, 1, 0) OVER (ORDER BY id) AS prev FROM ledger WHERE registrar_id = a.registrar_id) c
			WHERE c.balance <> c.prev + c.amount),
		(SELECT COUNT(*) FROM ledger l WHERE l.registrar_id = a.registrar_id AND l.kind IN ('debit', 'refund') AND NOT EXISTS
			(SELECT 1 FROM audit u WHERE u.id = l.audit_id AND u.name = l.name AND u.result LIKE 'ok%'))
		FROM accounts a JOIN registrars r ON r.id = a.registrar_id ORDER BY r.name`+s.d.ByteOrder,
		func(rows *sql.Rows) (c registry.Reconciliation, err error) {
			err = rows.Scan(&c.Registrar, &c.Balance, &c.LedgerSum, &c.Entries, &c.Broken, &c.Unlinked)
			return c, err
		})
	return out, internal("reconciling the accounts", err)
}

// BillingSettings implements registry.BillingStore.
func (s *Store) BillingSettings(ctx context.Context) (map[string]string, error) {
	type kv struct{ k, v string }
	rows, err := queryRows(ctx, s, `SELECT key, value FROM billing_settings`, func(rows *sql.Rows) (x kv, err error) {
		err = rows.Scan(&x.k, &x.v)
		return x, err
	})
	if err != nil {
		return nil, internal("reading the billing settings", err)
	}
	m := make(map[string]string, len(rows))
	for _, x := range rows {
		m[x.k] = x.v
	}
	return m, nil
}

// SetBillingSetting implements registry.BillingStore.
func (s *Store) SetBillingSetting(ctx context.Context, key, value string) error {
	return s.internal("setting a billing setting", s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO billing_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`), key, value)
		return err
	}))
}

var _ registry.BillingStore = (*Store)(nil)

// noteAudit reads the ID an audit record's INSERT … RETURNING id gives
// and tells the command whose transaction ctx carries (a ledger entry
// names its command's audit record: registry.NoteAudit).
func (s *Store) noteAudit(ctx context.Context, row *sql.Row) error {
	var id int64
	if err := row.Scan(&id); err != nil {
		return err
	}
	registry.NoteAudit(ctx, id)
	return nil
}
