package cassandra

import (
	"context"
	"errors"
	"fmt"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/extenddb/extenddb/internal/storage"
)

// AcquireLease takes or renews lease name for owner until ttl from now
// (storage.Leaser). A free lease (no row, or an expired one: the row
// carries a Cassandra TTL) is taken with INSERT ... IF NOT EXISTS USING
// TTL; the owner renews it with UPDATE ... USING TTL ... IF owner = ?.
// Both are lightweight transactions, so exactly one of racing claimers
// gets a free lease, and the lease rows are only ever written by LWTs.
// The TTL is counted in whole seconds: a lease lasts at least ttl and at
// most a second longer than ttl rounded up.
func (b *Backend) AcquireLease(ctx context.Context, name, owner string, ttl time.Duration) (bool, error) {
	if b.closed.Load() {
		return false, storage.ErrClosed
	}
	// Cassandra counts a TTL from the current whole second, so a row lives
	// between secs-1 and secs seconds: one more keeps the lease at least
	// ttl.
	secs := int((ttl+time.Second-1)/time.Second) + 1
	k := b.catalog
	mine := func() (bool, error) { // after an uncertain outcome: is the lease ours?
		var got string
		err := b.s.Query(`SELECT owner FROM `+k+`.leases WHERE name = ?`, name).WithContext(ctx).
			Consistency(gocql.Serial).Scan(&got)
		if errors.Is(err, gocql.ErrNotFound) {
			return false, nil
		}
		return err == nil && got == owner, err
	}
	ok, err := b.cas(ctx, b.s.Query(`INSERT INTO `+k+`.leases (name, owner) VALUES (?, ?) IF NOT EXISTS USING TTL ?`,
		name, owner, secs), mine)
	if err == nil && !ok {
		ok, err = b.cas(ctx, b.s.Query(`UPDATE `+k+`.leases USING TTL ? SET owner = ? WHERE name = ? IF owner = ?`,
			secs, owner, name, owner), mine)
	}
	if err != nil {
		return false, fmt.Errorf("cassandra: lease %s: %w", name, err)
	}
	return ok, nil
}
