// Package docs carries the documents the server publishes itself:
// policy.md, the project's normative reading of the policy, which code,
// language files, LGR exports and the /policy pages cite as
// "docs/policy.md §N" and which the web page serves at /docs/policy.md.
package docs

import _ "embed"

// Policy is the text of docs/policy.md.
//
//go:embed policy.md
var Policy string
