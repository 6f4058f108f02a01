package escrow

import (
	"bytes"
	"os"
	"testing"
)

// FuzzScan: the deposit reader takes any bytes without panicking, and a
// file it accepts ends with its root element closed.
func FuzzScan(f *testing.F) {
	if b, err := os.ReadFile("testdata/foreign.xml"); err == nil {
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte(`<rde:deposit xmlns:rde="urn:ietf:params:xml:ns:rde-1.0" type="FULL" id="1"><rde:contents></rde:contents></rde:deposit>`))
	f.Add([]byte(`<x/>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		n := 0
		_, _, err := scanReader(bytes.NewReader(b), "fuzz", func(o *object) error {
			n++
			keysOf(o)
			switch x := o.v.(type) {
			case *xDomain:
				x.domain(nil)
			case *xHost:
				x.host()
			case *xRdeContact:
				x.contact()
			}
			return nil
		})
		if err == nil && !bytes.Contains(b, []byte("deposit")) {
			t.Errorf("accepted %q, which has no deposit element", b)
		}
	})
}
