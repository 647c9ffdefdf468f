// Package triggers posts the records of tables' DynamoDB streams to
// webhooks, in the shape of the event AWS Lambda receives from a DynamoDB
// event source mapping, so that a local "trigger" needs only an HTTP
// endpoint: batching (a batch size and a batching window), retries with
// backoff, optional bisection of a failing batch, an on-failure
// destination, and durable checkpoints, so that a restarted server resumes
// after the last batch the webhook acknowledged.
// See docs/realism-and-triggers.md and
// https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html
package triggers

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/viper"
)

// Trigger posts one table's stream records to a webhook.
type Trigger struct {
	// Table is the name of the table whose stream is read; its stream
	// must be enabled (the trigger waits until it is).
	Table string `mapstructure:"table"`
	// URL receives each batch as a POST of {"Records":[...]}; any 2xx
	// answer acknowledges the batch.
	URL string `mapstructure:"url"`
	// BatchSize is the most records in one batch (1 to 10000; default 100,
	// Lambda's default for DynamoDB streams).
	BatchSize int `mapstructure:"batch-size"`
	// BatchingWindow is how long records are gathered before a batch
	// smaller than BatchSize is posted (0 to 300 s; default 0).
	BatchingWindow time.Duration `mapstructure:"batching-window"`
	// MaxRetries is how many times a failed batch is posted again (-1,
	// the default as in Lambda, retries until it succeeds).
	MaxRetries *int `mapstructure:"max-retries"`
	// RetryDelay is the first wait before a retry, doubled after each
	// failure up to 30 s (default 1 s).
	RetryDelay time.Duration `mapstructure:"retry-delay"`
	// BisectOnError splits a batch that failed all its retries in two and
	// posts each half, as Lambda's BisectBatchOnFunctionError does.
	BisectOnError bool `mapstructure:"bisect-on-error"`
	// OnFailure receives a record of each batch given up on: a file path
	// (one JSON line appended per batch) or an http(s) URL (POSTed). Empty
	// drops it. The checkpoint advances past the batch either way.
	OnFailure string `mapstructure:"on-failure"`
	// StartingPosition is where a trigger without a checkpoint starts:
	// TRIM_HORIZON (default: the oldest record kept) or LATEST.
	StartingPosition string `mapstructure:"starting-position"`
}

// Config is the content of a --triggers file.
type Config struct {
	// CheckpointDir holds one checkpoint file per trigger; the server
	// defaults it to <data-dir>/triggers.
	CheckpointDir string `mapstructure:"checkpoint-dir"`
	// PollInterval is how often an idle stream is read (default 250 ms).
	PollInterval time.Duration `mapstructure:"poll-interval"`
	Triggers     []Trigger     `mapstructure:"triggers"`
}

// Load reads a triggers file (TOML, YAML or JSON, by its extension) and
// checks it.
func Load(path string) (Config, error) {
	v := viper.New()
	v.SetConfigFile(path)
	if err := v.ReadInConfig(); err != nil {
		return Config{}, fmt.Errorf("triggers file %s: %w", path, err)
	}
	var c Config
	if err := v.Unmarshal(&c); err != nil {
		return Config{}, fmt.Errorf("triggers file %s: %w", path, err)
	}
	if err := c.check(); err != nil {
		return Config{}, fmt.Errorf("triggers file %s: %w", path, err)
	}
	return c, nil
}

// check validates c and fills in the defaults.
func (c *Config) check() error {
	if c.PollInterval <= 0 {
		c.PollInterval = 250 * time.Millisecond
	}
	if len(c.Triggers) == 0 {
		return errors.New("no triggers")
	}
	seen := map[string]bool{}
	for i := range c.Triggers {
		t := &c.Triggers[i]
		if err := t.check(); err != nil {
			return fmt.Errorf("trigger %d (table %q): %w", i+1, t.Table, err)
		}
		if seen[t.Table] {
			return fmt.Errorf("trigger %d: table %q has a trigger already", i+1, t.Table)
		}
		seen[t.Table] = true
	}
	return nil
}

func (t *Trigger) check() error {
	if t.Table == "" {
		return errors.New("table is required")
	}
	if !isURL(t.URL) {
		return fmt.Errorf("url %q is not an http or https URL", t.URL)
	}
	if t.BatchSize == 0 {
		t.BatchSize = 100
	}
	if t.BatchSize < 1 || t.BatchSize > 10000 {
		return fmt.Errorf("batch-size %d is not between 1 and 10000", t.BatchSize)
	}
	if t.BatchingWindow < 0 || t.BatchingWindow > 300*time.Second {
		return fmt.Errorf("batching-window %v is not between 0 and 300s", t.BatchingWindow)
	}
	if t.MaxRetries == nil {
		unlimited := -1
		t.MaxRetries = &unlimited
	}
	if *t.MaxRetries < -1 {
		return fmt.Errorf("max-retries %d is below -1 (unlimited)", *t.MaxRetries)
	}
	if t.RetryDelay <= 0 {
		t.RetryDelay = time.Second
	}
	switch t.StartingPosition {
	case "":
		t.StartingPosition = "TRIM_HORIZON"
	case "TRIM_HORIZON", "LATEST":
	default:
		return fmt.Errorf("starting-position %q is not TRIM_HORIZON or LATEST", t.StartingPosition)
	}
	return nil
}

func isURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// isURLDestination tells an on-failure URL from a file path.
func isURLDestination(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}
