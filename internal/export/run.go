package export

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/extenddb/extenddb/internal/dataformat"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// itemsPerFile bounds the records of one data file.
const itemsPerFile = 100_000

// checkpointEvery is how many records a run handles between checkpoints.
const checkpointEvery = 1000

// failure is a run's error with DynamoDB's FailureCode; the job record
// keeps it as "<code>: <message>".
type failure struct{ code, msg string }

func (f *failure) Error() string { return f.code + ": " + f.msg }

func failf(code, format string, args ...any) error {
	return &failure{code: code, msg: fmt.Sprintf(format, args...)}
}

// parseFailure splits a failed job's error into FailureCode and
// FailureMessage; an error that is not a failure is code UNKNOWN.
func parseFailure(s string) (code, msg string) {
	if c, m, ok := strings.Cut(s, ": "); ok && c != "" && !strings.ContainsAny(c, " :/") {
		return c, m
	}
	return "UNKNOWN", s
}

// result is what a run wrote.
type result struct {
	files      []dataformat.ManifestFile
	items      int64
	billedSize int64
}

// run carries out one export, from scratch on every run (a resumed run
// after a crash writes the export folder anew), then writes its manifests
// and records the outcome. An export whose manifests are already written
// finished before a crash and is only recorded.
func (s *Service) run(ctx context.Context, run *jobs.Run) error {
	var p Params
	if err := run.Job.DecodeParams(&p); err != nil {
		return err
	}
	dir := s.dir(&p, run.Job.ID)
	if sum, _, err := dataformat.ReadManifests(dir); err == nil {
		return s.done(ctx, run, sum)
	}
	res, err := s.write(ctx, run, dir, &p)
	if err != nil {
		if !jobs.Interrupted(ctx, err) {
			os.RemoveAll(filepath.Join(dir, dataformat.DataFolder))
		}
		return err
	}
	sum := s.summary(&p, run.Job.ID, res)
	if err := dataformat.WriteManifests(dir, sum, res.files); err != nil {
		return failf("S3AccessDenied", "the export folder could not be written: %v", err)
	}
	return s.done(ctx, run, sum)
}

// done records a finished export's results.
func (s *Service) done(ctx context.Context, run *jobs.Run, sum *dataformat.ManifestSummary) error {
	c := cursor{Phase: "done", EndTime: sum.EndTime.Time, ItemCount: sum.ItemCount, BilledSize: sum.BilledSizeBytes}
	return run.Checkpoint(ctx, c, jobs.Progress{Done: sum.ItemCount, Total: sum.ItemCount, Bytes: sum.BilledSizeBytes})
}

