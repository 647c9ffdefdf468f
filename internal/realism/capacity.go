package realism

import "time"

// Kinds of capacity.
const (
	Read  = "Read"
	Write = "Write"
)

// bucket is a token bucket of capacity units: it fills at rate units per
// second up to burst units and may go negative (a request is charged what
// it consumed after it ran, as DynamoDB does); requests are refused while
// it is empty.
type bucket struct {
	rate, burst float64
	units       float64
	at          time.Time
}

// refill brings the bucket to now.
func (b *bucket) refill(now time.Time) {
	if el := now.Sub(b.at).Seconds(); el > 0 {
		b.units = min(b.burst, b.units+el*b.rate)
	}
	b.at = now
}

// Admit reports whether a request on the capacity named key (a table or
// an index, and Read or Write) may run: whether the bucket of rate units
// per second, keeping burst of unused capacity, has any units left. A new
// bucket starts full, as a new table has its burst capacity.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/burst-adaptive-capacity.html
func (r *Realism) Admit(key string, rate float64, burst time.Duration) bool {
	if rate <= 0 {
		return true
	}
	if burst <= 0 {
		burst = DefaultBurst
	}
	size := max(rate*burst.Seconds(), 1)
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.buckets[key]
	if b == nil {
		b = &bucket{units: size, at: now}
		r.buckets[key] = b
	}
	// The table's throughput may have changed since (UpdateTable).
	b.rate, b.burst = rate, size
	b.refill(now)
	return b.units > 0
}

// Charge takes units from the bucket of key, if Admit made one.
func (r *Realism) Charge(key string, units float64) {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if b := r.buckets[key]; b != nil {
		b.refill(now)
		b.units -= units
	}
}
