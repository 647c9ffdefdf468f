package api

import (
	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/storage"
)

// ttlGate is the transition gate of UpdateTimeToLive: given the table's
// current TTL (status and attribute) and the requested change, it accepts
// (nil) or rejects it with DynamoDB's ValidationException. It is pure; its
// full truth table is in ttl_gate_test.go.
//
//   - A request that changes nothing is rejected: enabling the attribute
//     that is already enabled (or being enabled) is "TimeToLive is already
//     enabled"; disabling when disabled (or being disabled) is "TimeToLive
//     is already disabled".
//   - Any other request while ENABLING or DISABLING is rejected with "Time
//     to live is being updated for this table". (DynamoDB itself rejects a
//     second change within its one-hour cooldown with "Time to live has been
//     modified multiple times within a fixed interval"; extenddb has no
//     cooldown, so it names the real reason: the previous change is still
//     being applied. See docs/adr/0005-ttl-and-streams.md.)
//   - When ENABLED, a request naming another attribute (to enable it or to
//     disable) is rejected with "TimeToLive is active on a different
//     AttributeName: current AttributeName is <name>" (the text DynamoDB
//     returns, quoted in celery/celery celery/backends/dynamodb.py
//     _set_table_ttl and its unit test's mocked AWS error).
//
// See https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTimeToLive.html
func ttlGate(cur storage.TimeToLive, enable bool, attr string) error {
	status := cur.Status
	if status == "" {
		status = storage.TTLDisabled
	}
	switch status {
	case storage.TTLDisabled:
		if !enable {
			return ddberr.Validation("TimeToLive is already disabled")
		}
		return nil
	case storage.TTLEnabled:
		if attr != cur.AttributeName {
			return ddberr.Validation("TimeToLive is active on a different AttributeName: current AttributeName is %s", cur.AttributeName)
		}
		if enable {
			return ddberr.Validation("TimeToLive is already enabled")
		}
		return nil
	case storage.TTLEnabling:
		if enable && attr == cur.AttributeName {
			return ddberr.Validation("TimeToLive is already enabled")
		}
	case storage.TTLDisabling:
		if !enable {
			return ddberr.Validation("TimeToLive is already disabled")
		}
	}
	return errTTLInTransition()
}

func errTTLInTransition() error {
	return ddberr.Validation("Time to live is being updated for this table")
}

// ttlApply is the TTL an accepted change leaves: ENABLING (or DISABLING)
// with the next generation and no backfill cursor; the TTL worker
// finishes it (storage.TTLStore).
func ttlApply(cur storage.TimeToLive, enable bool, attr string) storage.TimeToLive {
	next := storage.TimeToLive{AttributeName: attr, Generation: cur.Generation + 1, Status: storage.TTLDisabling}
	if enable {
		next.Status = storage.TTLEnabling
	}
	return next
}
