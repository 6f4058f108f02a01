package registry

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Registrar accounts and billing (issue 36; docs/billing.md). Every
// registrar has a prepaid account in INR (paise, Money), and an
// append-only ledger of entries: credits by the operator, a debit per
// billable command, refunds, adjustments; the balance is the ledger's sum
// (Reconcile proves it). The operator keeps price lists per zone (a
// family's first zone for the whole family), command and period, each in
// force from its date; a command uses the price in force at its
// transaction's time (the service's clock), and a zone without a price
// list charges nothing.
//
// The money decisions are this file's: the price of a command (priceOf),
// whether the account can pay it, the refund of a delete in a grace
// period, what becomes of an auto-renewal its sponsor cannot pay. The
// charge is one call in each billable flow's transaction, after the
// command's writes (so that it has the command's audit record): a balance
// that cannot pay refuses the command (BILLING_FAILURE: EPP 2104, HTTP
// 402) and rolls everything back. The store keeps the account, the
// ledger and the prices, and debits an account only if its balance stays
// at or above minus its credit limit, atomically (the row two racing
// commands of one registrar serialize on).

// The billable commands (the price lists' command names).
const (
	BillCreate    = "create"
	BillRenew     = "renew"
	BillAutoRenew = "autorenew"
	BillTransfer  = "transfer"
	BillRestore   = "restore"
)

// BillableCommands lists the commands a price list prices.
var BillableCommands = []string{BillCreate, BillRenew, BillAutoRenew, BillTransfer, BillRestore}

// The kinds of ledger entries.
const (
	EntryCredit     = "credit"     // the operator's top-up (positive)
	EntryDebit      = "debit"      // a billable command (negative)
	EntryRefund     = "refund"     // a debit given back (positive), such as a delete in add grace
	EntryAdjustment = "adjustment" // the operator's correction (either sign)
)

// Error codes of billing.
const (
	// CodeBillingFailure: the account cannot pay the command (EPP 2104,
	// HTTP 402); the message says the balance and the price.
	CodeBillingFailure = "BILLING_FAILURE"
	// CodeFeeTooLow: the fee the client agreed to (RFC 8748 <fee:fee>) is
	// below the price, or in another currency (EPP 2004).
	CodeFeeTooLow = "FEE_MISMATCH"
	// CodeBadAmount: an amount that is not one (BAD_AMOUNT, 400/2005).
	CodeBadAmount = "BAD_AMOUNT"
)

func init() {
	DefineCode(CodeBillingFailure, CodeInfo{HTTP: 402, EPP: 2104, Reason: "billing failure"})
	DefineCode(CodeFeeTooLow, CodeInfo{HTTP: 400, EPP: 2004, Reason: "fee below the price"})
	DefineCode(CodeBadAmount, CodeInfo{HTTP: 400, EPP: 2005, Reason: "bad amount"})
}

// PollLowBalance is the kind of the poll message that tells a registrar
// its balance fell below its threshold.
const PollLowBalance = "low-balance"

// Price is one row of a zone's price list.
type Price struct {
	Zone    string `json:"zone"`
	Command string `json:"command"` // one of BillableCommands
	Years   int    `json:"years"`   // the period it prices
	// Label is a premium name's label (U-label) that this price is for;
	// "" for every label of the zone.
	Label  string `json:"label,omitempty"`
	Amount Money  `json:"amount"`
	// From is when the price takes effect; it is in force until the From
	// of a later row of the same zone, command, years and label.
	From    time.Time `json:"from"`
	Created time.Time `json:"created,omitzero"`
}

// Account is a registrar's account.
type Account struct {
	RegistrarID int64  `json:"-"`
	Registrar   string `json:"registrar"`
	Balance     Money  `json:"balance"`
	// CreditLimit is how far below zero the balance may go (a postpaid
	// registrar); 0 for a prepaid one.
	CreditLimit Money `json:"credit_limit"`
	// LowBalance is the threshold: a charge that takes the balance below
	// it tells the registrar by a poll message (0: never).
	LowBalance Money  `json:"low_balance"`
	Currency   string `json:"currency"`
	// The registrar's GST registration (its GSTIN, and its state as the
	// two-digit GST state code) and legal name, for its tax invoices.
	GSTIN     string `json:"gstin,omitempty"`
	State     string `json:"state,omitempty"`
	LegalName string `json:"legal_name,omitempty"`
}

