package registry

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// The operator's and the registrars' commands on accounts and prices
// (docs/billing.md): each is one transaction with its audit record.

// registrarNamed finds a registrar by name (ErrNotFound if none).
func (s *Service) registrarNamed(ctx context.Context, name string) (*Registrar, error) {
	if err := checkInput(name); err != nil {
		return nil, err
	}
	bs, err := s.billingStore()
	if err != nil {
		return nil, err
	}
	return bs.RegistrarNamed(ctx, name)
}

// Credit adds amount (positive) to a registrar's account: the operator's
// record of a payment received. kind is EntryCredit, or EntryAdjustment
// for a correction (either sign, never taking the balance below the
// credit limit). One transaction with its audit record; it returns the
// ledger entry.
func (s *Service) Credit(ctx context.Context, registrar string, amount Money, kind, note string) (*LedgerEntry, error) {
	e, err := s.credit(ctx, registrar, amount, kind, note)
	return e, s.refuse(ctx, "operator", "account-"+kind, registrar, err)
}

func (s *Service) credit(ctx context.Context, registrar string, amount Money, kind, note string) (*LedgerEntry, error) {
	if kind == "" {
		kind = EntryCredit
	}
	switch {
	case kind != EntryCredit && kind != EntryAdjustment:
		return nil, Errorf(CodeBadStatus, "an operator's entry is a %s or an %s, not %q", EntryCredit, EntryAdjustment, kind)
	case kind == EntryCredit && amount <= 0:
		return nil, Errorf(CodeBadAmount, "a credit is a positive amount (₹%s is not)", amount)
	case amount == 0 || amount > maxMoney || amount < -maxMoney:
		return nil, Errorf(CodeBadAmount, "₹%s is not an amount an adjustment makes", amount)
	}
	if err := checkNote(note); err != nil {
		return nil, err
	}
	bs, err := s.billingStore()
	if err != nil {
		return nil, err
	}
	r, err := s.registrarNamed(ctx, registrar)
	if err != nil {
		return nil, err
	}
	var out *LedgerEntry
	err = s.transact(ctx, func(ctx context.Context) error {
		now := s.clock.Now()
		if err := s.record(ctx, "operator", "account-"+kind, r.Name, fmt.Sprintf("ok %s", amount)); err != nil {
			return err
		}
		e := &LedgerEntry{RegistrarID: r.ID, Registrar: r.Name, At: now, Kind: kind, Amount: amount, Note: note, AuditID: flowOf(ctx).auditID}
		posted, a, err := bs.Post(ctx, e, amount < 0)
		if err != nil {
			return err
		}
		if !posted {
			return &Error{Code: CodeBillingFailure, Err: &Shortfall{Registrar: r.Name, Balance: a.Balance, CreditLimit: a.CreditLimit, Price: -amount, Own: true},
				Message: fmt.Sprintf("an adjustment of ₹%s would take the account of %s (₹%s) below its credit limit of ₹%s", amount, r.Name, a.Balance, a.CreditLimit)}
		}
		e.Registrar = r.Name
		out = e
		return nil
	})
	return out, err
}

// checkNote bounds an entry's note.
func checkNote(note string) error {
	if !utf8.ValidString(note) || len(note) > 500 || strings.ContainsAny(note, "\x00\r\n") {
		return Errorf(CodeBadName, "a note is one line of at most 500 bytes of UTF-8")
	}
	return nil
}

// AccountOf returns a registrar's account (the operator's view, by name).
func (s *Service) AccountOf(ctx context.Context, registrar string) (*Account, error) {
	r, err := s.registrarNamed(ctx, registrar)
	if err != nil {
		return nil, err
	}
	return s.Account(ctx, r)
}