// write prepares the export folder and writes the data files.
func (s *Service) write(ctx context.Context, run *jobs.Run, dir string, p *Params) (*result, error) {
	t, err := s.store.GetTable(ctx, run.Job.Account, p.TableName)
	if errors.Is(err, storage.ErrTableNotFound) || (err == nil && t.ID != p.TableID) {
		return nil, failf("TableNotFoundException", "table %s was deleted during its export", p.TableName)
	}
	if err != nil {
		return nil, err
	}
	err = dataformat.ClaimBucket(filepath.Join(s.root, p.S3Bucket), storage.NamespaceAccount(run.Job.Account))
	if errors.Is(err, dataformat.ErrBucketAccessDenied) {
		return nil, failf("S3AccessDenied", "Access Denied: bucket %s belongs to another account", p.S3Bucket)
	}
	if err != nil {
		return nil, failf("S3AccessDenied", "the export folder could not be written: %v", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, failf("S3AccessDenied", "the export folder could not be written: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, dataformat.DataFolder), 0o755); err != nil {
		return nil, failf("S3AccessDenied", "the export folder could not be written: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, dataformat.StartedFile), nil, 0o644); err != nil {
		return nil, failf("S3AccessDenied", "the export folder could not be written: %v", err)
	}
	w := &filesWriter{dir: dir, key: dataformat.ExportKey(p.Prefix(), run.Job.ID), format: p.ExportFormat, run: run, delay: s.PageDelay}
	if p.ExportType == dataformat.IncrementalExport {
		err = s.writeIncremental(ctx, w, t, p)
	} else {
		err = s.writeFull(ctx, w, t, p)
	}
	if err == nil && w.res.items == 0 {
		err = w.open() // DynamoDB writes a file, empty or not, for each partition
	}
	if cerr := w.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return &w.res, nil
}

// afterRead runs when an export has read its table's items and history,
// before it checks that the table is still there (a test deletes the table
// there).
var afterRead = func() {}

// checkRead fails the export if its table was deleted (or replaced) while
// its items and change history were read: the history goes with the
// table, so what was read may be incomplete and the export's state at its
// time cannot be trusted. A table deleted after this check leaves the
// export whole: everything it writes was read already.
func (s *Service) checkRead(ctx context.Context, t *storage.Table) error {
	afterRead()
	cur, err := s.store.GetTable(ctx, t.Account, t.Name)
	if errors.Is(err, storage.ErrTableNotFound) || (err == nil && cur.ID != t.ID) {
		return failf("TableNotFoundException", "table %s was deleted during its export", t.Name)
	}
	return err
}

// summary is the manifest-summary.json of a finished export.
func (s *Service) summary(p *Params, id string, res *result) *dataformat.ManifestSummary {
	sum := &dataformat.ManifestSummary{
		Version: dataformat.ManifestVersionFull, ExportArn: p.ExportArn,
		StartTime: dataformat.Timestamp{Time: p.StartTime}, EndTime: dataformat.Timestamp{Time: s.now()},
		TableArn: p.TableArn, TableID: p.TableID, S3Bucket: p.S3Bucket, S3Prefix: p.S3Prefix,
		S3SseAlgorithm: "AES256", S3SseKmsKeyID: p.S3SseKmsKeyID,
		ManifestFilesS3Key: dataformat.ExportKey(p.Prefix(), id) + "/" + dataformat.ManifestFilesFile,
		BilledSizeBytes:    res.billedSize, ItemCount: res.items, OutputFormat: p.ExportFormat,
	}
	if p.S3SseAlgorithm != nil {
		sum.S3SseAlgorithm = *p.S3SseAlgorithm
	}
	if p.ExportType == dataformat.IncrementalExport {
		sum.Version, sum.ExportType, sum.OutputView = dataformat.ManifestVersionIncremental, p.ExportType, p.ViewType
		sum.ExportFromTime, sum.ExportToTime = &dataformat.Timestamp{Time: p.From}, &dataformat.Timestamp{Time: p.To}
	} else {
		sum.ExportTime = &dataformat.Timestamp{Time: p.ExportTime}
	}
	return sum
}

// filesWriter writes records into data files of at most itemsPerFile
// records, checkpointing the run's progress.
type filesWriter struct {
	dir, key, format string
	run              *jobs.Run
	delay            time.Duration
	cur              *dataformat.DataFileWriter
	res              result
}

func (w *filesWriter) add(ctx context.Context, r *dataformat.Record, size int) error {
	if w.cur != nil && w.cur.Count() >= itemsPerFile {
		if err := w.close(); err != nil {
			return err
		}
	}
	if w.cur == nil {
		if err := w.open(); err != nil {
			return err
		}
	}
	if err := w.cur.Write(r); err != nil {
		return failf("S3AccessDenied", "a data file could not be written: %v", err)
	}
	w.res.items++
	w.res.billedSize += int64(size)
	if w.res.items%checkpointEvery != 0 {
		return nil
	}
	if err := w.run.Checkpoint(ctx, cursor{Phase: "writing"}, jobs.Progress{Done: w.res.items, Bytes: w.res.billedSize}); err != nil {
		return err
	}
	if w.delay > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(w.delay):
		}
	}
	return nil
}

// open starts a new data file.
func (w *filesWriter) open() error {
	f, err := dataformat.CreateDataFile(w.dir, w.key, w.format)
	if err != nil {
		return failf("S3AccessDenied", "a data file could not be written: %v", err)
	}
	w.cur = f
	return nil
}

func (w *filesWriter) close() error {
	if w.cur == nil {
		return nil
	}
	mf, err := w.cur.Close()
	w.cur = nil
	if err != nil {
		return failf("S3AccessDenied", "a data file could not be written: %v", err)
	}
	w.res.files = append(w.res.files, mf)
	return nil
}

// keyOf returns the storage key and a map key of an item of a table whose
// key attributes are hash and rng ("" without a sort key).
func keyOf(it item.Item, hash, rng string) (storage.Key, string, error) {
	h, ok := it[hash]
	if !ok {
		return storage.Key{}, "", fmt.Errorf("item without its partition key %s", hash)
	}
	k := storage.Key{PK: item.EncodeKey(h)}
	if rng != "" {
		r, ok := it[rng]
		if !ok {
			return storage.Key{}, "", fmt.Errorf("item without its sort key %s", rng)
		}
		k.SK = item.EncodeKey(r)
	}
	return k, string(k.PK) + "\x00" + string(k.SK), nil
}

// readHistory calls visit with each record of t's change history after
// sequence number after, in commit order, and returns the last sequence
// number read.
func (s *Service) readHistory(ctx context.Context, tableID string, after uint64, visit func(r *storage.StreamRecord) error) (uint64, error) {
	for {
		recs, err := s.store.ReadStream(ctx, tableID, storage.HistoryLabel, after, 1000)
		if err != nil {
			return after, err
		}
		if len(recs) == 0 {
			return after, nil
		}
		for _, r := range recs {
			after = r.Seq
			if err := visit(r); err != nil {
				return after, err
			}
		}
		if err := ctx.Err(); err != nil {
			return after, err
		}
	}
}

// secondOf is the whole second of t: the change history's times are whole
// seconds, so the export's times are compared at that grain.
func secondOf(t time.Time) int64 { return t.Unix() }