// LedgerEntry is one entry of a registrar's ledger.
type LedgerEntry struct {
	ID          int64     `json:"id"`
	RegistrarID int64     `json:"-"`
	Registrar   string    `json:"registrar"`
	At          time.Time `json:"at"`
	Kind        string    `json:"kind"`              // EntryCredit, …
	Command     string    `json:"command,omitempty"` // for a debit or a refund: the billable command
	Zone        string    `json:"zone,omitempty"`
	Name        string    `json:"name,omitempty"` // the domain (label.zone, U-labels)
	DomainID    int64     `json:"-"`
	Months      int       `json:"months,omitempty"` // the period paid for
	Price       Money     `json:"price"`            // the price list's amount
	Amount      Money     `json:"amount"`           // the change of the balance: negative for a debit
	Balance     Money     `json:"balance"`          // the balance after
	AuditID     int64     `json:"audit_id,omitempty"`
	RefundOf    int64     `json:"refund_of,omitempty"` // a refund's debit
	Note        string    `json:"note,omitempty"`
}

// LedgerFilter selects ledger entries; zero fields select everything.
type LedgerFilter struct {
	RegistrarID int64
	DomainID    int64
	Kind        string
	Since       time.Time // inclusive
	Until       time.Time // exclusive
	AfterID     int64     // a cursor: entries with a larger ID
	Limit       int       // 0: no limit
}

// Reconciliation is what Reconcile found for one registrar.
type Reconciliation struct {
	Registrar string `json:"registrar"`
	Balance   Money  `json:"balance"`    // the account's balance
	LedgerSum Money  `json:"ledger_sum"` // the sum of its ledger
	Entries   int    `json:"entries"`
	// Broken counts the entries whose balance is not the one before
	// plus their amount (the chain of balances, in ledger order).
	Broken int `json:"broken_chain"`
	// Unlinked counts the debits and refunds without an audit record of
	// a successful command of the same domain.
	Unlinked int `json:"unlinked"`
}

// OK reports whether the account agrees with its ledger.
func (r Reconciliation) OK() bool {
	return r.Balance == r.LedgerSum && r.Broken == 0 && r.Unlinked == 0
}

// BillingStore keeps accounts, ledgers and prices (the SQL stores do).
type BillingStore interface {
	// PriceAt returns the row of the price lists in force at at for
	// command (or, if there is none, fallback; "" for none) and years
	// (or 1 year, which the caller multiplies), in one of zones (the
	// first preferred), for label (a premium price) or every label: the
	// most specific, latest row; nil if there is none.
	PriceAt(ctx context.Context, zones []string, command, fallback string, years int, label string, at time.Time) (*Price, error)
	// SetPrice adds a row to a price list (replacing one of the same
	// zone, command, years, label and From).
	SetPrice(ctx context.Context, p Price) error
	// Prices lists a zone's price list ("" for every zone), by command,
	// years, label and From.
	Prices(ctx context.Context, zone string) ([]Price, error)
	// Post appends e to its registrar's ledger (e.RegistrarID, or the
	// registrar named e.Registrar) and adds e.Amount to the account's
	// balance, in one transaction (the command's): with limit, only if
	// the balance after is at least minus the account's credit limit.
	// It fills in e.ID and e.Balance and returns the account after, and
	// whether it posted (false: the account, unchanged, could not pay).
	Post(ctx context.Context, e *LedgerEntry, limit bool) (posted bool, a *Account, err error)
	// Account returns a registrar's account (a zero one if it has none
	// yet; ErrNotFound if there is no such registrar).
	Account(ctx context.Context, registrarID int64) (*Account, error)
	// SetAccount stores an account's settings: its credit limit,
	// threshold, GSTIN, state and legal name (not its balance).
	SetAccount(ctx context.Context, a *Account) error
	// RegistrarNamed finds a registrar by name (ErrNotFound if none).
	RegistrarNamed(ctx context.Context, name string) (*Registrar, error)
	// Ledger returns the entries f selects, in ledger order, with their
	// registrars' names.
	Ledger(ctx context.Context, f LedgerFilter) ([]LedgerEntry, error)
	// LedgerSum sums the amounts of a registrar's entries before until
	// (the balance at that time).
	LedgerSum(ctx context.Context, registrarID int64, until time.Time) (Money, error)
	// Refundable returns the debits of a domain made at or after since
	// (for commands, or all if empty) that no refund gave back yet.
	Refundable(ctx context.Context, domainID int64, commands []string, since time.Time) ([]LedgerEntry, error)
	// Reconcile checks every registrar's account against its ledger.
	Reconcile(ctx context.Context) ([]Reconciliation, error)
	// BillingSettings returns the registry's billing settings;
	// SetBillingSetting sets one.
	BillingSettings(ctx context.Context) (map[string]string, error)
	SetBillingSetting(ctx context.Context, key, value string) error
}

