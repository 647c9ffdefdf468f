package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/extenddb/extenddb/internal/api"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/triggers"
)

// startTriggers loads the --triggers file, if any, and returns the runner
// of its triggers (nil without one). Checkpoints default to
// <data-dir>/triggers, or a temporary directory with --in-memory (whose
// data does not survive either).
func startTriggers(cfg Config, engine *api.Engine) (*triggers.Runner, error) {
	if cfg.Triggers == "" {
		return nil, nil
	}
	tc, err := triggers.Load(cfg.Triggers)
	if err != nil {
		return nil, err
	}
	if tc.CheckpointDir == "" {
		if cfg.DataDir != "" && !cfg.InMemory {
			tc.CheckpointDir = filepath.Join(cfg.DataDir, "triggers")
		} else if cfg.memoryDir != "" {
			tc.CheckpointDir = filepath.Join(cfg.memoryDir, "triggers")
		} else if tc.CheckpointDir, err = os.MkdirTemp("", "extenddb-triggers-*"); err != nil {
			return nil, err
		}
	}
	return triggers.New(tc, engineCall(engine, cfg.Region), cfg.Log), nil
}

// engineCall runs the triggers' stream reads in process, as the server's
// own account in region.
func engineCall(engine *api.Engine, region string) triggers.Call {
	return func(ctx context.Context, service, op string, body []byte) ([]byte, error) {
		resp, err := engine.Serve(ctx, &protocol.Request{Service: service, Operation: op, Body: body, Caller: protocol.Caller{Region: region}})
		if err != nil {
			return nil, err
		}
		if a, ok := resp.(protocol.Appender); ok {
			return a.AppendJSON(nil), nil
		}
		return json.Marshal(resp)
	}
}
