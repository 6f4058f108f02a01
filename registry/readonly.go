package registry

import "context"

type readOnlyKey struct{}

// The kinds of read-only request (ReadOnly, Public).
const (
	readOnly = 1 + iota
	public
)

// ReadOnly marks ctx as a request that only reads (a check, an info, a
// host info): a store with a read replica may answer its reads from the
// replica (docs/replicas.md). The store decides whether it does (the
// replica is up, within its lag bound and, unless the request is Public,
// has applied the store's own last commit); a write made under a marked
// context still goes to the primary, and so does every read of a request
// that is not marked (those of a create, a delete, an update). A context
// marked already is returned as it is.
func ReadOnly(ctx context.Context) context.Context {
	if IsReadOnly(ctx) {
		return ctx
	}
	return context.WithValue(ctx, readOnlyKey{}, readOnly)
}

// Public marks ctx as a read-only request of no registrar (RDAP, WHOIS):
// it may be answered by a replica within the lag bound even before the
// replica has applied this process's last commit, since no client of it
// has just written (read-your-writes is for a registrar's own commands).
func Public(ctx context.Context) context.Context {
	return context.WithValue(ctx, readOnlyKey{}, public)
}

// IsReadOnly reports whether ctx was marked by ReadOnly or Public.
func IsReadOnly(ctx context.Context) bool {
	v, _ := ctx.Value(readOnlyKey{}).(int)
	return v != 0
}

// IsPublic reports whether ctx was marked by Public.
func IsPublic(ctx context.Context) bool {
	v, _ := ctx.Value(readOnlyKey{}).(int)
	return v == public
}
