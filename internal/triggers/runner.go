package triggers

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/extenddb/extenddb/internal/ddberr"
)

// Call runs one operation of the server's API in process: service is
// "DynamoDB" or "DynamoDBStreams", body and the result are the JSON
// request and response; a failure is a *ddberr.Error.
type Call func(ctx context.Context, service, op string, body []byte) ([]byte, error)

// Runner runs the triggers of a Config.
type Runner struct {
	cfg    Config
	call   Call
	log    *slog.Logger
	client *http.Client
}

// New returns a Runner of cfg's triggers reading streams through call.
func New(cfg Config, call Call, log *slog.Logger) *Runner {
	if log == nil {
		log = slog.Default()
	}
	return &Runner{cfg: cfg, call: call, log: log, client: &http.Client{Timeout: 30 * time.Second}}
}

// Run runs every trigger until ctx ends.
func (r *Runner) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for i := range r.cfg.Triggers {
		w := &worker{r: r, t: r.cfg.Triggers[i], path: checkpointPath(r.cfg.CheckpointDir, r.cfg.Triggers[i].Table)}
		wg.Go(func() { w.run(ctx) })
	}
	wg.Wait()
}

// worker runs one trigger: it follows the table's latest stream, shard
// by shard in order, and delivers its records in batches.
type worker struct {
	r     *Runner
	t     Trigger
	path  string
	cp    checkpoint
	shard string // the shard being read
	// pending are records read but left for the next batch (cut).
	pending []Record
}

// errNoStream: the table does not exist or has no stream (yet).
var errNoStream = errors.New("the table has no stream")

func (w *worker) run(ctx context.Context) {
	cp, err := loadCheckpoint(w.path)
	if err != nil {
		w.r.log.Error("trigger checkpoint unreadable: starting from the trigger's starting position", "table", w.t.Table, "path", w.path, "error", err)
	}
	w.cp = cp
	for ctx.Err() == nil {
		err := w.follow(ctx)
		if err != nil && ctx.Err() == nil && !errors.Is(err, errNoStream) {
			w.r.log.Warn("trigger: reading the stream failed; retrying", "table", w.t.Table, "error", err)
		}
		sleep(ctx, w.r.cfg.PollInterval)
	}
}

// follow delivers the records of the table's latest stream from the
// checkpoint on, until the stream's last shard is closed or an error.
func (w *worker) follow(ctx context.Context) error {
	var table struct {
		Table struct{ LatestStreamArn string }
	}
	if err := w.invoke(ctx, "DynamoDB", "DescribeTable", map[string]any{"TableName": w.t.Table}, &table); err != nil {
		if ddberr.Is(err, "ResourceNotFoundException") {
			return errNoStream
		}
		return err
	}
	arn := table.Table.LatestStreamArn
	if arn == "" {
		return errNoStream
	}
	var stream struct {
		StreamDescription struct {
			Shards []struct{ ShardId string }
		}
	}
	if err := w.invoke(ctx, "DynamoDBStreams", "DescribeStream", map[string]any{"StreamArn": arn}, &stream); err != nil {
		return err
	}
	first := w.cp.StreamArn != arn
	start := 0
	for i, sh := range stream.StreamDescription.Shards {
		if !first && sh.ShardId == w.cp.ShardID {
			start = i
		}
	}
	for _, sh := range stream.StreamDescription.Shards[start:] {
		if err := w.readShard(ctx, arn, sh.ShardId, first); err != nil {
			return err
		}
		first = false
	}
	return nil
}

