package registry_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestImportOutcomes: what the import does with each kind of line, one
// line at a time, in zone भारत.
func TestImportOutcomes(t *testing.T) {
	svc := registrytest.SQLiteService(t)
	if _, _, err := svc.AddRegistrar(t.Context(), "reg"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		line string
		code string // "" registered; "EXEMPTED"; else the refusal's code
	}{
		{"किताब,reg,hi,2020-01-02", ""},
		{"xn--11b4aya5ed,reg", registry.CodeDuplicate},     // the same name as an A-label
		{"किताब.xn--h2brj9c.,reg", registry.CodeDuplicate}, // zone as an A-label, final dot
		{"कित्ताब,reg", "EXEMPTED"},
		{"कमल.ভারত,reg", registry.CodeOtherZone},
		{"कमल.nozone,reg", registry.CodeUnknownZone},
		{"a.b.c,reg", registry.CodeBadName},
		{"कमल,reg,xx", registry.CodeUnknownLanguage},
		{"कमल,reg,bn", registry.CodeUnknownLanguage},
		{"क्अब,reg", "HALANT_FOLLOWER"},
		{"कमल,reg,,not-a-date", registry.CodeBadLine},
		{"कमल,reg,hi", ""},
	}
	for _, c := range cases {
		var refused []registry.ImportRefusal
		sum, err := svc.Import(t.Context(), func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(c.line + "\n")), nil },
			registry.ImportOptions{ContactsExempt: true, Zone: "भारत", Refused: func(r registry.ImportRefusal) { refused = append(refused, r) }})
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		got := ""
		switch {
		case len(refused) == 1:
			got = refused[0].Code
		case sum.Exempted == 1:
			got = "EXEMPTED"
		case sum.Registered != 1:
			got = "nothing"
		}
		if got != c.code {
			t.Errorf("%s: %q (%+v, %v), want %q", c.line, got, sum, refused, c.code)
		}
	}
	d, err := svc.Info(t.Context(), "किताब.भारत")
	if err != nil {
		t.Fatal(err)
	}
	if !d.Created.Equal(time.Date(2020, 1, 2, 0, 0, 0, 0, time.UTC)) || d.Registrar != "reg" || d.Lang != "hi" {
		t.Errorf("किताब.भारत = created %v by %s in %s, want 2020-01-02 by reg in hi", d.Created, d.Registrar, d.Lang)
	}
	// a zone that does not exist
	if _, err := svc.Import(t.Context(), func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("x\n")), nil },
		registry.ImportOptions{ContactsExempt: true, Zone: "nozone", Registrar: "reg"}); registry.CodeOf(err) != registry.CodeUnknownZone {
		t.Errorf("Import into nozone: %v, want UNKNOWN_ZONE", err)
	}
}

// TestImportInterrupted: an import whose context ends at any moment
// returns (with the context's error, or done), never hangs, and a second
// run completes it.
func TestImportInterrupted(t *testing.T) {
	var file strings.Builder
	want, err := registrytest.GenerateImport(&file, 2000, 5)
	if err != nil {
		t.Fatal(err)
	}
	open := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(file.String())), nil }
	for i := 0; i < 8; i++ {
		svc := registrytest.SQLiteService(t)
		ctx, cancel := context.WithTimeout(t.Context(), time.Duration(i)*3*time.Millisecond)
		opts := registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true, BatchSize: 50}
		done := make(chan error, 1)
		go func() {
			_, err := svc.Import(ctx, open, opts)
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) && registry.CodeOf(err) != registry.CodeInternal {
				t.Errorf("interrupted after %d ms: %v", i*3, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("interrupted after %d ms: the import did not return in 30 s", i*3)
		}
		cancel()
		sum, err := svc.Import(t.Context(), open, opts)
		if err != nil {
			t.Fatalf("run after the interruption: %v", err)
		}
		if sum.Skipped+sum.Registered+sum.Exempted+sum.Duplicates+sum.Refused != want.Records {
			t.Errorf("run after an interruption at %d ms: %+v does not account for %d records", i*3, sum, want.Records)
		}
	}
}

// gatedImporter holds the first import batch until released, counting
// the bytes the import has read from its file meanwhile.
type gatedImporter struct {
	*sqlstore.Store
	first   sync.Once
	writing chan struct{} // closed when the first batch is being written
	release chan struct{}
}

func (g *gatedImporter) ImportBatch(ctx context.Context, b *registry.ImportBatch) error {
	g.first.Do(func() {
		close(g.writing)
		<-g.release
	})
	return g.Store.ImportBatch(ctx, b)
}

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// TestImportReadAhead: while the store writes a batch, the import reads
// and judges the next one and no more, however many workers judge: its
// memory does not grow with the file (issue 26). Before, up to 3 ×
// workers + 1 chunks were read ahead (13 of the 30 chunks here).
func TestImportReadAhead(t *testing.T) {
	ctx := t.Context()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	g := &gatedImporter{Store: s, writing: make(chan struct{}), release: make(chan struct{})}
	svc, err := registry.NewService(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if _, err := registrytest.GenerateImport(&file, 30_000, 5); err != nil {
		t.Fatal(err)
	}
	const batch = 1000
	chunk := int64(file.Len()) / 30 // bytes of a chunk, about
	var read atomic.Int64
	open := func() (io.ReadCloser, error) {
		read.Store(0)
		return io.NopCloser(countingReader{bytes.NewReader(file.Bytes()), &read}), nil
	}
	done := make(chan error, 1)
	go func() {
		_, err := svc.Import(ctx, open, registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true, Batched: true, BatchSize: batch, Workers: 4})
		done <- err
	}()
	select {
	case <-g.writing:
	case err := <-done:
		t.Fatalf("the import ended before its first batch was written: %v", err)
	}
	// let the reader and the workers run ahead as far as they would
	time.Sleep(500 * time.Millisecond)
	ahead := read.Load()
	close(g.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// the batch written, the next one judged, the one after it being
	// read, and the reader's buffer (64 KiB)
	if limit := 3*chunk + 64<<10; ahead > limit {
		t.Errorf("while the first batch was written the import had read %d bytes of %d (%.1f chunks of about %d); want at most %d",
			ahead, file.Len(), float64(ahead)/float64(chunk), chunk, limit)
	}
	if ahead < 2*chunk {
		t.Errorf("while the first batch was written the import had read %d bytes (%.1f chunks): the next batch is not read ahead", ahead, float64(ahead)/float64(chunk))
	}
}
