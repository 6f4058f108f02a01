package registry

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Maintenance windows (issue 38; RFC 9167): the operator announces them
// (akshara maintenance add, change, cancel); each creation, change and
// cancellation queues a poll message to every registrar, in the same
// transaction, and <maint:info> reads a window or the list.

// Maintenance is a maintenance window (RFC 9167 §3: maint:maint).
type Maintenance struct {
	ID          string              `json:"id"`
	Name        string              `json:"name,omitempty"`
	Types       []string            `json:"types,omitempty"` // free words: "Routine maintenance"
	Systems     []MaintenanceSystem `json:"systems"`
	Environment string              `json:"environment"` // production, ote, staging, dev
	Start       time.Time           `json:"start"`
	End         time.Time           `json:"end"`
	Reason      string              `json:"reason"`           // planned or emergency
	Detail      string              `json:"detail,omitempty"` // a URL with more
	Description string              `json:"description,omitempty"`
	TLDs        []string            `json:"tlds,omitempty"` // the zones it touches (U-labels), none: all
	// Intervention: whether registrars must act: reconnect, change their
	// implementation.
	Connection     bool      `json:"connection"`
	Implementation bool      `json:"implementation"`
	Created        time.Time `json:"created"`
	Updated        time.Time `json:"updated,omitzero"`
	Cancelled      time.Time `json:"cancelled,omitzero"`
}

// MaintenanceSystem is a system a window touches: its name, host and
// impact (full, partial, none).
type MaintenanceSystem struct {
	Name   string `json:"name"`
	Host   string `json:"host,omitempty"`
	Impact string `json:"impact"`
}

// The poll types of RFC 9167.
const (
	MaintCreate = "create"
	MaintUpdate = "update"
	MaintDelete = "delete"
)

// PollMaintenance is the kind of a maintenance poll message.
const PollMaintenance = "maintenance"

// MaintNote is a poll message's window, as it was then, and its poll type.
type MaintNote struct {
	PollType string      `json:"poll_type"`
	Window   Maintenance `json:"window"`
}

// MaintenanceStore keeps the maintenance windows (sqlstore,
// maintenance.go); each method joins the command's transaction.
type MaintenanceStore interface {
	SaveMaintenance(ctx context.Context, m *Maintenance) error
	Maintenance(ctx context.Context, id string) (*Maintenance, error)
	// Maintenances lists the windows not cancelled, oldest first.
	Maintenances(ctx context.Context) ([]*Maintenance, error)
}

// CodeBadMaintenance: a maintenance window the operator gave is not one.
const CodeBadMaintenance = "BAD_MAINTENANCE"

func init() {
	DefineCode(CodeBadMaintenance, CodeInfo{HTTP: 400, EPP: 2005, Reason: "bad maintenance window"})
}

func (s *Service) maintenanceStore() (MaintenanceStore, error) {
	ms, ok := s.store.(MaintenanceStore)
	if !ok {
		return nil, Errorf(CodeInternal, "this store keeps no maintenance windows")
	}
	return ms, nil
}

// checkMaintenance checks a window's fields.
func (s *Service) checkMaintenance(m *Maintenance) error {
	bad := func(format string, args ...any) error { return Errorf(CodeBadMaintenance, format, args...) }
	if m.Environment == "" {
		m.Environment = "production"
	}
	if m.Reason == "" {
		m.Reason = "planned"
	}
	switch {
	case !slices.Contains([]string{"production", "ote", "staging", "dev"}, m.Environment):
		return bad("environment %q: production, ote, staging or dev", m.Environment)
	case m.Reason != "planned" && m.Reason != "emergency":
		return bad("reason %q: planned or emergency", m.Reason)
	case m.Start.IsZero() || m.End.IsZero() || !m.End.After(m.Start):
		return bad("a window has a start and a later end (%s, %s)", m.Start.Format(time.RFC3339), m.End.Format(time.RFC3339))
	case len(m.Systems) == 0:
		return bad("a window names the systems it touches (name, impact)")
	}
	for _, sy := range m.Systems {
		if strings.TrimSpace(sy.Name) == "" || !slices.Contains([]string{"full", "partial", "none"}, sy.Impact) {
			return bad("system %q: a name and an impact (full, partial, none)", sy.Name)
		}
	}
	if m.Detail != "" {
		if u, err := url.Parse(m.Detail); err != nil || u.Scheme == "" {
			return bad("detail %q is not a URL", m.Detail)
		}
	}
	for _, t := range m.TLDs {
		if s.zones[t] == nil {
			return Errorf(CodeUnknownZone, "there is no zone %s", t)
		}
	}
	return nil
}