func (s *Service) billingStore() (BillingStore, error) {
	bs, ok := s.store.(BillingStore)
	if !ok {
		return nil, Errorf(CodeInternal, "the store keeps no accounts")
	}
	return bs, nil
}

// Shortfall is the detail of a BILLING_FAILURE: what the account had and
// what the command costs. Front ends show it (HTTP's 402 body).
type Shortfall struct {
	Registrar   string
	Balance     Money
	CreditLimit Money
	Price       Money
	// Own: the account is the caller's (its balance may be shown); false
	// for another registrar's (a transfer the losing one approves).
	Own bool
}

func (f *Shortfall) Error() string {
	return fmt.Sprintf("balance %s, price %s", f.Balance, f.Price)
}

// Fees is what a front end tells a billable command and is told back
// (RFC 8748: the <fee:fee> a client agrees to, and the fee charged,
// echoed in the response). WithFees puts it in the command's context; the
// command fills it in once it has committed.
type Fees struct {
	// Agreed is the fee the client agrees to pay (nil: any). A command
	// whose price is above it is refused (FEE_MISMATCH, EPP 2004).
	Agreed *Money
	// Currency is the currency the client names ("": the registry's).
	Currency string

	// Filled in by the command:
	Priced   bool  // the command has a price (a zone with a price list)
	Price    Money // its price (a transfer request: what its approval costs at today's price)
	Charged  Money // what was debited
	Refunded Money // what was given back (a delete in a grace period)
	Months   int   // the period charged for
	Balance  Money // the balance after
	Limit    Money // the account's credit limit
}

type feesKey struct{}

// WithFees returns a context that carries f to the command run with it.
func WithFees(ctx context.Context, f *Fees) context.Context {
	return context.WithValue(ctx, feesKey{}, f)
}

func feesOf(ctx context.Context) *Fees {
	f, _ := ctx.Value(feesKey{}).(*Fees)
	return f
}

// flowState is what a command's transaction gathers beside the store's
// writes: the ID of the audit record it wrote last (the store tells it,
// NoteAudit), what it charged (for the front end's Fees) and what to do
// once it committed (a log line). It is reset at every run of the
// transaction's function.
type flowState struct {
	auditID int64
	fees    Fees
	billed  bool
	after   []func()
}

type flowKey struct{}

// withFlow gives a command's transaction (transact) its flowState: f is
// wrapped to start each run afresh, and done, given the transaction's
// outcome, runs what was to be done after a commit and fills in the
// front end's Fees. Inside another command's transaction, the outer's
// state is used and done does nothing.
func withFlow(ctx context.Context, f func(ctx context.Context) error) (context.Context, func(ctx context.Context) error, func(error) error) {
	if _, ok := ctx.Value(flowKey{}).(*flowState); ok {
		return ctx, f, func(err error) error { return err }
	}
	st := &flowState{}
	ctx = context.WithValue(ctx, flowKey{}, st)
	run := func(ctx context.Context) error {
		*st = flowState{}
		return f(ctx)
	}
	done := func(err error) error {
		if err != nil {
			return err
		}
		for _, h := range st.after {
			h()
		}
		if fs := feesOf(ctx); fs != nil && st.billed {
			agreed, cur := fs.Agreed, fs.Currency
			*fs = st.fees
			fs.Agreed, fs.Currency = agreed, cur
		}
		return nil
	}
	return ctx, run, done
}

