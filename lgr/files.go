package lgr

import (
	"embed"
	"net/http"
	"strings"
)

// The generated exports of the embedded languages (go generate).
//
//go:embed *.xml
var files embed.FS

// File returns the generated export of the language tag ("hi",
// "sd-Deva"), and whether there is one.
func File(tag string) ([]byte, bool) {
	if tag == "" || strings.ContainsAny(tag, "/\\.") {
		return nil, false
	}
	data, err := files.ReadFile(tag + ".xml")
	return data, err == nil
}

// Handler serves the generated exports at /lgr/{tag}.xml.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name := strings.TrimPrefix(r.URL.Path, "/lgr/")
		tag, ok := strings.CutSuffix(name, ".xml")
		data, found := File(tag)
		if !ok || !found {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/xml; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Write(data)
	})
}
