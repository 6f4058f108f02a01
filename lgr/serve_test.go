package lgr

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestHandler(t *testing.T) {
	hi, _ := File("hi")
	tests := []struct {
		method, path string
		status       int
		body         []byte
	}{
		{"GET", "/lgr/hi.xml", 200, hi},
		{"HEAD", "/lgr/hi.xml", 200, nil},
		{"GET", "/lgr/sd-Deva.xml", 200, nil},
		{"GET", "/lgr/xx.xml", 404, nil},
		{"GET", "/lgr/hi", 404, nil},
		{"GET", "/lgr/", 404, nil},
		{"GET", "/lgr/hi.xml.xml", 404, nil},
		{"GET", "/lgr/..%2Fhi.xml", 404, nil},
		{"POST", "/lgr/hi.xml", 405, nil},
	}
	mux := http.NewServeMux()
	mux.Handle("/lgr/", Handler())
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
		if rec.Code != tt.status {
			t.Errorf("%s %s: %d, want %d", tt.method, tt.path, rec.Code, tt.status)
		}
		if tt.body != nil && !bytes.Equal(rec.Body.Bytes(), tt.body) {
			t.Errorf("%s %s: the body is not lgr/hi.xml", tt.method, tt.path)
		}
		if tt.status == 200 && rec.Header().Get("Content-Type") != "application/xml; charset=utf-8" {
			t.Errorf("%s %s: Content-Type %q", tt.method, tt.path, rec.Header().Get("Content-Type"))
		}
	}
}
