package api

import (
	"testing"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/storage"
)

// TestTTLGateTruthTable covers every current state x requested change.
func TestTTLGateTruthTable(t *testing.T) {
	const (
		ok          = ""
		already     = "TimeToLive is already enabled"
		alreadyOff  = "TimeToLive is already disabled"
		transition  = "Time to live is being updated for this table"
		otherAttrOf = "TimeToLive is active on a different AttributeName: current AttributeName is ttl"
	)
	cases := []struct {
		status string
		enable bool
		attr   string // "ttl" is the current attribute, "other" another
		want   string
	}{
		{storage.TTLDisabled, true, "ttl", ok},
		{storage.TTLDisabled, true, "other", ok},
		{storage.TTLDisabled, false, "ttl", alreadyOff},
		{storage.TTLDisabled, false, "other", alreadyOff},
		{"", false, "ttl", alreadyOff},
		{"", true, "ttl", ok},

		{storage.TTLEnabling, true, "ttl", already},
		{storage.TTLEnabling, true, "other", transition},
		{storage.TTLEnabling, false, "ttl", transition},
		{storage.TTLEnabling, false, "other", transition},

		{storage.TTLEnabled, true, "ttl", already},
		{storage.TTLEnabled, true, "other", otherAttrOf},
		{storage.TTLEnabled, false, "ttl", ok},
		{storage.TTLEnabled, false, "other", otherAttrOf},

		{storage.TTLDisabling, true, "ttl", transition},
		{storage.TTLDisabling, true, "other", transition},
		{storage.TTLDisabling, false, "ttl", alreadyOff},
		{storage.TTLDisabling, false, "other", alreadyOff},
	}
	for _, c := range cases {
		cur := storage.TimeToLive{Status: c.status}
		if c.status != storage.TTLDisabled && c.status != "" {
			cur.AttributeName = "ttl"
		}
		err := ttlGate(cur, c.enable, c.attr)
		got := ""
		if err != nil {
			e := ddberr.As(err)
			if e.Name() != "ValidationException" {
				t.Errorf("%s enable=%v %s: %s", c.status, c.enable, c.attr, e.Type)
			}
			got = e.Message
		}
		if got != c.want {
			t.Errorf("%q enable=%v attr=%s: got %q, want %q", c.status, c.enable, c.attr, got, c.want)
		}
	}
}

func TestTTLApply(t *testing.T) {
	cur := storage.TimeToLive{Status: storage.TTLEnabled, AttributeName: "ttl", Generation: 4, BackfillCursor: &storage.Key{PK: []byte("x")}}
	for _, c := range []struct {
		enable       bool
		status, attr string
	}{
		{true, storage.TTLEnabling, "a"},
		{false, storage.TTLDisabling, "a"},
	} {
		got := ttlApply(cur, c.enable, "a")
		if got.Status != c.status || got.AttributeName != c.attr || got.Generation != 5 || got.BackfillCursor != nil {
			t.Errorf("enable=%v: %+v", c.enable, got)
		}
	}
}
