package registry

import "context"

type readOnlyKey struct{}

// ReadOnly marks ctx as a request that only reads (a check, an info, an
// RDAP or WHOIS lookup): a store with a read replica may answer its reads
// from the replica (docs/replicas.md). The store decides whether it does
// (the replica is up, within its lag bound and has applied the store's
// own last commit); a write made under a marked context still goes to
// the primary, and so does every read of a request that is not marked
// (those of a create, a delete, an update).
func ReadOnly(ctx context.Context) context.Context {
	return context.WithValue(ctx, readOnlyKey{}, true)
}

// IsReadOnly reports whether ctx was marked by ReadOnly.
func IsReadOnly(ctx context.Context) bool {
	v, _ := ctx.Value(readOnlyKey{}).(bool)
	return v
}
