package registry_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// failingAudit is a store whose audit writes fail.
type failingAudit struct{ registry.Store }

func (failingAudit) Audit(context.Context, registry.AuditEntry) error {
	return errors.New("disk full")
}

// TestAuditFailureIsNotSilent: a refused create whose audit record cannot
// be written is logged and counted (issue 10: before, the error was
// dropped).
func TestAuditFailureIsNotSilent(t *testing.T) {
	ctx := context.Background()
	base := registrytest.SQLiteService(t).Store()
	svc, err := registry.NewService(ctx, failingAudit{base})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	svc.SetLogger(slog.New(slog.NewTextHandler(&logs, nil)))
	r, _, err := svc.AddRegistrar(ctx, "alpha") // succeeds; its record fails
	if err != nil {
		t.Fatalf("AddRegistrar: %v", err)
	}
	if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: "x\x00y.in"}); !errors.Is(err, registry.ErrBadName) {
		t.Errorf("Create: %v, want BAD_NAME (the refusal, not the audit failure)", err)
	}
	if err := registrytest.Err(svc.DeleteDomain(ctx, r, registry.DomainDelete{Name: "nothing.in"})); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("Delete: %v, want NOT_FOUND", err)
	}
	if n := svc.AuditFailures(); n != 3 {
		t.Errorf("AuditFailures() = %d, want 3", n)
	}
	out := logs.String()
	if strings.Count(out, "level=ERROR") != 3 || !strings.Contains(out, "audit write failed") || !strings.Contains(out, "disk full") ||
		!strings.Contains(out, "action=create") || !strings.Contains(out, "result=BAD_NAME") {
		t.Errorf("log:\n%s", out)
	}
}