func flowOf(ctx context.Context) *flowState {
	st, _ := ctx.Value(flowKey{}).(*flowState)
	return st
}

// NoteAudit is how a store tells the command whose transaction ctx
// carries the ID of the audit record it just wrote for it (a ledger entry
// names the audit record of its command).
func NoteAudit(ctx context.Context, id int64) {
	if st := flowOf(ctx); st != nil {
		st.auditID = id
	}
}

// afterCommit runs h once the command's transaction committed (never
// for one rolled back).
func afterCommit(ctx context.Context, h func()) {
	if st := flowOf(ctx); st != nil {
		st.after = append(st.after, h)
		return
	}
	h()
}

// A quote is the price of a command for a name at a time.
type quote struct {
	priced bool
	amount Money
	months int
	class  string // "standard", or "premium" for a name's own price
}

// priceOf returns the price of command for the label of zone z and a
// period of months, at at: the price list's row for the period's years,
// or the 1-year row times the period (months that are not whole years
// are priced pro rata, rounded up to the paisa); an auto-renewal without
// a price of its own is priced as a renewal. A zone without a row
// charges nothing (priced false).
func (s *Service) priceOf(ctx context.Context, bs BillingStore, z *Zone, command, label string, months int, at time.Time) (quote, error) {
	if months <= 0 {
		months = 12
	}
	years := (months + 11) / 12
	zones := priceZones(z)
	fallback := ""
	if command == BillAutoRenew {
		fallback = BillRenew
	}
	p, err := bs.PriceAt(ctx, zones, command, fallback, years, label, at)
	if err != nil {
		return quote{months: months}, err
	}
	return quoteOf(p, months), nil
}

// priceZones are the zones whose price lists price z: its own, then its
// family's first zone's.
func priceZones(z *Zone) []string {
	zones := []string{z.Name}
	if z.Family != "" && z.Family != z.Name {
		zones = append(zones, z.Family)
	}
	return zones
}

// quoteOf is the price of a period of months by the price list's row p
// (nil: none, free).
func quoteOf(p *Price, months int) quote {
	years := (months + 11) / 12
	if p == nil {
		return quote{months: months}
	}
	q := quote{priced: true, months: months, class: "standard"}
	if p.Label != "" {
		q.class = "premium"
	}
	switch {
	case p.Years == years && months%12 == 0:
		q.amount = p.Amount
	case p.Years == years: // a period in months, within the row's years
		q.amount = Money((int64(p.Amount)*int64(months) + int64(12*years) - 1) / int64(12*years))
	default: // the 1-year row, for the period
		q.amount = Money((int64(p.Amount)*int64(months) + 11) / 12)
	}
	return q
}

// pickPrice is PriceAt over rows read before (a zone's price list): of
// the rows in force at at for command (or fallback), years (or 1), one of
// zones, label (or every label), the label's own, then the years', then
// the first zone's, then the command's own, then the latest. The SQL
// stores' PriceAt orders the same (TestPickPrice holds them together).
func pickPrice(rows []Price, zones []string, command, fallback string, years int, label string, at time.Time) *Price {
	if fallback == "" {
		fallback = command
	}
	var best *Price
	rank := func(p *Price) [4]int {
		b := func(c bool) int {
			if c {
				return 0
			}
			return 1
		}
		return [4]int{b(p.Label != ""), b(p.Years == years), b(p.Zone == zones[0]), b(p.Command == command)}
	}
	for i := range rows {
		p := &rows[i]
		if !slices.Contains(zones, p.Zone) || (p.Command != command && p.Command != fallback) || (p.Years != years && p.Years != 1) ||
			(p.Label != "" && p.Label != label) || p.From.After(at) {
			continue
		}
		if best == nil {
			best = p
			continue
		}
		rb, rp := rank(best), rank(p)
		if rp != rb {
			if slices.Compare(rp[:], rb[:]) < 0 {
				best = p
			}
			continue
		}
		if p.From.After(best.From) {
			best = p
		}
	}
	return best
}

// QuoteRequest is a command and period a fee check asks the price of.
type QuoteRequest struct {
	Command string
	Period  Period
}

