package logrl

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestHandler(t *testing.T) {
	var buf bytes.Buffer
	h := New(slog.NewTextHandler(&buf, nil), 1e-9, 3) // a burst of 3, then (practically) none
	log := slog.New(h).With("component", "test")
	for i := 0; i < 1000; i++ {
		log.Error("disk full", "i", i)
		log.Info("request")
	}
	out := buf.String()
	if n := strings.Count(out, "level=ERROR"); n != 3 {
		t.Errorf("%d error lines, want 3", n)
	}
	if n := strings.Count(out, "level=INFO"); n != 1000 {
		t.Errorf("%d info lines, want 1000 (not limited)", n)
	}
	if h.Suppressed() != 997 {
		t.Errorf("Suppressed() = %d, want 997", h.Suppressed())
	}
	if !strings.Contains(out, "component=test") {
		t.Errorf("attributes lost: %.200s", out)
	}

	// when the limit lets one through again, the count comes first
	buf.Reset()
	h.state.lim.SetBurst(1)
	h.state.lim.SetLimit(1e9)
	log.Error("again")
	if !strings.Contains(buf.String(), "suppressed=997") || !strings.Contains(buf.String(), "msg=again") {
		t.Errorf("after the limit: %q", buf.String())
	}
}
