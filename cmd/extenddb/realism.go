package main

import (
	"github.com/spf13/pflag"

	"github.com/extenddb/extenddb/internal/realism"
)

// realismFlags declares the realism settings (docs/realism-and-triggers.md).
func realismFlags(f *pflag.FlagSet) {
	f.String("realism", "", "realism effects for testing retry logic: on, or name=value settings separated by commas "+
		"(gsi-lag, stale-read-window, stale-read-rate, capacity, burst, internal-error-rate, transaction-conflict-rate, seed); "+
		"tables override them with tags "+realism.TagPrefix+"<name>")
	f.String("triggers", "", "file (TOML, YAML or JSON) of stream triggers posting tables' stream records to webhooks")
}

// readRealism reads --realism, reporting a bad list.
func readRealism(r *reader) realism.Options {
	o, err := realism.ParseOptions(r.str("realism"))
	if err != nil {
		r.fail("realism: %v", err)
	}
	return o
}
