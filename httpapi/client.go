package httpapi

import (
	"net"
	"net/http"
)

// ClientAddr is the client address of a request the server is serving, as
// its per-address limits and request log see it (the TCP peer, or behind
// a trusted proxy the address X-Forwarded-For names: Options.
// TrustedProxies). A Public handler (RDAP's search) limits with it; for a
// request that did not come through the server, the TCP peer.
func ClientAddr(r *http.Request) string {
	if i, ok := r.Context().Value(infoKey).(*requestInfo); ok && i.client != "" {
		return i.client
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}
