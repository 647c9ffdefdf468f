// Package realism makes extenddb behave, on request, like a busy DynamoDB
// in the ways a client's retry and consistency logic has to cope with:
// global secondary indexes that trail their table, eventually consistent
// reads that return the previous image, provisioned capacity enforced with
// burst capacity and ThrottlingReasons, and injected
// TransactionConflict and InternalServerError faults. It is off unless the
// server is started with --realism (docs/realism-and-triggers.md,
// docs/adr/0017-realism-and-stream-triggers.md).
//
// The package holds the decisions (settings, seeded randomness, token
// buckets, the recent writes); internal/api applies them to requests.
package realism

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/extenddb/extenddb/internal/storage"
)

// TagPrefix starts the tag keys that set realism for one table: the tag
// extenddb:realism:gsi-lag with value 2s sets that table's GSI lag. A tag
// overrides the server-wide setting of the same name.
const TagPrefix = "extenddb:realism:"

// DefaultBurst is how much unused provisioned capacity a table keeps, in
// seconds of its provisioned rate: DynamoDB retains up to 300 seconds.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/burst-adaptive-capacity.html
const DefaultBurst = 300 * time.Second

// Settings are the realism effects of a table (or the server's defaults).
// The zero value has every effect off.
type Settings struct {
	// GSILag is how long a written item stays out of the results of a
	// Query or Scan on a global secondary index.
	GSILag time.Duration
	// StaleReadWindow is how long after a write an eventually consistent
	// GetItem may still return the item's previous image;
	// StaleReadRate is the probability (0 to 1) that it does.
	StaleReadWindow time.Duration
	StaleReadRate   float64
	// Capacity enforces the provisioned throughput of PROVISIONED tables
	// and the maximum on-demand throughput of PAY_PER_REQUEST tables that
	// set one; Burst is the unused capacity kept (DefaultBurst when zero).
	Capacity bool
	Burst    time.Duration
	// InternalErrorRate and TransactionConflictRate are the probabilities
	// (0 to 1) that an item operation fails with InternalServerError, or
	// with a transaction conflict (TransactionConflictException for a
	// single-item write, TransactionCanceledException for a transaction).
	InternalErrorRate       float64
	TransactionConflictRate float64
	// StatusDelay, when HasStatusDelay, is how long the table stays
	// CREATING, UPDATING or DELETING after a change, instead of the
	// server's --status-delay.
	StatusDelay    time.Duration
	HasStatusDelay bool
}

// Names of the settings, in a --realism list and after TagPrefix.
var setters = map[string]func(s *Settings, v string) error{
	"gsi-lag":                   func(s *Settings, v string) error { return duration(&s.GSILag, v) },
	"stale-read-window":         func(s *Settings, v string) error { return duration(&s.StaleReadWindow, v) },
	"stale-read-rate":           func(s *Settings, v string) error { return rate(&s.StaleReadRate, v) },
	"capacity":                  func(s *Settings, v string) error { return boolean(&s.Capacity, v) },
	"burst":                     func(s *Settings, v string) error { return duration(&s.Burst, v) },
	"internal-error-rate":       func(s *Settings, v string) error { return rate(&s.InternalErrorRate, v) },
	"transaction-conflict-rate": func(s *Settings, v string) error { return rate(&s.TransactionConflictRate, v) },
	"status-delay": func(s *Settings, v string) error {
		if err := duration(&s.StatusDelay, v); err != nil {
			return err
		}
		s.HasStatusDelay = true
		return nil
	},
}

// Set sets the setting name to value, e.g. Set("gsi-lag", "2s").
func (s *Settings) Set(name, value string) error {
	f, ok := setters[name]
	if !ok {
		return fmt.Errorf("unknown realism setting %q", name)
	}
	if err := f(s, strings.TrimSpace(value)); err != nil {
		return fmt.Errorf("realism setting %s: %w", name, err)
	}
	return nil
}

// Options are the server-wide realism options: whether realism is on at
// all, the default Settings of every table, and the seed of the random
// choices (0 seeds from the clock).
type Options struct {
	Enabled  bool
	Defaults Settings
	Seed     uint64
}

// ParseOptions parses the value of --realism: "" (off), "on" (on, every
// effect off unless a table's tags set it), or a comma-separated list of
// name=value settings, which turns realism on, e.g.
// "gsi-lag=2s,stale-read-window=1s,stale-read-rate=0.5,capacity=on,seed=7".
func ParseOptions(list string) (Options, error) {
	var o Options
	list = strings.TrimSpace(list)
	switch strings.ToLower(list) {
	case "", "off", "false":
		return o, nil
	case "on", "true":
		o.Enabled = true
		return o, nil
	}
	o.Enabled = true
	for _, part := range strings.Split(list, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return Options{}, fmt.Errorf("realism setting %q: want name=value", part)
		}
		if name == "seed" {
			seed, err := strconv.ParseUint(value, 10, 64)
			if err != nil {
				return Options{}, fmt.Errorf("realism setting seed: %q is not a whole number", value)
			}
			o.Seed = seed
			continue
		}
		if err := o.Defaults.Set(name, value); err != nil {
			return Options{}, err
		}
	}
	return o, nil
}

// For returns the settings of a table: defaults overridden by the table's
// TagPrefix tags. A tag with an unknown name or a bad value is ignored (a
// tag cannot be refused when it is written), so the default stays.
func For(defaults Settings, tags []storage.Tag) Settings {
	s := defaults
	for _, tag := range tags {
		if name, ok := strings.CutPrefix(tag.Key, TagPrefix); ok {
			_ = s.Set(name, tag.Value)
		}
	}
	return s
}

func duration(d *time.Duration, v string) error {
	x, err := time.ParseDuration(v)
	if err != nil || x < 0 {
		return fmt.Errorf("%q is not a duration such as 500ms or 2s", v)
	}
	*d = x
	return nil
}

func rate(r *float64, v string) error {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || x < 0 || x > 1 {
		return fmt.Errorf("%q is not a rate between 0 and 1", v)
	}
	*r = x
	return nil
}

func boolean(b *bool, v string) error {
	switch strings.ToLower(v) {
	case "on", "true", "1", "yes":
		*b = true
	case "off", "false", "0", "no":
		*b = false
	default:
		return fmt.Errorf("%q is not on or off", v)
	}
	return nil
}