// QuoteAll prices each request for each name, now, reading each zone's
// price list once (a fee check of 64 names and 4 commands is one read
// of a zone's list, not 256): out[i][j] is names[i]'s price of reqs[j],
// or errs[i] the reason names[i] has none (not a name of the registry's
// zones; a period out of the zone's range).
func (s *Service) QuoteAll(ctx context.Context, names []string, reqs []QuoteRequest) (out [][]*Quote, errs []error, err error) {
	for _, r := range reqs {
		if !slices.Contains(BillableCommands, r.Command) {
			return nil, nil, Errorf(CodeBadStatus, "%q is not a billable command (%s)", r.Command, strings.Join(BillableCommands, ", "))
		}
	}
	bs, err := s.billingStore()
	if err != nil {
		return nil, nil, err
	}
	lists := map[string][]Price{}
	now := s.clock.Now()
	out, errs = make([][]*Quote, len(names)), make([]error, len(names))
	for i, name := range names {
		z, label, err := s.locate(name)
		if err != nil {
			errs[i] = err
			continue
		}
		var rows []Price
		for _, zn := range priceZones(z) {
			l, ok := lists[zn]
			if !ok {
				if l, err = bs.Prices(ctx, zn); err != nil {
					return nil, nil, err
				}
				lists[zn] = l
			}
			rows = append(rows, l...)
		}
		qs := make([]*Quote, len(reqs))
		for j, r := range reqs {
			months := 12
			if r.Command != BillRestore {
				if months, err = z.period(r.Period); err != nil {
					errs[i] = err
					break
				}
			}
			fallback := ""
			if r.Command == BillAutoRenew {
				fallback = BillRenew
			}
			q := quoteOf(pickPrice(rows, priceZones(z), r.Command, fallback, (months+11)/12, label, now), months)
			qs[j] = s.quote(z, name, r.Command, q)
		}
		if errs[i] == nil {
			out[i] = qs
		}
	}
	return out, errs, nil
}

// quote is the Quote of a computed price.
func (s *Service) quote(z *Zone, name, command string, q quote) *Quote {
	if q.class == "" {
		q.class = "standard"
	}
	out := &Quote{Name: name, Command: command, Months: q.months, Priced: q.priced, Amount: q.amount, Currency: Currency, Class: q.class}
	if q.priced {
		switch command {
		case BillCreate:
			out.Grace = z.Lifecycle.AddGrace
		case BillRenew:
			out.Grace = z.Lifecycle.RenewGrace
		case BillAutoRenew:
			out.Grace = z.Lifecycle.AutoRenewGrace
		}
	}
	return out
}

// charge debits payer's account the price of command for the domain d
// (as the command left it) and a period of months, in the command's
// transaction, after its writes: the ledger entry names the command's
// audit record. The price is the one in force at the clock's time; a
// zone without one charges nothing. An account that cannot pay refuses
// the command (BILLING_FAILURE), as does a price above the fee the
// client agreed to (FEE_MISMATCH). A charge that takes the balance
// below the registrar's threshold queues a low-balance poll message (in
// the transaction) and logs it (after the commit).
func (s *Service) charge(ctx context.Context, payerID int64, payer, command string, d *Domain, months int) error {
	return s.chargeAs(ctx, payer, payerID, payer, command, d, months, "")
}

