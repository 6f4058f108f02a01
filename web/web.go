// Package web is the page served at / by akshara serve: a person types a
// name and sees, as they type, what they can do with it (register it, or
// why not), its aksharas with the failing one marked, each error's rule
// code explained (English or Hindi), the A-label and the variants; an
// on-screen InScript keyboard per language; and /policy, the policy of
// every language generated from the language files. Static files and
// templates, embedded; no build step, no CDN.
package web

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed static
var static embed.FS

// csp: the page loads nothing but its own files.
const csp = "default-src 'self'"

// Handler serves the page at /, its files under /static/, the keyboards
// under /keyboard/{tag}.json, the policy pages under /policy and the
// policy reading they cite at /docs/policy.md.
func Handler() http.Handler {
	sub, _ := fs.Sub(static, "static")
	files := http.FileServer(http.FS(sub))
	mux := http.NewServeMux()
	mux.Handle("GET /static/", http.StripPrefix("/static/", files))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		page, _ := fs.ReadFile(sub, "index.html")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", csp)
		w.Write(page)
	})
	mux.HandleFunc("GET /keyboard/{file}", keyboardJSON)
	mux.HandleFunc("GET /policy", policyList)
	mux.HandleFunc("GET /policy/{$}", policyList)
	mux.HandleFunc("GET /policy/{tag}", policyPage)
	mux.HandleFunc("GET /docs/policy.md", policyDocument)
	return mux
}
