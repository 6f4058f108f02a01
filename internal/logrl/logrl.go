// Package logrl rate-limits error logs: a slog.Handler that passes at
// most a burst of ERROR records and then a steady rate, counts the ones it
// suppressed, and says how many when it lets the next one through. A
// fault that fails every request (a full disk) then costs a few lines a
// second instead of tens of thousands, and the count is not lost: it is
// logged and served as a metric (Suppressed).
package logrl

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Handler is the rate-limiting slog.Handler. Records below ERROR pass
// untouched.
type Handler struct {
	next  slog.Handler
	state *state
}

type state struct {
	lim        *rate.Limiter
	suppressed atomic.Uint64 // in all
	pending    atomic.Uint64 // since the last record let through
}

// New passes at most burst ERROR records at once and perSecond after.
func New(next slog.Handler, perSecond float64, burst int) *Handler {
	return &Handler{next: next, state: &state{lim: rate.NewLimiter(rate.Limit(perSecond), burst)}}
}

// Suppressed counts the ERROR records dropped since New.
func (h *Handler) Suppressed() uint64 { return h.state.suppressed.Load() }

// Enabled implements slog.Handler.
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

// Handle implements slog.Handler.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelError {
		return h.next.Handle(ctx, r)
	}
	if !h.state.lim.Allow() {
		h.state.suppressed.Add(1)
		h.state.pending.Add(1)
		return nil
	}
	if n := h.state.pending.Swap(0); n > 0 {
		note := slog.NewRecord(time.Now(), slog.LevelWarn, "error lines suppressed by the log rate limit", 0)
		note.AddAttrs(slog.Uint64("suppressed", n))
		if err := h.next.Handle(ctx, note); err != nil {
			return err
		}
	}
	return h.next.Handle(ctx, r)
}

// WithAttrs implements slog.Handler; the limit is shared.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Handler{next: h.next.WithAttrs(attrs), state: h.state}
}

// WithGroup implements slog.Handler; the limit is shared.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{next: h.next.WithGroup(name), state: h.state}
}
