package storage

import (
	"context"
	"strings"
)

// A namespace is the string every Catalog call takes as its account: one
// account's tables in one region (docs/adr/0011). Its first segment, up to
// the first '/', is always the 12-digit account ID that ARNs carry.
//
//	"111122223333"                 the account's home region (the server's --region)
//	"111122223333/eu-west-1"       any other region
//	"111122223333/eu-west-1/AKID"  DynamoDB Local's per-access-key separation
//
// The home region keeps the bare account ID so that data written before
// regions were separate stays where it was.

// Namespace returns the namespace of account in region; region "" or equal
// to home is the bare account ID.
func Namespace(account, region, home string) string {
	if region == "" || region == home {
		return account
	}
	return account + "/" + region
}

// NamespaceAccount returns the account ID of namespace ns.
func NamespaceAccount(ns string) string {
	if i := strings.IndexByte(ns, '/'); i >= 0 {
		return ns[:i]
	}
	return ns
}

// Namespaces returns the namespaces of b's tables (Catalog.ListNamespaces)
// and those of fallback, each once, without the reserved ones (starting
// with '_').
func Namespaces(ctx context.Context, b Catalog, fallback []string) ([]string, error) {
	ns, err := b.ListNamespaces(ctx)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(ns)+len(fallback))
	out := make([]string, 0, len(ns)+len(fallback))
	for _, n := range append(fallback, ns...) {
		if !seen[n] && !strings.HasPrefix(n, "_") {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out, nil
}
