package triggers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// maxRetryDelay caps the doubling wait between retries.
const maxRetryDelay = 30 * time.Second

// deliver posts a batch until the webhook acknowledges it or the retries
// run out; then, with BisectOnError, each half of the batch is delivered
// on its own, and a batch still failing goes to the on-failure
// destination. It returns an error only when ctx ends (the batch is then
// not acknowledged and is delivered again after a restart) or the
// failure cannot be recorded.
func (w *worker) deliver(ctx context.Context, batch []Record) error {
	status, err := w.postWithRetries(ctx, batch)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if w.t.BisectOnError && len(batch) > 1 {
		half := len(batch) / 2
		if err := w.deliver(ctx, batch[:half]); err != nil {
			return err
		}
		return w.deliver(ctx, batch[half:])
	}
	w.r.log.Warn("trigger: batch given up on after its retries", "table", w.t.Table, "records", len(batch), "error", err)
	return w.fail(ctx, batch, status, err)
}

// postWithRetries posts batch, retrying with a doubling delay up to
// MaxRetries times (-1: without end). It returns the last HTTP status (0
// when none) and error.
func (w *worker) postWithRetries(ctx context.Context, batch []Record) (int, error) {
	body, err := json.Marshal(Event{Records: batch})
	if err != nil {
		return 0, err
	}
	delay := w.t.RetryDelay
	for attempt := 0; ; attempt++ {
		status, err := w.post(ctx, w.t.URL, body)
		if err == nil {
			return status, nil
		}
		if *w.t.MaxRetries >= 0 && attempt >= *w.t.MaxRetries {
			return status, err
		}
		w.r.log.Debug("trigger: webhook failed; retrying", "table", w.t.Table, "attempt", attempt+1, "error", err)
		if !sleep(ctx, delay) {
			return status, ctx.Err()
		}
		delay = min(2*delay, maxRetryDelay)
	}
}

// post sends body to url; any 2xx answer acknowledges it.
func (w *worker) post(ctx context.Context, url string, body []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := w.r.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("webhook answered HTTP %d", resp.StatusCode)
	}
	return resp.StatusCode, nil
}

// failure is the record of a batch given up on, in the shape of the
// on-failure record Lambda sends for a stream event source: what was
// tried, how it ended, and which records the batch held (read them again
// from the stream by sequence number while it keeps them).
// https://docs.aws.amazon.com/lambda/latest/dg/services-dynamodb-errors.html
type failure struct {
	RequestContext struct {
		Condition              string `json:"condition"`
		ApproximateInvokeCount int    `json:"approximateInvokeCount"`
		URL                    string `json:"url"`
	} `json:"requestContext"`
	ResponseContext struct {
		StatusCode int    `json:"statusCode"`
		Error      string `json:"error"`
	} `json:"responseContext"`
	Version   string    `json:"version"`
	Timestamp time.Time `json:"timestamp"`
	BatchInfo batchInfo `json:"DDBStreamBatchInfo"`
}

type batchInfo struct {
	ShardID                         string    `json:"shardId"`
	StartSequenceNumber             string    `json:"startSequenceNumber"`
	EndSequenceNumber               string    `json:"endSequenceNumber"`
	ApproximateArrivalOfFirstRecord time.Time `json:"approximateArrivalOfFirstRecord"`
	ApproximateArrivalOfLastRecord  time.Time `json:"approximateArrivalOfLastRecord"`
	BatchSize                       int       `json:"batchSize"`
	StreamArn                       string    `json:"streamArn"`
}

// fail records a batch given up on at the on-failure destination.
func (w *worker) fail(ctx context.Context, batch []Record, status int, cause error) error {
	if w.t.OnFailure == "" {
		return nil
	}
	var f failure
	f.RequestContext.Condition = "RetryAttemptsExhausted"
	f.RequestContext.ApproximateInvokeCount = *w.t.MaxRetries + 1
	f.RequestContext.URL = w.t.URL
	f.ResponseContext.StatusCode = status
	f.ResponseContext.Error = cause.Error()
	f.Version = "1.0"
	f.Timestamp = time.Now().UTC()
	first, last := batch[0], batch[len(batch)-1]
	f.BatchInfo = batchInfo{
		ShardID: w.shard, StartSequenceNumber: first.seq, EndSequenceNumber: last.seq,
		ApproximateArrivalOfFirstRecord: epoch(first.created), ApproximateArrivalOfLastRecord: epoch(last.created),
		BatchSize: len(batch), StreamArn: first.EventSourceARN,
	}
	line, err := json.Marshal(f)
	if err != nil {
		return err
	}
	if isURLDestination(w.t.OnFailure) {
		// Posted once: a destination that fails too is logged.
		if _, err := w.post(ctx, w.t.OnFailure, line); err != nil {
			w.r.log.Error("trigger: on-failure destination failed; the batch's record is lost", "table", w.t.Table, "error", err)
		}
		return nil
	}
	fh, err := os.OpenFile(w.t.OnFailure, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := fh.Write(append(line, '\n')); err != nil {
		fh.Close()
		return err
	}
	if err := fh.Sync(); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

func epoch(s float64) time.Time {
	return time.UnixMilli(int64(s * 1000)).UTC()
}
