package httpapi

import (
	"net/url"
	"strings"
)

// maxQueryScan is the longest query (in parameters) that query2 reads
// itself; a longer one goes through url.ParseQuery, whose limit on the
// number of parameters then applies as before.
const maxQueryScan = 64

// query2 returns url.ParseQuery(raw).Get(k1) and .Get(k2) (the first value
// of each key, "" if none; pairs that ParseQuery drops, with a semicolon
// or a bad escape, are dropped) without building the map: only the two
// values are unescaped, and only when they hold an escape.
func query2(raw, k1, k2 string) (v1, v2 string) {
	if strings.Count(raw, "&") >= maxQueryScan {
		q, _ := url.ParseQuery(raw)
		return q.Get(k1), q.Get(k2)
	}
	found1, found2 := false, false
	for raw != "" && !(found1 && found2) {
		var kv string
		kv, raw, _ = strings.Cut(raw, "&")
		if kv == "" || strings.IndexByte(kv, ';') >= 0 {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if strings.ContainsAny(k, "%+") {
			uk, err := url.QueryUnescape(k)
			if err != nil {
				continue
			}
			k = uk
		}
		want1, want2 := !found1 && k == k1, !found2 && k == k2
		if !want1 && !want2 {
			continue
		}
		uv, err := url.QueryUnescape(v)
		if err != nil {
			continue
		}
		if want1 {
			v1, found1 = uv, true
		}
		if want2 {
			v2, found2 = uv, true
		}
	}
	return v1, v2
}
