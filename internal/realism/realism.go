package realism

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// maxRecent and maxRecentBytes bound the writes remembered for stale
// reads and index lag, in writes and in bytes of replaced images; past
// either, the oldest are forgotten first (they are the first to expire).
const (
	maxRecent      = 1 << 18
	maxRecentBytes = 64 << 20
)

// Realism holds the state of the realism effects of one server. It is safe
// for concurrent use.
type Realism struct {
	opts Options
	now  func() time.Time

	mu      sync.Mutex
	rng     *rand.Rand
	buckets map[string]*bucket
	recent  map[string]write
	order   []stamp // the writes of recent, oldest first, with rewritten ones
	bytes   int     // the sizes of the images in recent
}

// stamp names one write in Realism.order.
type stamp struct {
	key string
	at  time.Time
}

// write is one remembered item write: when, and the image it replaced
// (nil when the item did not exist).
type write struct {
	at   time.Time
	old  item.Item
	size int // item.Size(old)
}

// New returns the realism state for opts; now is the clock (time.Now when
// nil). The random choices follow opts.Seed, so that a test that sets it
// sees the same choices on every run.
func New(opts Options, now func() time.Time) *Realism {
	if now == nil {
		now = time.Now
	}
	seed := opts.Seed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	return &Realism{
		opts:    opts,
		now:     now,
		rng:     rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		buckets: map[string]*bucket{},
		recent:  map[string]write{},
	}
}

// Settings returns the settings of a table with the given tags.
func (r *Realism) Settings(tags []storage.Tag) Settings {
	return For(r.opts.Defaults, tags)
}

// Defaults returns the server-wide settings.
func (r *Realism) Defaults() Settings { return r.opts.Defaults }

// Roll reports true with probability p.
func (r *Realism) Roll(p float64) bool {
	if p <= 0 {
		return false
	}
	r.mu.Lock()
	x := r.rng.Float64()
	r.mu.Unlock()
	return x < p
}

// Wrote remembers that the item key (an opaque string naming table and
// key) was written now, replacing old.
func (r *Realism) Wrote(key string, old item.Item) {
	size := 0
	if old != nil {
		size = item.Size(old)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if w, ok := r.recent[key]; ok {
		r.bytes -= w.size
	}
	r.recent[key] = write{at: now, old: old, size: size}
	r.bytes += size
	r.order = append(r.order, stamp{key, now})
	if len(r.order) > maxRecent || r.bytes > maxRecentBytes {
		r.forgetOldest()
	}
}

// forgetOldest drops the oldest remembered writes, a quarter of them at
// least, until the rest are within both bounds.
func (r *Realism) forgetOldest() {
	n := 0
	for n < len(r.order) && (n < len(r.order)/4 || r.bytes > maxRecentBytes/2) {
		st := r.order[n]
		if w, ok := r.recent[st.key]; ok && w.at.Equal(st.at) {
			delete(r.recent, st.key)
			r.bytes -= w.size
		}
		n++
	}
	r.order = append(r.order[:0:0], r.order[n:]...)
}

// Recent reports whether the item key was written within d, and the image
// it had before.
func (r *Realism) Recent(key string, d time.Duration) (old item.Item, ok bool) {
	if d <= 0 {
		return nil, false
	}
	r.mu.Lock()
	w, found := r.recent[key]
	r.mu.Unlock()
	if !found || r.now().Sub(w.at) >= d {
		return nil, false
	}
	return w.old, true
}
