package cassandra

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Murmur3 (x64, 128 bits, seed 0) is the hash of Cassandra's default
// partitioner; a partition's token is the first 64 bits of the hash of its
// key. Each 16-byte block is mixed into the state (h1, h2) by a bijection
// of the block, so the block that takes any state to any other is easy to
// compute: two keys of 32 bytes whose first blocks differ and whose second
// blocks take both to the same state have the same hash, and so the same
// token. Tests use them to build partitions that share a token.

const (
	murmurC1 = 0x87c37b91114253d5
	murmurC2 = 0x4cf5ad432745937f
	murmurN1 = 0x52dce729
	murmurN2 = 0x38495ab5
)

// murmurBlock mixes the 16-byte block b into the state (h1, h2).
func murmurBlock(h1, h2 uint64, b []byte) (uint64, uint64) {
	k1, k2 := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	k1 = bits.RotateLeft64(k1*murmurC1, 31) * murmurC2
	h1 = (bits.RotateLeft64(h1^k1, 27)+h2)*5 + murmurN1
	k2 = bits.RotateLeft64(k2*murmurC2, 33) * murmurC1
	h2 = (bits.RotateLeft64(h2^k2, 31)+h1)*5 + murmurN2
	return h1, h2
}

// inverse64 is the multiplicative inverse of odd x modulo 2^64.
func inverse64(x uint64) uint64 {
	inv := x
	for range 6 {
		inv *= 2 - x*inv
	}
	return inv
}

// murmurBlockTo returns the block that mixes the state (h1, h2) into
// (t1, t2).
func murmurBlockTo(h1, h2, t1, t2 uint64) []byte {
	inv5 := inverse64(5)
	x1 := h1 ^ bits.RotateLeft64((t1-murmurN1)*inv5-h2, -27)
	x2 := h2 ^ bits.RotateLeft64((t2-murmurN2)*inv5-t1, -31)
	k1 := bits.RotateLeft64(x1*inverse64(murmurC2), -31) * inverse64(murmurC1)
	k2 := bits.RotateLeft64(x2*inverse64(murmurC1), -33) * inverse64(murmurC2)
	out := binary.LittleEndian.AppendUint64(nil, k1)
	return binary.LittleEndian.AppendUint64(out, k2)
}

// collidingKeys returns n keys of 32 bytes with the same Murmur3 hash.
func collidingKeys(n int) [][]byte {
	var t1, t2 uint64
	var out [][]byte
	for i := range n {
		first := []byte(fmt.Sprintf("collide-%08d", i))
		h1, h2 := murmurBlock(0, 0, first)
		if i == 0 {
			second := []byte("................")
			t1, t2 = murmurBlock(h1, h2, second)
			out = append(out, append(first, second...))
			continue
		}
		out = append(out, append(first, murmurBlockTo(h1, h2, t1, t2)...))
	}
	return out
}

// TestTokenCollisionPages: partitions that share a token (three keys of
// one Murmur3 hash, several rows each) among partitions of their own are
// read by token pages, whatever the page size and so from a cursor in any
// of them, each row exactly once: a page from a cursor reads the rest of
// its partition, then the partitions of its token after it, then the
// tokens after it.
func TestTokenCollisionPages(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := &storage.Table{
		Account: newAccount(), Name: "collide", ID: uuid.NewString(),
		KeySchema: []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
		AttributeDefinitions: []storage.AttributeDefinition{
			{AttributeName: "pk", AttributeType: "B"}, {AttributeName: "sk", AttributeType: "S"}},
		BillingMode: "PAY_PER_REQUEST", Status: storage.StatusActive, CreatedAt: time.Now().UTC(),
	}
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	same := collidingKeys(3)
	var its []item.Item
	for _, pk := range same {
		for s := range 3 {
			its = append(its, item.Item{"pk": item.B(pk), "sk": item.S(fmt.Sprint("s", s))})
		}
	}
	for p := range 12 {
		its = append(its, item.Item{"pk": item.B([]byte(fmt.Sprint("other", p))), "sk": item.S("s")})
	}
	writeAll(t, ctx, b, tb, its, put)
	p := b.phys(tb)
	var tokens []int64
	for _, pk := range same {
		var tok int64
		if err := b.s.Query(`SELECT token(pk) FROM `+p.items+` WHERE pk = ? LIMIT 1`, pk).WithContext(ctx).Scan(&tok); err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, tok)
	}
	if tokens[0] != tokens[1] || tokens[1] != tokens[2] {
		t.Fatalf("the keys built to collide have tokens %v: the test exercises nothing", tokens)
	}
	for _, limit := range []int{1, 2, 3, 4, 5, 7, 100} {
		seen := map[string]bool{}
		var cursor *storage.Key
		for pages := 0; ; pages++ {
			if pages > len(its)+1 {
				t.Fatalf("limit %d: more pages than rows", limit)
			}
			got, err := b.readTokenPage(ctx, p, cursor, limit)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range got {
				k := fmt.Sprintf("%x/%x", r.key.PK, r.key.SK)
				if seen[k] {
					t.Fatalf("limit %d, page %d: %s read twice", limit, pages, k)
				}
				seen[k] = true
			}
			if len(got) < limit {
				break
			}
			cursor = &got[len(got)-1].key
		}
		if len(seen) != len(its) {
			t.Errorf("limit %d: %d rows read, want %d", limit, len(seen), len(its))
		}
	}
}