// readShard delivers a shard's records after the checkpoint until the
// shard is closed and read to its end. fresh is true for the first shard
// of a stream the trigger has no checkpoint in.
func (w *worker) readShard(ctx context.Context, arn, shard string, fresh bool) error {
	req := map[string]any{"StreamArn": arn, "ShardId": shard, "ShardIteratorType": "TRIM_HORIZON"}
	switch {
	case w.cp.StreamArn == arn && w.cp.ShardID == shard && w.cp.SequenceNumber != "":
		req["ShardIteratorType"], req["SequenceNumber"] = "AFTER_SEQUENCE_NUMBER", w.cp.SequenceNumber
	case fresh:
		req["ShardIteratorType"] = w.t.StartingPosition
	}
	w.shard = shard
	w.pending = nil // read again after the checkpoint
	var it struct{ ShardIterator string }
	err := w.invoke(ctx, "DynamoDBStreams", "GetShardIterator", req, &it)
	if ddberr.Is(err, "TrimmedDataAccessException") {
		// The stream no longer keeps the records after the checkpoint
		// (older than its retention): go on from the oldest it keeps.
		w.r.log.Warn("trigger: records after the checkpoint were trimmed from the stream; resuming at the oldest kept",
			"table", w.t.Table, "sequence_number", w.cp.SequenceNumber)
		req = map[string]any{"StreamArn": arn, "ShardId": shard, "ShardIteratorType": "TRIM_HORIZON"}
		err = w.invoke(ctx, "DynamoDBStreams", "GetShardIterator", req, &it)
	}
	if err != nil {
		return err
	}
	next := it.ShardIterator
	for next != "" || len(w.pending) > 0 {
		batch, after, err := w.collect(ctx, next)
		if err != nil {
			return err
		}
		if len(batch) > 0 {
			for i := range batch {
				batch[i].EventSourceARN = arn
			}
			if err := w.deliver(ctx, batch); err != nil {
				return err
			}
			w.cp = checkpoint{StreamArn: arn, ShardID: shard, SequenceNumber: batch[len(batch)-1].seq}
			if err := w.cp.save(w.path); err != nil {
				return err
			}
		}
		next = after
	}
	return nil
}

// A batch holds records of at most about maxBatchBytes (Lambda's 6 MB
// payload limit; one more record at most), read maxRecordsPerRead at a
// time, so that batches of large items stay within memory.
const (
	maxBatchBytes     = 6 << 20
	maxRecordsPerRead = 100
)

// collect reads records from the iterator until it has BatchSize of them
// (or maxBatchBytes) or the batching window since the first has passed,
// and returns them with the iterator after them ("" when the shard is
// closed and read).
func (w *worker) collect(ctx context.Context, iterator string) ([]Record, string, error) {
	batch := w.pending
	w.pending = nil
	since := time.Now()
	for {
		if w.cut(&batch) || iterator == "" {
			return batch, iterator, nil
		}
		var out struct {
			Records           []Record
			NextShardIterator string
		}
		req := map[string]any{"ShardIterator": iterator, "Limit": min(w.t.BatchSize-len(batch), maxRecordsPerRead)}
		if err := w.invoke(ctx, "DynamoDBStreams", "GetRecords", req, &out); err != nil {
			return nil, "", err
		}
		for i := range out.Records {
			if err := out.Records[i].parse(); err != nil {
				return nil, "", err
			}
		}
		if len(batch) == 0 && len(out.Records) > 0 {
			since = time.Now()
		}
		batch = append(batch, out.Records...)
		iterator = out.NextShardIterator
		if w.cut(&batch) || iterator == "" {
			return batch, iterator, nil
		}
		wait := w.r.cfg.PollInterval
		if len(batch) > 0 {
			left := w.t.BatchingWindow - time.Since(since)
			if left <= 0 {
				return batch, iterator, nil
			}
			wait = min(wait, left)
		}
		if !sleep(ctx, wait) {
			return nil, "", ctx.Err()
		}
	}
}

// cut keeps in *batch what fits one batch (BatchSize records and about
// maxBatchBytes, at least one record), sets the rest aside for the next
// batch, and reports whether the batch is full.
func (w *worker) cut(batch *[]Record) bool {
	size := 0
	for i, r := range *batch {
		size += len(r.Dynamodb)
		if i+1 >= w.t.BatchSize || size >= maxBatchBytes {
			w.pending = append((*batch)[i+1:len(*batch):len(*batch)], w.pending...)
			*batch = (*batch)[:i+1]
			return true
		}
	}
	return false
}

// invoke calls an operation with a request encoded as JSON and decodes
// its response into out.
func (w *worker) invoke(ctx context.Context, service, op string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	resp, err := w.r.call(ctx, service, op, body)
	if err != nil {
		return err
	}
	return json.Unmarshal(resp, out)
}

// sleep waits d or until ctx ends, and reports whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