// chargeAs is charge for a command run by actor on behalf of the payer
// (a transfer the losing registrar approves: the gaining one pays, and
// the actor is not told the payer's balance).
func (s *Service) chargeAs(ctx context.Context, actor string, payerID int64, payer, command string, d *Domain, months int, note string) error {
	bs, ok := s.store.(BillingStore)
	if !ok || d == nil {
		return nil
	}
	z := s.zones[d.Zone]
	if z == nil {
		return nil
	}
	now := s.clock.Now()
	q, err := s.priceOf(ctx, bs, z, command, d.Label, months, now)
	if err != nil {
		return err
	}
	fs := feesOf(ctx)
	if err := agreed(fs, q, command, d.Name); err != nil {
		return err
	}
	st := flowOf(ctx)
	if !q.priced {
		return nil
	}
	e := &LedgerEntry{RegistrarID: payerID, Registrar: payer, At: now, Kind: EntryDebit, Command: command, Zone: d.Zone, Name: d.Name,
		DomainID: d.ID, Months: q.months, Price: q.amount, Amount: -q.amount, Note: note}
	if st != nil {
		e.AuditID = st.auditID
	}
	posted, a, err := bs.Post(ctx, e, true)
	if err != nil {
		return err
	}
	if !posted {
		sf := &Shortfall{Registrar: payer, Balance: a.Balance, CreditLimit: a.CreditLimit, Price: q.amount, Own: true}
		msg := fmt.Sprintf("the %s of %s costs ₹%s and the account of %s has ₹%s", command, d.Name, q.amount, payer, a.Balance)
		if a.CreditLimit > 0 {
			msg += fmt.Sprintf(" (and a credit limit of ₹%s)", a.CreditLimit)
		}
		msg += ": top it up first"
		if actor != payer {
			sf = &Shortfall{Registrar: payer, Price: q.amount}
			msg = fmt.Sprintf("the account of %s, which pays for the %s of %s, cannot pay it now", payer, command, d.Name)
		}
		return &Error{Code: CodeBillingFailure, Message: msg, Err: sf}
	}
	if st != nil {
		st.billed = true
		st.fees.Priced, st.fees.Months, st.fees.Price = true, q.months, q.amount
		st.fees.Charged += q.amount
		st.fees.Balance, st.fees.Limit = a.Balance, a.CreditLimit
	}
	return s.lowBalance(ctx, a, a.Balance+q.amount, d.Name)
}

// agreed refuses a price above the fee the client agreed to, or a
// currency other than the registry's.
func agreed(fs *Fees, q quote, command, name string) error {
	if fs == nil {
		return nil
	}
	if fs.Currency != "" && fs.Currency != Currency {
		return Errorf(CodeFeeTooLow, "the registry charges in %s, not %s", Currency, fs.Currency)
	}
	if fs.Agreed != nil && *fs.Agreed < q.amount {
		return Errorf(CodeFeeTooLow, "the %s of %s costs ₹%s, more than the fee of ₹%s agreed to", command, name, q.amount, *fs.Agreed)
	}
	return nil
}

// lowBalance tells a registrar, by a poll message in the transaction and
// a log line after it commits, that a charge took its balance from at or
// above its threshold to below it.
func (s *Service) lowBalance(ctx context.Context, a *Account, before Money, name string) error {
	if a.LowBalance <= 0 || before < a.LowBalance || a.Balance >= a.LowBalance {
		return nil
	}
	now := s.clock.Now()
	m := PollMessage{RegistrarID: a.RegistrarID, Queued: now, Kind: PollLowBalance,
		Text: fmt.Sprintf("Low balance: ₹%s, below the threshold of ₹%s (after %s); top up the account", a.Balance, a.LowBalance, name)}
	if ts, ok := s.store.(TransferStore); ok {
		if err := ts.Enqueue(ctx, []PollMessage{m}); err != nil {
			return err
		}
	}
	reg, bal, low := a.Registrar, a.Balance, a.LowBalance
	afterCommit(ctx, func() {
		s.logger().Warn("billing: low balance", "registrar", reg, "balance", bal.String(), "threshold", low.String())
	})
	return nil
}

