// Package web is the page served at / by akshara serve: a person types a
// label and sees, as they type, whether it is valid and in which
// languages, its aksharas with the failing one marked, each error's rule
// code explained (English or Hindi), the A-label, the variants and whether
// the name is available. Static files, embedded; no build step, no CDN.
package web

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed static
var static embed.FS

// Handler serves the page at / and its files under /static/.
func Handler() http.Handler {
	sub, _ := fs.Sub(static, "static")
	files := http.FileServer(http.FS(sub))
	mux := http.NewServeMux()
	mux.Handle("GET /static/", http.StripPrefix("/static/", files))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		page, _ := fs.ReadFile(sub, "index.html")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'self'")
		w.Write(page)
	})
	return mux
}