// CreateMaintenance announces a maintenance window: stored, and a poll
// message (create) queued to every registrar, in one transaction.
func (s *Service) CreateMaintenance(ctx context.Context, m Maintenance) (*Maintenance, error) {
	var b [8]byte
	rand.Read(b[:])
	m.ID = "m-" + hex.EncodeToString(b[:])
	m.Created, m.Updated, m.Cancelled = s.clock.Now().UTC(), time.Time{}, time.Time{}
	out, err := s.saveMaintenance(ctx, &m, MaintCreate)
	s.audit(ctx, AuditEntry{Registrar: "operator", Action: "maintenance-create", Name: m.ID, Result: resultOf(err)})
	return out, err
}

// UpdateMaintenance changes a window (by m.ID) and tells every registrar
// (update).
func (s *Service) UpdateMaintenance(ctx context.Context, m Maintenance) (*Maintenance, error) {
	out, err := s.changeMaintenance(ctx, m.ID, MaintUpdate, func(cur *Maintenance) {
		m.Created = cur.Created
		*cur = m
	})
	s.audit(ctx, AuditEntry{Registrar: "operator", Action: "maintenance-update", Name: m.ID, Result: resultOf(err)})
	return out, err
}

// CancelMaintenance cancels a window and tells every registrar (delete).
func (s *Service) CancelMaintenance(ctx context.Context, id string) (*Maintenance, error) {
	out, err := s.changeMaintenance(ctx, id, MaintDelete, func(cur *Maintenance) { cur.Cancelled = s.clock.Now().UTC() })
	s.audit(ctx, AuditEntry{Registrar: "operator", Action: "maintenance-cancel", Name: id, Result: resultOf(err)})
	return out, err
}

func (s *Service) changeMaintenance(ctx context.Context, id, pollType string, change func(*Maintenance)) (*Maintenance, error) {
	ms, err := s.maintenanceStore()
	if err != nil {
		return nil, err
	}
	var out *Maintenance
	err = s.transact(ctx, func(ctx context.Context) error {
		cur, err := ms.Maintenance(ctx, id)
		if err != nil {
			return err
		}
		if !cur.Cancelled.IsZero() {
			return Errorf(CodeBadMaintenance, "maintenance %s was cancelled", id)
		}
		change(cur)
		cur.ID, cur.Updated = id, s.clock.Now().UTC()
		out, err = s.saveMaintenance(ctx, cur, pollType)
		return err
	})
	return out, err
}

// saveMaintenance checks and stores m and queues its poll messages, in
// the command's transaction.
func (s *Service) saveMaintenance(ctx context.Context, m *Maintenance, pollType string) (*Maintenance, error) {
	if pollType != MaintDelete {
		if err := s.checkMaintenance(m); err != nil {
			return nil, err
		}
	}
	ms, err := s.maintenanceStore()
	if err != nil {
		return nil, err
	}
	err = s.transact(ctx, func(ctx context.Context) error {
		if err := ms.SaveMaintenance(ctx, m); err != nil {
			return err
		}
		regs, err := s.store.Registrars(ctx)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		text := map[string]string{MaintCreate: "Maintenance announced", MaintUpdate: "Maintenance changed", MaintDelete: "Maintenance cancelled"}[pollType]
		text = fmt.Sprintf("%s: %s, %s to %s", text, m.ID, m.Start.UTC().Format(time.RFC3339), m.End.UTC().Format(time.RFC3339))
		var msgs []PollMessage
		for _, r := range regs {
			if !r.Revoked.IsZero() {
				continue
			}
			msgs = append(msgs, PollMessage{RegistrarID: r.ID, Queued: now, Kind: PollMaintenance, Name: m.ID, ALabel: m.ID, Text: text,
				Maint: &MaintNote{PollType: pollType, Window: *m}})
		}
		if len(msgs) == 0 {
			return nil
		}
		return s.Enqueue(ctx, msgs...)
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// MaintenanceInfo returns a window (RFC 9167 <maint:info> with an id).
func (s *Service) MaintenanceInfo(ctx context.Context, id string) (*Maintenance, error) {
	ms, err := s.maintenanceStore()
	if err != nil {
		return nil, err
	}
	return ms.Maintenance(ctx, id)
}

// Maintenances lists the windows not cancelled (<maint:info><maint:list/>).
func (s *Service) Maintenances(ctx context.Context) ([]*Maintenance, error) {
	ms, err := s.maintenanceStore()
	if err != nil {
		return nil, err
	}
	return ms.Maintenances(ctx)
}
