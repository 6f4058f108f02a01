package registry

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/akshara-idn/akshara"
)

// Same entity (issue 38; docs/variants.md, "Same entity"). Under a zone's
// same-entity policy (the zones file's `variants`), a name blocked by a
// registered domain, the holder, may be registered by the holder's
// registrar for the holder's registrant (the same contact object: its id,
// so its data), as a member of the holder's variant group; for everyone
// else it stays blocked (CONFLICT naming the holder). A group's members
// each hold their own name; the group holds their conflict sets as one
// (Store: blocks name one member, the carrier), so the unique index that
// gives a label to one domain gives it to one group.
//
// The group's life. Its invariant is one registrant and one sponsor:
//   - a transfer moves the whole group (requested on any member; refused
//     while any member prohibits a transfer, is deleted or has one
//     pending), so one sponsor holds;
//   - a registrant change of a member is made on every member in the same
//     transaction (refused if a member's status prohibits updates), and
//     removing the registrant of a member is refused, so one registrant
//     holds;
//   - renewals, expiries, deletions, restores and purges are each
//     member's own: they change neither registrant nor sponsor. A deleted
//     member keeps its name and the group its set until the member is
//     purged; the purge of the last member frees the set. A member is not
//     deleted while a transfer of its group is pending.

// CodeNotSameEntity: a name blocked under a same-entity policy, asked by
// the holder's registrar for another registrant.
const CodeNotSameEntity = "NOT_SAME_ENTITY"

func init() {
	DefineCode(CodeNotSameEntity, CodeInfo{HTTP: 409, EPP: 2302, Reason: "not the holder's registrant"})
}

// GroupStore is what variant groups need of a store (sqlstore,
// variantgroup.go). Each method joins the command's transaction.
type GroupStore interface {
	// JoinGroup inserts d, its authInfo and its audit record as a member
	// of holder's variant group (made if holder has none): holder is
	// claimed at the revision it was read at (ErrStale if it changed),
	// and the labels of d.Blocks the group does not hold are taken
	// (CONFLICT if another domain holds one).
	JoinGroup(ctx context.Context, d, holder *Domain, registrarID int64) (*Domain, error)
	// GroupMembers returns the members of group id, oldest first.
	GroupMembers(ctx context.Context, id int64) ([]*Domain, error)
	// LockGroup takes group id's lock for the command's transaction (a
	// command deciding on the group's members waits until it ends) and
	// returns the members as they are then, oldest first.
	LockGroup(ctx context.Context, id int64) ([]*Domain, error)
	// DomainRow reads the domain label.zone's row alone (no conflict set,
	// no exemptions): a check asks whether the name it answers for is a
	// group member; ErrNotFound if none.
	DomainRow(ctx context.Context, zone, label string) (*Domain, error)
	// GroupsIn maps the members of variant groups of zone's family (or
	// zone) to their groups.
	GroupsIn(ctx context.Context, zone string) (map[int64]int64, error)
}

// VariantGroupMember is a member of a variant group, as escrow records
// it: its name and the name it is a variant of (the group's original,
// its oldest member; "" for the original itself).
type VariantGroupMember struct {
	Name, ALabel string
	OriginalName string
	Domain       *Domain
}

// VariantGroup returns the members of the variant group of the domain
// name (label.zone), oldest first, each with its original name (RFC 9022
// rdeDomain:originalName); nil for a domain of no group.
func (s *Service) VariantGroup(ctx context.Context, name string) ([]VariantGroupMember, error) {
	z, label, err := s.locate(name)
	if err != nil {
		return nil, err
	}
	d, err := s.store.Domain(ctx, z.Name, label)
	if err != nil {
		return nil, err
	}
	return s.groupOf(ctx, d)
}

// groupOf is VariantGroup of a domain read.
func (s *Service) groupOf(ctx context.Context, d *Domain) ([]VariantGroupMember, error) {
	gs, ok := s.store.(GroupStore)
	if !ok || d.Group == 0 {
		return nil, nil
	}
	ms, err := gs.GroupMembers(ctx, d.Group)
	if err != nil || len(ms) == 0 {
		return nil, err
	}
	out := make([]VariantGroupMember, len(ms))
	for i, m := range ms {
		out[i] = VariantGroupMember{Name: m.Name, ALabel: m.ALabel, Domain: m}
		if i > 0 {
			out[i].OriginalName = ms[0].Name
		}
	}
	return out, nil
}

// loadGroup fills d.VariantGroup: the other members' names.
func (s *Service) loadGroup(ctx context.Context, d *Domain) error {
	ms, err := s.groupOf(ctx, d)
	if err != nil {
		return err
	}
	d.VariantGroup = nil
	for _, m := range ms {
		if m.Name != d.Name {
			d.VariantGroup = append(d.VariantGroup, m.Name)
		}
	}
	return nil
}