// Account returns r's account.
func (s *Service) Account(ctx context.Context, r *Registrar) (*Account, error) {
	bs, err := s.billingStore()
	if err != nil {
		return nil, err
	}
	a, err := bs.Account(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	a.Registrar, a.Currency = r.Name, Currency
	return a, nil
}

// AccountSettings is what the operator sets of an account (nil: left as
// it is).
type AccountSettings struct {
	CreditLimit *Money
	LowBalance  *Money
	GSTIN       *string
	State       *string
	LegalName   *string
}

// SetAccount changes a registrar's account settings, recorded.
func (s *Service) SetAccount(ctx context.Context, registrar string, set AccountSettings) (*Account, error) {
	a, err := s.setAccount(ctx, registrar, set)
	return a, s.refuse(ctx, "operator", "account-set", registrar, err)
}

func (s *Service) setAccount(ctx context.Context, registrar string, set AccountSettings) (*Account, error) {
	bs, err := s.billingStore()
	if err != nil {
		return nil, err
	}
	r, err := s.registrarNamed(ctx, registrar)
	if err != nil {
		return nil, err
	}
	for _, m := range []*Money{set.CreditLimit, set.LowBalance} {
		if m != nil && (*m < 0 || *m > maxMoney) {
			return nil, Errorf(CodeBadAmount, "a credit limit or a threshold is 0 or more (not ₹%s)", *m)
		}
	}
	var out *Account
	err = s.transact(ctx, func(ctx context.Context) error {
		a, err := bs.Account(ctx, r.ID)
		if err != nil {
			return err
		}
		if set.CreditLimit != nil {
			a.CreditLimit = *set.CreditLimit
		}
		if set.LowBalance != nil {
			a.LowBalance = *set.LowBalance
		}
		if set.LegalName != nil {
			if err := checkNote(*set.LegalName); err != nil {
				return err
			}
			a.LegalName = strings.TrimSpace(*set.LegalName)
		}
		if set.State != nil {
			a.State = strings.TrimSpace(*set.State)
		}
		if set.GSTIN != nil {
			a.GSTIN = strings.ToUpper(strings.TrimSpace(*set.GSTIN))
		}
		if err := CheckGST(a.GSTIN, a.State); err != nil {
			return err
		}
		if a.GSTIN != "" && a.State == "" {
			a.State = a.GSTIN[:2]
		}
		a.RegistrarID = r.ID
		if err := bs.SetAccount(ctx, a); err != nil {
			return err
		}
		a.Registrar, a.Currency = r.Name, Currency
		out = a
		return s.record(ctx, "operator", "account-set", r.Name, "ok")
	})
	return out, err
}

// Entries returns a registrar's ledger entries after the entry afterID,
// at most limit (1 to 1000; 0 for 100): a page, in ledger order.
func (s *Service) Entries(ctx context.Context, r *Registrar, afterID int64, limit int) ([]LedgerEntry, error) {
	bs, err := s.billingStore()
	if err != nil {
		return nil, err
	}
	if limit == 0 {
		limit = 100
	}
	if limit < 0 || limit > 1000 {
		return nil, Errorf(CodePeriodRange, "a page has 1 to 1000 entries")
	}
	return bs.Ledger(ctx, LedgerFilter{RegistrarID: r.ID, AfterID: afterID, Limit: limit})
}

// Ledger returns the entries f selects (the operator's view; the
// registrars' names filled in).
func (s *Service) Ledger(ctx context.Context, f LedgerFilter) ([]LedgerEntry, error) {
	bs, err := s.billingStore()
	if err != nil {
		return nil, err
	}
	return bs.Ledger(ctx, f)
}

// Reconcile checks every registrar's account against its ledger (the
// balance is the sum of the entries, each entry's balance the one before
// plus its amount, every debit and refund names the audit record of its
// command), and records that it ran.
func (s *Service) Reconcile(ctx context.Context) ([]Reconciliation, error) {
	bs, err := s.billingStore()
	if err != nil {
		return nil, err
	}
	rs, err := bs.Reconcile(ctx)
	bad := 0
	for _, r := range rs {
		if !r.OK() {
			bad++
		}
	}
	result := resultOf(err)
	if err == nil {
		result = fmt.Sprintf("ok %d accounts, %d disagree", len(rs), bad)
	}
	s.audit(ctx, AuditEntry{Registrar: "operator", Action: "account-reconcile", Result: result})
	return rs, err
}

// SetPrice adds a row to a zone's price list, recorded: in force from
// p.From (zero: the clock's time) until a later row of the same zone,
// command, years and label.
func (s *Service) SetPrice(ctx context.Context, p Price) (*Price, error) {
	out, err := s.setPrice(ctx, p)
	return out, s.refuse(ctx, "operator", "price-set", p.Zone, err)
}

func (s *Service) setPrice(ctx context.Context, p Price) (*Price, error) {
	bs, err := s.billingStore()
	if err != nil {
		return nil, err
	}
	z := s.zones[zoneKey(p.Zone)]
	if z == nil {
		return nil, s.unservedZone(p.Zone)
	}
	p.Zone = z.Name
	if !slices.Contains(BillableCommands, p.Command) {
		return nil, Errorf(CodeBadStatus, "a price is for one of %s, not %q", strings.Join(BillableCommands, ", "), p.Command)
	}
	if p.Years < 1 || p.Years > MaxHorizon {
		return nil, Errorf(CodePeriodRange, "a price is for 1 to %d years (not %d)", MaxHorizon, p.Years)
	}
	if p.Amount < 0 || p.Amount > maxMoney {
		return nil, Errorf(CodeBadAmount, "a price is 0 or more (not ₹%s)", p.Amount)
	}
	if p.Label != "" {
		lz, label, err := s.locate(p.Label + "." + z.Name)
		if err != nil {
			return nil, err
		}
		p.Label, p.Zone = label, lz.Name
	}
	now := s.clock.Now()
	if p.From.IsZero() {
		p.From = now
	}
	p.From, p.Created = p.From.UTC(), now
	err = s.transact(ctx, func(ctx context.Context) error {
		if err := bs.SetPrice(ctx, p); err != nil {
			return err
		}
		what := fmt.Sprintf("ok %s %dy ₹%s from %s", p.Command, p.Years, p.Amount, p.From.Format(time.RFC3339))
		if p.Label != "" {
			what += " for " + p.Label
		}
		return s.record(ctx, "operator", "price-set", p.Zone, what)
	})
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// Prices lists a zone's price list ("" for every zone's).
func (s *Service) Prices(ctx context.Context, zone string) ([]Price, error) {
	bs, err := s.billingStore()
	if err != nil {
		return nil, err
	}
	if zone != "" {
		z := s.zones[zoneKey(zone)]
		if z == nil {
			return nil, s.unservedZone(zone)
		}
		zone = z.Name
	}
	return bs.Prices(ctx, zone)
}

// The registry's billing settings (akshara billing set).
const (
	SettingName    = "name"     // the registry's legal name, on its invoices
	SettingAddress = "address"  // its address
	SettingGSTIN   = "gstin"    // its GSTIN
	SettingState   = "state"    // its state (GST state code)
	SettingGSTRate = "gst_rate" // the GST rate in percent ("18", "18.00"); 18 if unset
	SettingPrefix  = "invoice_prefix"
)

// BillingSettings returns the registry's billing settings.
func (s *Service) BillingSettings(ctx context.Context) (map[string]string, error) {
	bs, err := s.billingStore()
	if err != nil {
		return nil, err
	}
	return bs.BillingSettings(ctx)
}

// SetBillingSetting sets one of the registry's billing settings,
// recorded.
func (s *Service) SetBillingSetting(ctx context.Context, key, value string) error {
	err := s.setBillingSetting(ctx, key, value)
	return s.refuse(ctx, "operator", "billing-set", key, err)
}

func (s *Service) setBillingSetting(ctx context.Context, key, value string) error {
	bs, err := s.billingStore()
	if err != nil {
		return err
	}
	value = strings.TrimSpace(value)
	if err := checkNote(value); err != nil {
		return err
	}
	switch key {
	case SettingName, SettingAddress, SettingPrefix:
	case SettingGSTIN:
		value = strings.ToUpper(value)
		if err := CheckGST(value, ""); err != nil {
			return err
		}
	case SettingState:
		if err := CheckGST("", value); err != nil {
			return err
		}
	case SettingGSTRate:
		r, err := ParseMoney(value)
		if err != nil || r < 0 || r > 10000 {
			return Errorf(CodeBadAmount, "a GST rate is a percentage from 0 to 100, such as 18 or 18.00 (not %q)", value)
		}
	default:
		return Errorf(CodeBadStatus, "there is no billing setting %q (name, address, gstin, state, gst_rate, invoice_prefix)", key)
	}
	return s.transact(ctx, func(ctx context.Context) error {
		if err := bs.SetBillingSetting(ctx, key, value); err != nil {
			return err
		}
		return s.record(ctx, "operator", "billing-set", key, "ok "+value)
	})
}

// CheckGST checks a GSTIN (15 characters: the two-digit state code, the
// PAN, the entity number, Z and a check character, which is verified)
// and a state (a GST state code, 01 to 38 or 97), and that they agree;
// either may be empty.
func CheckGST(gstin, state string) error {
	if state != "" {
		if len(state) != 2 || state[0] < '0' || state[0] > '9' || state[1] < '0' || state[1] > '9' || state == "00" || (state > "38" && state != "97") {
			return Errorf(CodeBadName, "a state is its two-digit GST state code (such as 29 for Karnataka, 07 for Delhi), not %q", state)
		}
	}
	if gstin == "" {
		return nil
	}
	if len(gstin) != 15 {
		return Errorf(CodeBadName, "a GSTIN has 15 characters (%q has %d)", gstin, len(gstin))
	}
	const chars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	sum := 0
	for i := 0; i < 14; i++ {
		v := strings.IndexByte(chars, gstin[i])
		if v < 0 {
			return Errorf(CodeBadName, "a GSTIN has digits and capital letters only (%q)", gstin)
		}
		f := 1
		if i%2 == 1 {
			f = 2
		}
		p := v * f
		sum += p/36 + p%36
	}
	check := chars[(36-sum%36)%36]
	if gstin[14] != check {
		return Errorf(CodeBadName, "%q is not a GSTIN: its check character is %c, not %c", gstin, check, gstin[14])
	}
	if err := CheckGST("", gstin[:2]); err != nil {
		return Errorf(CodeBadName, "%q is not a GSTIN: it starts with a state code, not %q", gstin, gstin[:2])
	}
	if state != "" && gstin[:2] != state {
		return Errorf(CodeBadName, "the GSTIN %s is of state %s, not %s", gstin, gstin[:2], state)
	}
	return nil
}

// Balance returns a registrar's balance at until: the sum of its ledger
// entries before it.
func (s *Service) Balance(ctx context.Context, registrar string, until time.Time) (Money, error) {
	bs, err := s.billingStore()
	if err != nil {
		return 0, err
	}
	r, err := s.registrarNamed(ctx, registrar)
	if err != nil {
		return 0, err
	}
	return bs.LedgerSum(ctx, r.ID, until)
}