// refundDeleted gives back, in a delete's transaction, what the deleted
// domain's debits paid for the grace periods it was deleted in (RFC
// 3915): inside the add grace period every debit of the registration
// (its create, and renewals since); otherwise the renewals made within
// the renew grace period and the auto-renewals within the auto-renew
// grace period. Each refund goes to the account debited, once.
func (s *Service) refundDeleted(ctx context.Context, z *Zone, d *Domain, now time.Time) error {
	bs, ok := s.store.(BillingStore)
	if !ok {
		return nil
	}
	lc := z.Lifecycle
	var debits []LedgerEntry
	if now.Before(d.Created.Add(lc.AddGrace)) {
		all, err := bs.Refundable(ctx, d.ID, nil, d.Created)
		if err != nil {
			return err
		}
		debits = all
	} else {
		for _, g := range []struct {
			command string
			grace   time.Duration
		}{{BillRenew, lc.RenewGrace}, {BillAutoRenew, lc.AutoRenewGrace}} {
			if g.grace <= 0 {
				continue
			}
			es, err := bs.Refundable(ctx, d.ID, []string{g.command}, now.Add(-g.grace))
			if err != nil {
				return err
			}
			debits = append(debits, es...)
		}
	}
	st := flowOf(ctx)
	for _, dr := range debits {
		e := &LedgerEntry{RegistrarID: dr.RegistrarID, At: now, Kind: EntryRefund, Command: dr.Command, Zone: dr.Zone, Name: dr.Name,
			DomainID: dr.DomainID, Months: dr.Months, Price: dr.Price, Amount: -dr.Amount, RefundOf: dr.ID, Note: "deleted in its grace period"}
		if st != nil {
			e.AuditID = st.auditID
		}
		if _, _, err := bs.Post(ctx, e, false); err != nil {
			return err
		}
		if st != nil {
			st.billed = true
			st.fees.Refunded += -dr.Amount
			st.fees.Balance = e.Balance
		}
	}
	return nil
}

// chargeTransfer charges the gaining registrar of an approved transfer
// (out) the price of a transfer for its period (at least a year), as the
// actor approving it (the losing registrar, or the server).
func (s *Service) chargeTransfer(ctx context.Context, actor string, d *Domain, out *Transfer) error {
	if out == nil || (out.Status != TransferClientApproved && out.Status != TransferServerApproved) {
		return nil
	}
	years := max(out.Period, 1)
	return s.chargeAs(ctx, actor, 0, out.Gaining, BillTransfer, d, 12*years, "")
}

// transferYears is the period a transfer request records: the years the
// registrar asked for, or, in a zone whose price list prices transfers,
// at least one (the transfer adds a year, as .IN's do, and is paid at
// its approval). It refuses a request the requesting registrar's account
// could not pay now, or whose agreed fee is below the price; the charge
// itself is at the approval, at the price then in force.
func (s *Service) transferYears(ctx context.Context, r *Registrar, d *Domain, years int) (int, error) {
	bs, ok := s.store.(BillingStore)
	z := s.zones[d.Zone]
	if !ok || z == nil {
		return years, nil
	}
	q, err := s.priceOf(ctx, bs, z, BillTransfer, d.Label, 12*max(years, 1), s.clock.Now())
	if err != nil {
		return 0, err
	}
	if err := agreed(feesOf(ctx), q, BillTransfer, d.Name); err != nil {
		return 0, err
	}
	if !q.priced {
		return years, nil
	}
	a, err := bs.Account(ctx, r.ID)
	if err != nil {
		return 0, err
	}
	if a.Balance-q.amount < -a.CreditLimit {
		return 0, &Error{Code: CodeBillingFailure, Err: &Shortfall{Registrar: r.Name, Balance: a.Balance, CreditLimit: a.CreditLimit, Price: q.amount, Own: true},
			Message: fmt.Sprintf("the transfer of %s costs ₹%s, paid at its approval, and the account of %s has ₹%s: top it up first", d.Name, q.amount, r.Name, a.Balance)}
	}
	if st := flowOf(ctx); st != nil {
		st.billed = true
		st.fees.Priced, st.fees.Months, st.fees.Price, st.fees.Balance, st.fees.Limit = true, q.months, q.amount, a.Balance, a.CreditLimit
	}
	return max(years, 1), nil
}

// chargeRestore charges a restore: its request the restore price, and its
// report, when it renews an expired registration to a date after now,
// the renewal of the years it adds.
func (s *Service) chargeRestore(ctx context.Context, r *Registrar, op string, before, after *Domain) error {
	switch {
	case after == nil:
		return nil
	case op == RestoreRequest:
		return s.charge(ctx, r.ID, r.Name, BillRestore, after, 12)
	case op == RestoreReport && !before.Expires.IsZero() && after.Expires.After(before.Expires):
		months := 0
		for t := before.Expires; t.Before(after.Expires); t = addMonths(t, 12) {
			months += 12
		}
		return s.chargeAs(ctx, r.Name, r.ID, r.Name, BillRenew, after, months, "renewed by its restore")
	}
	return nil
}