// sameEntityFor reports whether the zone's policy lets the holder's
// registrant register the name (label c.label in zone z) that holder
// blocks: the holder not exempted nor deleted, and the kind of variant
// (the same label under another member TLD, or another) same-entity.
func sameEntityFor(z *Zone, label string, holder *Domain) bool {
	if holder == nil || holder.Exempted || holder.Deleted() {
		return false
	}
	sameLabel := holder.Label == label && holder.Zone != z.Name
	return z.Variants.Of(sameLabel) == akshara.VariantsSameEntity
}

// joinVariantGroup is the create's same-entity path, in its transaction:
// if the name is blocked by a holder whose policy lets the holder's
// registrant have it and r sponsors the holder, d joins the holder's
// group (NOT_SAME_ENTITY for another registrant). nil, nil: not a join
// (no holder, or the policy or the sponsor says no: the ordinary create
// answers CONFLICT).
func (s *Service) joinVariantGroup(ctx context.Context, z *Zone, c *canonical, d *Domain, r *Registrar, contacts []DomainContact) (*Domain, error) {
	gs, ok := s.store.(GroupStore)
	if !ok || !z.Variants.Any() {
		return nil, nil
	}
	holder, err := s.store.FindBlocker(ctx, z.Name, c.blocks)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !sameEntityFor(z, c.label, holder) || holder.Registrar != r.Name || (holder.Label == c.label && holder.Zone == z.Name) {
		return nil, nil
	}
	if _, err := s.store.Domain(ctx, z.Name, c.label); err == nil {
		return nil, nil // registered itself (a member whose set another holds): EXISTS
	} else if !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	registrant := ""
	for _, ct := range contacts {
		if ct.Role == RoleRegistrant {
			registrant = ct.ID
		}
	}
	cs, err := s.contactStore()
	if err != nil {
		return nil, err
	}
	hc, err := cs.DomainContacts(ctx, holder.ID)
	if err != nil {
		return nil, err
	}
	held := ""
	for _, ct := range hc {
		if ct.Role == RoleRegistrant {
			held = ct.ID
		}
	}
	switch {
	case held == "":
		return nil, &Error{Code: CodeNotSameEntity, BlockedBy: holder.Name,
			Message: d.Name + " is blocked by " + holder.Name + ", which has no registrant: only the same registrant may hold both (same entity)"}
	case registrant != held:
		return nil, &Error{Code: CodeNotSameEntity, BlockedBy: holder.Name,
			Message: d.Name + " is blocked by " + holder.Name + ": only its registrant (contact " + held + ") may register it, as a member of its variant group (same entity)"}
	}
	return gs.JoinGroup(ctx, d, holder, r.ID)
}

// sameEntityNote is what a refused create (CONFLICT) adds when the name
// may be registered by its holder's registrant alone.
func sameEntityNote(z *Zone, label string, holder *Domain) string {
	if !sameEntityFor(z, label, holder) {
		return ""
	}
	return "; only the registrant of " + holder.Name + ", through its registrar, may register it (same entity)"
}

// checkSameEntity marks a check's blocked name that the holder's
// registrant may register (CheckResult.SameEntity).
func checkSameEntity(z *Zone, label string, holder *Domain, res *CheckResult) {
	if res.Status == Blocked && sameEntityFor(z, label, holder) {
		res.SameEntity, res.holderRegistrar = holder.Name, holder.Registrar
	}
}

// CheckFor is Check as registrar r sees it: a name blocked under a
// same-entity policy whose holder r sponsors is available (to the holder's
// registrant only: SameEntity names the holder).
func (s *Service) CheckFor(ctx context.Context, r *Registrar, input, lang string) (*CheckResult, error) {
	res, err := s.Check(ctx, input, lang)
	if err != nil || r == nil || res.SameEntity == "" || res.holderRegistrar != r.Name {
		return res, err
	}
	res.Status, res.BlockedBy = Available, ""
	return res, nil
}

// groupMembersLocked locks d's group and returns its other members (nil
// for a domain of no group).
func (s *Service) groupMembersLocked(ctx context.Context, d *Domain) ([]*Domain, error) {
	gs, ok := s.store.(GroupStore)
	if !ok || d.Group == 0 {
		return nil, nil
	}
	ms, err := gs.LockGroup(ctx, d.Group)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(ms, func(m *Domain) bool { return m.ID == d.ID }), nil
}

// groupOthers takes d's variant group's lock and returns its other
// members (none for a domain of no group) and the transfer store that
// the group's checks read their pending transfers from.
func (s *Service) groupOthers(ctx context.Context, d *Domain) ([]*Domain, TransferStore, error) {
	others, err := s.groupMembersLocked(ctx, d)
	if err != nil || len(others) == 0 {
		return nil, nil, err
	}
	ts, err := s.transferStore()
	return others, ts, err
}

