package epp

import (
	"unicode/utf8"

	"github.com/akshara-idn/akshara/registry"
)

// greet is the server's greeting (RFC 5730 §2.4). Its svDate is the
// registry's time (the service's clock). On a staging server (issue 34
// item 14; registry/staging.go) the svID says so and how far ahead of
// real time the registry's clock runs — "akshara (staging, clock +30d)",
// within the schema's 64 characters — so that a registrar's software and
// its people see at every connection that this is not production.
func (s *Server) greet() []byte {
	svID := s.opts.ServerID
	if off, ok := s.svc.Staging(); ok {
		suffix := " (staging, clock " + registry.FormatOffset(off) + ")"
		svID = clip(svID, 64-utf8.RuneCountInString(suffix)) + suffix
	}
	return greeting(svID, s.svc.Clock().Now())
}
