package loadgen

import (
	"math/rand/v2"
	"net/http"
)

// writesFresh reports whether op writes new keys only, so that it needs no
// preloaded items.
func writesFresh(op string) bool {
	return op == OpPutItem || op == OpBatchWriteItem || op == OpTransactWriteItems
}

// readShare is the share of GetItem in a mixed workload; the rest are
// UpdateItem. YCSB's workload A is 50/50 and B 95/5 reads to updates
// (https://github.com/brianfrankcooper/YCSB/wiki/Core-Workloads).
var readShare = map[string]float64{WorkloadYCSBA: 0.50, WorkloadYCSBB: 0.95}

// Zipfian key choice: YCSB draws keys with a zipfian constant of 0.99 and
// scatters the popular ones over the key space. Go's rand.Zipf needs an
// exponent above 1, so 1.01 stands in for it; the rank is scattered by a
// multiplication modulo the item count with an odd prime, which is a
// permutation whenever the prime does not divide the count.
const (
	zipfExponent = 1.01
	scatterPrime = 2_654_435_761
)

// zipfKeys returns a function drawing preloaded item numbers 0..items-1
// with a zipfian popularity.
func zipfKeys(rng *rand.Rand, items int) func() int {
	z := rand.NewZipf(rng, zipfExponent, 1, uint64(items-1))
	mult := uint64(scatterPrime) % uint64(items)
	if mult == 0 || gcd(mult, uint64(items)) != 1 {
		mult = 1
	}
	return func() int { return int(z.Uint64() * mult % uint64(items)) }
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// requests returns worker w's source of requests: for each sequence number
// the headers and body of the next request. Bodies are the worker's own
// templates, rewritten in place.
func (r *run) requests(w int, rng *rand.Rand) func(seq int) (http.Header, []byte) {
	items, op := r.cfg.Items, r.cfg.Op
	uniform := func() int { return rng.IntN(items) }
	single := func(t template, set func(t template, seq int)) func(int) (http.Header, []byte) {
		t = t.clone()
		hdr := r.c.header(op)
		return func(seq int) (http.Header, []byte) { set(t, seq); return hdr, t.buf }
	}
	preloaded := func(key func() int) func(t template, seq int) {
		return func(t template, _ int) {
			i := key()
			t.set(0, i/ItemsPerPartition)
			t.set(1, i%ItemsPerPartition)
		}
	}
	fresh := func(t template, seq int) { t.setFresh(w, seq) }
	switch op {
	case OpPutItem:
		return single(r.tmpl.put, func(t template, seq int) { t.set(0, w); t.set(1, seq) })
	case OpGetItem:
		return single(r.tmpl.get, preloaded(uniform))
	case OpUpdateItem:
		return single(r.tmpl.update, preloaded(uniform))
	case OpScan:
		return single(r.tmpl.scan, preloaded(uniform))
	case OpQuery:
		return single(r.tmpl.query, func(t template, _ int) { t.set(0, rng.IntN(r.partitions)) })
	case OpBatchWriteItem:
		return single(r.tmpl.batchWrite, fresh)
	case OpTransactWriteItems:
		return single(r.tmpl.transact, fresh)
	case OpBatchGetItem:
		return single(r.tmpl.batchGet, func(t template, _ int) { t.setKeys(uniform(), items) })
	}
	return r.mixed(rng)
}

// mixed is the source of a YCSB-shaped workload: GetItem or UpdateItem of a
// zipfian-chosen preloaded item.
func (r *run) mixed(rng *rand.Rand) func(seq int) (http.Header, []byte) {
	get, update := r.tmpl.get.clone(), r.tmpl.update.clone()
	getHdr, updateHdr := r.c.header(OpGetItem), r.c.header(OpUpdateItem)
	key := zipfKeys(rng, r.cfg.Items)
	share := readShare[r.cfg.Op]
	return func(int) (http.Header, []byte) {
		t, hdr := update, updateHdr
		if rng.Float64() < share {
			t, hdr = get, getHdr
		}
		i := key()
		t.set(0, i/ItemsPerPartition)
		t.set(1, i%ItemsPerPartition)
		return hdr, t.buf
	}
}