// groupTransferable refuses the transfer of a member of a variant group
// that the group cannot make whole: a member prohibits it, is deleted, or
// has a transfer pending (the group moves as one).
func (s *Service) groupTransferable(ctx context.Context, d *Domain) error {
	others, ts, err := s.groupOthers(ctx, d)
	if err != nil || len(others) == 0 {
		return err
	}
	for _, m := range others {
		if m.Deleted() {
			return Errorf(CodeStatusProhibits, "%s is of a variant group with %s, which is deleted: the group transfers as one", d.Name, m.Name)
		}
		if p := TransferProhibitedBy(m.Statuses); p != "" {
			return Errorf(CodeStatusProhibits, "%s is of a variant group with %s, which has status %s: the group transfers as one", d.Name, m.Name, p)
		}
		st, _, err := ts.TransferState(ctx, m.ID)
		if err != nil {
			return err
		}
		if st.Pending != nil {
			return Errorf(CodePendingTransfer, "a transfer of %s, of the same variant group as %s, is pending", m.Name, d.Name)
		}
	}
	return nil
}

// groupDeletable refuses the delete of a member of a variant group while
// a transfer of the group (of any member) is pending.
func (s *Service) groupDeletable(ctx context.Context, d *Domain) error {
	others, ts, err := s.groupOthers(ctx, d)
	if err != nil || len(others) == 0 {
		return err
	}
	for _, m := range others {
		st, _, err := ts.TransferState(ctx, m.ID)
		if err != nil {
			return err
		}
		if st.Pending != nil {
			return Errorf(CodeStatusProhibits, "a transfer of %s's variant group is pending (requested on %s): its members are not deleted meanwhile", d.Name, m.Name)
		}
	}
	return nil
}

// groupRegistrant keeps a variant group's one registrant when an update
// of member d changes contacts: a new registrant is set on every other
// member too (refused if one's status prohibits updates); the registrant
// removed without a new one is refused.
func (s *Service) groupRegistrant(ctx context.Context, d *Domain, r *Registrar, add, rem []DomainContact) error {
	if d.Group == 0 {
		return nil
	}
	next, removed := "", false
	for _, c := range add {
		if c.Role == RoleRegistrant {
			next = c.ID
		}
	}
	for _, c := range rem {
		removed = removed || c.Role == RoleRegistrant
	}
	if next == "" {
		if removed {
			return Errorf(CodeNotSameEntity, "%s is of a variant group, whose members have one registrant: replace it, do not remove it", d.Name)
		}
		return nil
	}
	others, err := s.groupMembersLocked(ctx, d)
	if err != nil {
		return err
	}
	cs, err := s.contactStore()
	if err != nil {
		return err
	}
	for _, m := range others {
		if err := prohibits(m, "updates (it is of "+d.Name+"'s variant group, whose registrant changes)", StatusPendingDelete, StatusServerUpdateProhibited, StatusClientUpdateProhibited); err != nil {
			return err
		}
		cur, err := cs.DomainContacts(ctx, m.ID)
		if err != nil {
			return err
		}
		var old []DomainContact
		for _, c := range cur {
			if c.Role == RoleRegistrant {
				old = append(old, c)
			}
		}
		if err := cs.ChangeDomainContacts(ctx, m.Zone, m.Label, r.ID, &ContactChange{Add: []DomainContact{{Role: RoleRegistrant, ID: next}}, Rem: old}); err != nil {
			return err
		}
	}
	return nil
}

// PollGroupTransfer is the kind of the poll messages of a member of a
// variant group that moved with the transfer of another member.
const PollGroupTransfer = "transfer-group"

// GroupMoveMessages are the poll messages of a member (name) of a
// variant group moved by transfer t of another member: to the gaining
// and to the losing registrar.
func GroupMoveMessages(id int64, name, alabel string, t *Transfer, gaining, losing int64, at time.Time) []PollMessage {
	text := "Transferred with its variant group (the transfer of " + t.Name + "): " + name
	var out []PollMessage
	for _, to := range []int64{gaining, losing} {
		out = append(out, PollMessage{RegistrarID: to, Queued: at, Kind: PollGroupTransfer, Name: name, ALabel: alabel, Text: text,
			Change: &ChangeData{Operation: ChangeTransfer, Date: at, SvTRID: "AK-transfer-" + strconv.FormatInt(t.ID, 10), Who: "registry",
				Reason: "moved with its variant group", Object: "domain", ObjectID: id, Statuses: []string{StatusOK}, Sponsor: t.Gaining}})
	}
	return out
}

// groupMemberFor is the domain a check answers for label in zone z whose
// set holder blocks: the name itself if it is registered (a member of a
// variant group whose set another member holds), else holder.
func (s *Service) groupMemberFor(ctx context.Context, z *Zone, label string, holder *Domain) (*Domain, error) {
	gs, ok := s.store.(GroupStore)
	if !ok || holder.Group == 0 || (holder.Label != label && z.Variants.Of(false) != akshara.VariantsSameEntity) {
		return holder, nil // the holder is of no group, or only a same-entity kind of variant joins one
	}
	own, err := gs.DomainRow(ctx, z.Name, label)
	switch {
	case errors.Is(err, ErrNotFound):
		return holder, nil
	case err != nil:
		return nil, err
	}
	if own.Group == 0 {
		return holder, nil // exempted, or another case Check answers itself
	}
	return own, nil
}
