// Package clock is the server's source of the current time. The system
// clock is the default; a manual clock (`extenddb serve --clock manual`)
// moves only when told, through the admin API (internal/admin) or
// `extenddb clock advance|set`, so that tests of TTL expiry, stream
// retention, iterator expiry and backup timestamps are deterministic.
// See docs/testing-with-extenddb.md and docs/adr/0016.
package clock

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Clock tells the time.
type Clock interface {
	Now() time.Time
}

// System is the wall clock.
type System struct{}

// Now returns time.Now().
func (System) Now() time.Time { return time.Now() }

// ErrNotManual is returned when a clock that is not manual is asked to move.
var ErrNotManual = errors.New("the server's clock is the system clock: start it with --clock manual to control time")

// Manual is a clock that moves only when Advance or Set is called. It is
// safe for concurrent use.
type Manual struct {
	mu  sync.Mutex
	now time.Time
}

// NewManual returns a manual clock reading start.
func NewManual(start time.Time) *Manual { return &Manual{now: start} }

// Now returns the clock's time.
func (m *Manual) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// Earliest and Latest bound a manual clock: DynamoDB's times are seconds
// since the Unix epoch, and its ISO 8601 dates have four-digit years.
var (
	Earliest = time.Unix(0, 0).UTC()
	Latest   = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
)

// errRange is the error of a move outside [Earliest, Latest].
var errRange = errors.New("the clock must stay between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z")

// Advance moves the clock forward by d (d >= 0) and returns the new time.
// Errors: d is negative, or the clock would pass Latest (it does not move).
func (m *Manual) Advance(d time.Duration) (time.Time, error) {
	if d < 0 {
		return time.Time{}, errors.New("the clock only moves forward: the duration must not be negative")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if Latest.Sub(m.now) < d {
		return time.Time{}, errRange
	}
	m.now = m.now.Add(d)
	return m.now, nil
}

// Set moves the clock to t, forward or back, and returns it. Errors: t is
// before Earliest or after Latest (the clock does not move).
func (m *Manual) Set(t time.Time) (time.Time, error) {
	if t.Before(Earliest) || t.After(Latest) {
		return time.Time{}, errRange
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = t
	return m.now, nil
}

// Mode names a clock for the --clock flag.
func Mode(c Clock) string {
	if _, ok := c.(*Manual); ok {
		return "manual"
	}
	return "system"
}

// New returns the clock mode names: "system" (or "") or "manual", which
// starts at the current wall-clock time.
func New(mode string) (Clock, error) {
	switch mode {
	case "", "system":
		return System{}, nil
	case "manual":
		return NewManual(time.Now().UTC().Truncate(time.Second)), nil
	}
	return nil, errors.New(`--clock must be "system" or "manual", not "` + mode + `"`)
}

// Func returns c's Now as a function, time.Now when c is nil.
func Func(c Clock) func() time.Time {
	if c == nil {
		return time.Now
	}
	return c.Now
}

// ParseDuration parses a Go duration ("90m", "1h30m") or a number of days
// ("2d", "1.5d").
func ParseDuration(s string) (time.Duration, error) {
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(d, 64)
		ns := n * float64(24*time.Hour)
		// NaN fails both comparisons; a duration holds about 292 years.
		if err != nil || !(ns > math.MinInt64 && ns < math.MaxInt64) {
			return 0, errors.New("bad duration " + strconv.Quote(s))
		}
		return time.Duration(ns), nil
	}
	return time.ParseDuration(s)
}
