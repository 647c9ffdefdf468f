package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/extenddb/extenddb/internal/dataformat"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// cursor is an import's durable position: the next file, the records of
// it already consumed, and the counters up to there.
type cursor struct {
	File    int
	Records int64
	// DoneBytes are the bytes of the files before File.
	DoneBytes int64
	Counts
}

// checkpointEvery is how many records an import reads between
// checkpoints.
const checkpointEvery = 50_000

// sourceFiles lists the files of the source, as S3 would list the
// objects of the bucket whose keys start with the prefix, in key order.
// Errors: errNoBucket, errNoFiles.
func (s *Service) sourceFiles(src Source) ([]string, error) {
	// The bucket's directory may be a link (to another disk); inside it
	// only regular files are objects: a link there is skipped, so that
	// nothing outside the bucket is read through one.
	bucket, err := filepath.EvalSymlinks(filepath.Join(s.root, src.S3Bucket))
	if st, serr := os.Stat(bucket); err != nil || serr != nil || !st.IsDir() {
		return nil, &failure{code: "S3NoSuchBucket", msg: fmt.Sprintf("The specified bucket does not exist: %s", src.S3Bucket)}
	}
	var keys []string
	err = filepath.WalkDir(bucket, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(bucket, path)
		key := filepath.ToSlash(rel)
		if d.IsDir() {
			if key != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && strings.HasPrefix(key, src.S3KeyPrefix) && !dataformat.HoldsNoItems(d.Name()) {
			keys = append(keys, key)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, &failure{code: "InvalidParameter", msg: fmt.Sprintf("No S3 objects found under s3://%s/%s", src.S3Bucket, src.S3KeyPrefix)}
	}
	slices.Sort(keys)
	return keys, nil
}

// failure is an import's failure with DynamoDB's FailureCode.
type failure struct{ code, msg string }

func (f *failure) Error() string { return f.code + ": " + f.msg }

// FailureCode splits a job's error into DynamoDB's FailureCode and
// FailureMessage.
func FailureCode(jobError string) (code, msg string) {
	if c, m, ok := strings.Cut(jobError, ": "); ok && !strings.Contains(c, " ") {
		return c, m
	}
	return "InternalError", jobError
}

// run carries out an import from its cursor on; the table becomes ACTIVE
// when every file is read. A failed or cancelled import deletes its
// table, so a half-imported table is never ACTIVE.
func (s *Service) run(ctx context.Context, run *jobs.Run) error {
	var p Params
	var c cursor
	if err := run.Job.Decode(&p, &c); err != nil {
		return err
	}
	def := p.Table
	def.Account = run.Job.Account
	t, err := run.FillingTable(ctx, s.store, &def, "import")
	if err != nil {
		return err
	}
	if err := run.Fill(ctx, s.store, t, func() error { return s.load(ctx, run, t, &p, &c) }); err != nil {
		return err
	}
	return run.Checkpoint(ctx, c, progressOf(&c))
}

func progressOf(c *cursor) jobs.Progress {
	return jobs.Progress{Done: c.ProcessedItems, Bytes: c.ProcessedBytes}
}

// load reads every source file from cursor c on into t.
func (s *Service) load(ctx context.Context, run *jobs.Run, t *storage.Table, p *Params, c *cursor) error {
	files, err := s.sourceFiles(p.Source)
	if err != nil {
		return err
	}
	// The bucket's owner is checked once its directory is known to exist
	// (sourceFiles), before any of its files is read.
	err = dataformat.CheckBucketOwner(filepath.Join(s.root, p.Source.S3Bucket), storage.NamespaceAccount(run.Job.Account))
	if errors.Is(err, dataformat.ErrBucketAccessDenied) {
		return &failure{code: "S3AccessDenied", msg: fmt.Sprintf("Access Denied: bucket %s belongs to another account", p.Source.S3Bucket)}
	}
	if err != nil {
		return err
	}
	logf, err := s.openLog(run.Job.Account, run.Job.ID)
	if err != nil {
		return err
	}
	defer logf.Close()
	w := newWriter(s, t, logf, c)
	defer w.wait() // nothing is left writing once the run returns
	for ; c.File < len(files); c.File, c.Records = c.File+1, 0 {
		if err := s.loadFile(ctx, run, w, p, files[c.File], c); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) openLog(account, id string) (*os.File, error) {
	path := s.LogPath(account, id)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

// loadFile reads one source file from record c.Records on, writing its
// items in batches and checkpointing after a batch every checkpointEvery
// records.
func (s *Service) loadFile(ctx context.Context, run *jobs.Run, w *writer, p *Params, key string, c *cursor) error {
	f, err := os.Open(filepath.Join(s.root, p.Source.S3Bucket, filepath.FromSlash(key)))
	if err != nil {
		return err
	}
	defer f.Close()
	cr := &countingReader{r: f}
	zr, err := dataformat.Decompress(cr, p.Compression)
	if err != nil {
		return &failure{code: "InvalidParameter", msg: fmt.Sprintf("%s: cannot be decompressed as %s: %v", key, p.Compression, err)}
	}
	defer zr.Close()
	csvOpts := dataformat.CSVOptions{}
	if p.Csv != nil {
		csvOpts = *p.Csv
	}
	csvOpts.Types = keyTypes(&p.Table)
	dec, err := dataformat.NewDecoder(p.InputFormat, zr, csvOpts)
	if err != nil {
		return &failure{code: "InvalidParameter", msg: err.Error()}
	}
	start := c.Records
	var read int64
	for {
		it, err := dec.Next()
		if err == io.EOF {
			break
		}
		var rerr *dataformat.RecordError
		if err != nil && !errors.As(err, &rerr) {
			return &failure{code: "InvalidParameter", msg: fmt.Sprintf("%s: %v", key, err)}
		}
		if read++; read <= start {
			continue // consumed before the checkpoint this run resumes from
		}
		c.ProcessedItems++
		if rerr != nil {
			w.refuse(key, rerr.Line, rerr.Err)
		} else {
			w.add(key, dec.Line(), it)
		}
		if w.full() {
			if err := w.flush(ctx); err != nil {
				return err
			}
		}
		if read%checkpointEvery == 0 {
			if err := w.sync(ctx); err != nil {
				return err
			}
			c.Records, c.ProcessedBytes = read, c.DoneBytes+cr.n
			c.ImportedItems, c.Errors = w.imported, w.errors
			if err := run.Checkpoint(ctx, c, progressOf(c)); err != nil {
				return err
			}
		}
	}
	if err := w.sync(ctx); err != nil {
		return err
	}
	io.Copy(io.Discard, cr) // what the decoder left unread (a gzip trailer) is read too
	c.Records, c.DoneBytes = read, c.DoneBytes+cr.n
	c.ProcessedBytes, c.ImportedItems, c.Errors = c.DoneBytes, w.imported, w.errors
	return run.Checkpoint(ctx, c, progressOf(c))
}