// chargeChange charges the lifecycle's changes that cost: an
// auto-renewal, to its sponsor, for the year it adds.
func (s *Service) chargeChange(ctx context.Context, before, after *Domain, ch *Change) error {
	if ch == nil || ch.Action != "autorenew" || after == nil {
		return nil
	}
	return s.charge(ctx, before.RegistrarID, before.Registrar, BillAutoRenew, after, 12)
}

// unpaid is the zone's policy for an auto-renewal its sponsor cannot pay:
// the domain is deleted at its expiry as in a zone without auto-renewal
// (pendingDelete and redemptionPeriod, restorable by its registrar once
// the account can pay the restore; docs/billing.md). It wraps the
// decider of the transition that was refused.
func unpaid(decide decider) decider {
	return func(d *Domain, z *Zone, now time.Time) (*Change, error) {
		ch, err := decide(d, z, now)
		if err != nil || ch == nil || ch.Action != "autorenew" {
			return ch, err
		}
		ch.Action, ch.Expires, ch.AutoRenewed = "expire", d.Expires, d.AutoRenewed
		ch.EndTransfers = true
		enterDeletion(ch, z, now)
		ch.Result = "ok deleted at expiry: the auto-renewal was not paid (" + CodeBillingFailure + ")"
		return ch, nil
	}
}

// Quote is the price of a command for a name, now (RFC 8748's
// <fee:check>).
type Quote struct {
	Name     string `json:"name"`
	Command  string `json:"command"`
	Months   int    `json:"months"`
	Priced   bool   `json:"priced"` // false: the zone charges nothing
	Amount   Money  `json:"amount"`
	Currency string `json:"currency"`
	Class    string `json:"class"` // standard or premium
	// Grace is the grace period in which a delete refunds it (a create's
	// add grace, a renewal's renew grace; 0: none).
	Grace time.Duration `json:"-"`
}

// Quote prices command for a name and a period (the zero Period: the
// zone's default; for a restore, the period is not asked) at the clock's
// time.
func (s *Service) Quote(ctx context.Context, name, command string, p Period) (*Quote, error) {
	if !slices.Contains(BillableCommands, command) {
		return nil, Errorf(CodeBadStatus, "%q is not a billable command (%s)", command, strings.Join(BillableCommands, ", "))
	}
	bs, err := s.billingStore()
	if err != nil {
		return nil, err
	}
	z, label, err := s.locate(name)
	if err != nil {
		return nil, err
	}
	months := 12
	if command != BillRestore {
		if months, err = z.period(p); err != nil {
			return nil, err
		}
	}
	q, err := s.priceOf(ctx, bs, z, command, label, months, s.clock.Now())
	if err != nil {
		return nil, err
	}
	return s.quote(z, name, command, q), nil
}

// pendingDomain is the domain of a pending transfer as a charge needs it
// (its zone, label, name and ID).
func (s *Service) pendingDomain(t *Transfer, domainID int64) *Domain {
	label, zone, _ := strings.Cut(t.Name, ".")
	return &Domain{ID: domainID, Name: t.Name, ALabel: t.ALabel, Label: label, Zone: zone}
}

// cancelUnpaid ends a due transfer whose gaining registrar cannot pay it
// at the end of its transfer period: the server cancels it (both parties
// told by poll), and the domain stays with its sponsor (docs/billing.md).
func (s *Service) cancelUnpaid(ctx context.Context, ts TransferStore, domainID int64, t *Transfer, now time.Time) error {
	e := AuditEntry{At: now, Registrar: "server", Action: "transfer-auto-cancel", Name: t.Name,
		Result: "ok cancelled: the gaining registrar " + t.Gaining + " cannot pay (" + CodeBillingFailure + ")"}
	e.withChannel(ctx)
	err := s.transact(ctx, func(ctx context.Context) error {
		_, err := ts.ActOnTransfer(ctx, domainID, 0, TransferServerCancelled, now, e)
		return err
	})
	if CodeOf(err) == CodeNotPendingTransfer {
		return nil // another server acted on it
	}
	if err == nil {
		s.logger().Warn("billing: a due transfer cancelled: the gaining registrar cannot pay", "name", t.Name, "gaining", t.Gaining)
	}
	return err
}
