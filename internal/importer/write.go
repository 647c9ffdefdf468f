package importer

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// batchSize and batchBytes bound one write of an import: items, and their
// total size. A batch is one transaction: the more items it has, the more
// of them share each page it writes (items land in key-hash order, all
// over the table) and the cheaper a commit is per item. On SQLite, 50,000
// items cost 1.45 times less CPU per item than 5,000 on a 1,000,000-item
// import (BenchmarkImportGzipJSON), and hold its writer for under a second.
const (
	batchSize  = 50_000
	batchBytes = 32 << 20
)

// concurrentWriters is how many single-item writes of an unbatched import
// are in flight.
const concurrentWriters = 32

// maxItemSize is DynamoDB's item size limit, 400 KB.
const maxItemSize = 400 * 1024

// writer checks the items of an import and writes them in batches,
// logging the refused ones.
type writer struct {
	s     *Service
	t     *storage.Table
	log   *bufio.Writer
	logf  *os.File
	hash  string
	rng   string
	types map[string]string // attribute: type, of every key of the table and its indexes

	batch    []storage.Mutation
	pos      map[string]int // key: index in batch, so a later line wins
	pending  int64          // refused records not yet counted (counted with their batch)
	size     int            // total item size of the batch
	inflight chan error     // the outcome of the write in flight
	imported int64
	errors   int64
}

func newWriter(s *Service, t *storage.Table, logf *os.File, c *cursor) *writer {
	hash, rng := storage.KeyNames(t.KeySchema)
	return &writer{s: s, t: t, logf: logf, log: bufio.NewWriter(logf), hash: hash, rng: rng, types: keyTypes(t),
		pos: map[string]int{}, imported: c.ImportedItems, errors: c.Errors}
}

// keyTypes returns the type of each key attribute of t and its global
// secondary indexes.
func keyTypes(t *storage.Table) map[string]string {
	defs := map[string]string{}
	for _, d := range t.AttributeDefinitions {
		defs[d.AttributeName] = d.AttributeType
	}
	out := map[string]string{}
	add := func(ks []storage.KeyElement) {
		for _, k := range ks {
			out[k.AttributeName] = defs[k.AttributeName]
		}
	}
	add(t.KeySchema)
	for _, ix := range t.Indexes {
		add(ix.KeySchema)
	}
	return out
}

// refuse counts a record that is not imported and logs why, as DynamoDB
// logs it to CloudWatch: one line of JSON per refused record.
func (w *writer) refuse(file string, line int64, why error) {
	w.pending++
	fmt.Fprintf(w.log, "{\"timestamp\":%q,\"s3ObjectKey\":%q,\"line\":%d,\"errorMessage\":%q}\n",
		time.Now().UTC().Format(time.RFC3339), file, line, why.Error())
}

// add checks an item and queues its write, or refuses it.
func (w *writer) add(file string, line int64, it item.Item) {
	key, err := w.check(it)
	if err != nil {
		w.refuse(file, line, err)
		return
	}
	w.size += item.Size(it)
	m := storage.Mutation{Table: w.t, Key: key, Fn: func(item.Item) (item.Item, error) { return it, nil }}
	k := string(key.PK) + "\x00" + string(key.SK)
	if i, ok := w.pos[k]; ok {
		w.batch[i] = m // the later line of a key wins, as in DynamoDB
		w.imported--   // counted once
	} else {
		w.pos[k] = len(w.batch)
		w.batch = append(w.batch, m)
	}
	w.imported++
}

// check returns the key of an item that DynamoDB would import, or why not.
func (w *writer) check(it item.Item) (storage.Key, error) {
	if err := item.ValidateItem(it); err != nil {
		return storage.Key{}, err
	}
	for name, typ := range w.types {
		v, ok := it[name]
		if !ok {
			if name == w.hash || name == w.rng {
				return storage.Key{}, fmt.Errorf("One or more parameter values were invalid: Missing the key %s in the item", name)
			}
			continue
		}
		if v.Type.String() != typ {
			return storage.Key{}, fmt.Errorf("One or more parameter values were invalid: Type mismatch for key %s expected: %s actual: %s", name, typ, v.Type.String())
		}
		if (v.Type == item.TypeS && v.S == "") || (v.Type == item.TypeB && len(v.B) == 0) {
			return storage.Key{}, fmt.Errorf("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty %s value. Key: %s", v.Type.String(), name)
		}
	}
	if item.Size(it) > maxItemSize {
		return storage.Key{}, fmt.Errorf("Item size has exceeded the maximum allowed size")
	}
	key := storage.Key{PK: item.EncodeKey(it[w.hash])}
	if w.rng != "" {
		key.SK = item.EncodeKey(it[w.rng])
	}
	return key, nil
}

func (w *writer) full() bool { return len(w.batch) >= batchSize || w.size >= batchBytes }

// flush starts writing the queued items (after the write before it
// ended, so a later line of a key always lands last) and flushes the log
// of the refused ones. The write goes on while the next batch is read;
// wait returns its outcome.
func (w *writer) flush(ctx context.Context) error {
	if err := w.wait(); err != nil {
		return err
	}
	if len(w.batch) > 0 {
		batch, done := w.batch, make(chan error, 1)
		go func() { done <- w.write(ctx, batch) }()
		w.inflight = done
		w.batch = make([]storage.Mutation, 0, batchSize)
	}
	w.size, w.errors, w.pending = 0, w.errors+w.pending, 0
	clear(w.pos)
	return w.log.Flush()
}

// sync writes everything queued and waits until it is written.
func (w *writer) sync(ctx context.Context) error {
	if err := w.flush(ctx); err != nil {
		return err
	}
	return w.wait()
}

// wait waits for the write in flight, if any, and returns its error.
func (w *writer) wait() error {
	if w.inflight == nil {
		return nil
	}
	err := <-w.inflight
	w.inflight = nil
	return err
}

func (w *writer) write(ctx context.Context, batch []storage.Mutation) error {
	if w.s.batched {
		return w.s.store.TransactWrite(ctx, batch)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(concurrentWriters)
	for _, m := range batch {
		g.Go(func() error { return w.s.store.Mutate(gctx, m.Table, m.Key, m.Fn) })
	}
	return g.Wait()
}
