package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/akshara-idn/akshara/registry"
)

// The request context made on demand (requestCtx) must behave as the
// context.WithTimeout it replaces: a handler that waits past
// RequestTimeout gets DeadlineExceeded and the client 503 TIMEOUT; the
// context carries the request's info and the connection's values; it is
// canceled when the request ends, also when first asked after that.
func TestRequestContext(t *testing.T) {
	s := &Server{opts: Options{RequestTimeout: 50 * time.Millisecond}, log: slog.New(slog.DiscardHandler),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "r"}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "d"}, []string{"route"})}
	type key struct{}
	var kept context.Context
	h := s.wrap("GET /t", func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		kept = ctx
		if infoOf(r).id == "" {
			t.Error("no request info in the context")
		}
		d, ok := ctx.Deadline()
		if !ok || time.Until(d) > 50*time.Millisecond {
			t.Errorf("Deadline() = %v, %v", d, ok)
		}
		if r.URL.Query().Get("wait") == "" {
			return nil // nothing asked of the context but its info
		}
		if v := ctx.Value(key{}); v != "conn" {
			t.Errorf("the connection's value = %v", v)
		}
		child, cancel := context.WithCancel(ctx)
		defer cancel()
		select {
		case <-child.Done():
			return child.Err()
		case <-time.After(5 * time.Second):
			t.Error("the request's deadline did not end its context")
			return nil
		}
	})
	serve := func(target string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", target, nil)
		req = req.WithContext(context.WithValue(req.Context(), key{}, "conn"))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	w := serve("/t?wait=1")
	var body ErrorBody
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != http.StatusServiceUnavailable || body.Code != CodeTimeout {
		t.Fatalf("a request past its deadline: %d %s", w.Code, w.Body)
	}
	if !errors.Is(kept.Err(), context.DeadlineExceeded) {
		t.Errorf("after the deadline: Err() = %v", kept.Err())
	}
	// a quick request that never asked for Done: canceled once it ended
	if w := serve("/t"); w.Code != http.StatusOK {
		t.Fatalf("a quick request: %d %s", w.Code, w.Body)
	}
	select {
	case <-kept.Done():
	default:
		t.Error("the context of an ended request is not done")
	}
	if !errors.Is(kept.Err(), context.Canceled) {
		t.Errorf("after the request: Err() = %v, want Canceled", kept.Err())
	}
	_ = registry.CodeInternal
}
