package postgres_test

import (
	"encoding/binary"
	"io"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// lossyProxy is a TCP proxy to PostgreSQL that, once armed, lets the
// server run the COMMIT of the second transaction that sent COPY data
// (an import batch) and then closes the client's connection before the
// server's answer reaches it: the batch committed, the client saw a lost
// connection.
type lossyProxy struct {
	ln      net.Listener
	target  string
	armed   atomic.Bool
	commits atomic.Int32 // COMMITs of COPYing transactions seen while armed
	dropped atomic.Int32 // answers withheld
	wg      sync.WaitGroup
	mu      sync.Mutex
	conns   []net.Conn // closed when the test ends
}

func newLossyProxy(t *testing.T, target string) *lossyProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &lossyProxy{ln: ln, target: target}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

func (p *lossyProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		p.wg.Add(1)
		go func() { defer p.wg.Done(); p.serve(c, s) }()
	}
}

// readMsg reads one message of the protocol (typed: type byte and
// length; the startup message has no type byte).
func readMsg(r io.Reader, typed bool) ([]byte, error) {
	n := 4
	if typed {
		n = 5
	}
	head := make([]byte, n)
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, err
	}
	size := int(binary.BigEndian.Uint32(head[n-4:])) - 4
	if size < 0 || size > 1<<30 {
		return nil, io.ErrUnexpectedEOF
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return append(head, body...), nil
}

func (p *lossyProxy) serve(client, server net.Conn) {
	defer client.Close()
	defer server.Close()
	drop := make(chan struct{}) // closed when the answer to a COMMIT is to be withheld
	done := make(chan struct{})
	go func() { // server to client
		defer close(done)
		dropping := false
		for {
			m, err := readMsg(server, true)
			if err != nil {
				return
			}
			if !dropping {
				select {
				case <-drop:
					dropping = true
				default:
				}
			}
			if dropping {
				if m[0] == 'Z' { // ready for query: the COMMIT is done
					p.dropped.Add(1)
					client.Close()
					return
				}
				continue
			}
			if _, err := client.Write(m); err != nil {
				return
			}
		}
	}()
	copying := false
	for first := true; ; first = false {
		m, err := readMsg(client, !first)
		if err != nil {
			return
		}
		if !first {
			switch m[0] {
			case 'd': // COPY data: an import batch's transaction
				copying = true
			case 'Q', 'P':
				text := strings.ToLower(string(m[5:]))
				if m[0] == 'P' { // statement name, then the query
					text = text[strings.IndexByte(text, 0)+1:]
				}
				if i := strings.IndexByte(text, 0); i >= 0 {
					text = text[:i]
				}
				switch strings.TrimSpace(text) {
				case "commit":
					if copying && p.armed.Load() && p.commits.Add(1) == 2 {
						close(drop)
					}
					copying = false
				case "rollback":
					copying = false
				}
			}
		}
		if _, err := server.Write(m); err != nil {
			return
		}
		select {
		case <-done:
			return
		default:
		}
	}
}

// TestImportLostCommit: the COMMIT of an import batch takes effect on the
// server but the connection is lost before the client hears so (a
// transient fault, not a refusal). The import reads the checkpoint's
// stamp back, finds the batch committed and goes on: the same summary and
// rows as an unfaulted import. Retrying the batch blindly would run it
// twice (its names then duplicates of themselves).
func TestImportLostCommit(t *testing.T) {
	dsn := pgtest.DSN(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newLossyProxy(t, u.Host)
	u.Host = proxy.ln.Addr().String()
	opener := registrytest.GeneratedImport(t, 700, 5)
	opts := registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true, BatchSize: 100, Workers: 2}
	base, want, err := func() (*sqlstore.Store, *registry.ImportSummary, error) {
		store := open(t).(*sqlstore.Store)
		svc, err := registry.NewServiceWith(t.Context(), store, registry.ServiceOptions{ContactsExempt: []string{""}})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := svc.Import(t.Context(), opener, opts)
		return store, sum, err
	}()
	if err != nil || want.Batches < 3 {
		t.Fatalf("unfaulted import: %v, %+v; want several batches", err, want)
	}
	wantRows := registrytest.ImportRows(t, base.DB())

	// the faulted import, in a schema of its own, through the proxy
	q := u.Query()
	q.Set("search_path", q.Get("search_path")+"_lost")
	u.RawQuery = q.Encode()
	if _, err := base.DB().Exec(`CREATE SCHEMA ` + q.Get("search_path")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { base.DB().Exec(`DROP SCHEMA ` + q.Get("search_path") + ` CASCADE`) })
	store, err := postgres.Open(t.Context(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	store.SetRetry(sqlstore.Retry{Attempts: 5, Base: time.Millisecond, Max: 10 * time.Millisecond})
	svc, err := registry.NewServiceWith(t.Context(), store, registry.ServiceOptions{ContactsExempt: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	proxy.armed.Store(true)
	got, err := svc.Import(t.Context(), opener, opts)
	proxy.armed.Store(false)
	if proxy.dropped.Load() != 1 {
		t.Fatalf("the proxy withheld %d answers to a COMMIT, want 1 (%d COPYing transactions committed)", proxy.dropped.Load(), proxy.commits.Load())
	}
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	if store.Resolved() == 0 {
		t.Errorf("the lost COMMIT was not read back")
	}
	if got.Records != want.Records || got.Registered != want.Registered || got.Exempted != want.Exempted ||
		got.Duplicates != want.Duplicates || got.Refused != want.Refused || got.Batches != want.Batches ||
		!slices.Equal(got.RefusedByCode, want.RefusedByCode) {
		t.Errorf("import with a lost COMMIT: %+v\nunfaulted:             %+v", got, want)
	}
	if rows := registrytest.ImportRows(t, store.DB()); rows != wantRows {
		t.Errorf("import with a lost COMMIT stored other rows than an unfaulted one:\n%.2000s\nwant\n%.2000s", rows, wantRows)
	}
}
