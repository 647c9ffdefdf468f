package admin

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

var timeZero time.Time

// Errors of the snapshot store.
var (
	errNoSnapshot  = errors.New("admin: snapshot not found")
	errBadName     = errors.New("admin: bad snapshot name")
	errItemTooBig  = errors.New("admin: damaged snapshot (an item record is too large)")
	snapshotNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,255}$`)
)

// maxItemRecord bounds one stored item (DynamoDB's items are at most 400 KB).
const maxItemRecord = 1 << 20

// Snapshot describes one saved snapshot.
type Snapshot struct {
	Name      string
	CreatedAt time.Time // by the server's clock
	Tables    []SnapshotTable
	// Whole is true when the snapshot holds every table of its namespace:
	// restoring it also deletes the tables created since.
	Whole bool
}

// SnapshotTable is one table of a snapshot.
type SnapshotTable struct {
	TableName string
	ItemCount int64
	Table     storage.Table `json:"Definition"`
}

// Snapshots saves and restores the tables of a namespace under a name, in
// files under a root directory (one directory per namespace and
// snapshot): the definitions in manifest.json and the items of table i in
// i.items, as length-prefixed records of internal/item's binary encoding.
// They work on every backend through the storage contract. Operations are
// serialised with one another, not with concurrent item writes: a test
// suite saves and restores between its tests.
type Snapshots struct {
	store storage.Backend
	root  string
	now   func() time.Time
	mu    sync.Mutex
	// Forget, when set, is called for every table a restore replaced or
	// removed (the engine's table cache).
	Forget func(ns, name string)
}

// NewSnapshots returns the snapshots of store kept under root.
func NewSnapshots(store storage.Backend, root string, now func() time.Time) *Snapshots {
	return &Snapshots{store: store, root: root, now: now}
}

func (s *Snapshots) dir(ns, name string) string {
	return filepath.Join(s.root, url.PathEscape(ns), name)
}

func (s *Snapshots) forget(ns, name string) {
	if s.Forget != nil {
		s.Forget(ns, name)
	}
}

// Save saves the tables of namespace ns named in tables (all of them when
// empty) as snapshot name, replacing a snapshot of that name. Errors:
// errBadName, errNoTable (naming the table).
func (s *Snapshots) Save(ctx context.Context, ns, name string, tables []string) (*Snapshot, error) {
	if !snapshotNameRE.MatchString(name) {
		return nil, errBadName
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := &Snapshot{Name: name, CreatedAt: s.now().UTC(), Whole: len(tables) == 0}
	if snap.Whole {
		var err error
		if tables, err = s.store.ListTables(ctx, ns); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(filepath.Join(s.root, url.PathEscape(ns)), 0o700); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Join(s.root, url.PathEscape(ns)), ".saving-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	for i, tn := range slices.Compact(slices.Sorted(slices.Values(tables))) {
		st, err := s.saveTable(ctx, ns, tn, filepath.Join(tmp, strconv.Itoa(i)+".items"))
		if err != nil {
			return nil, err
		}
		snap.Tables = append(snap.Tables, *st)
	}
	raw, err := json.MarshalIndent(snap, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "manifest.json"), raw, 0o600); err != nil {
		return nil, err
	}
	final := s.dir(ns, name)
	if err := os.RemoveAll(final); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, final); err != nil {
		return nil, err
	}
	return snap, nil
}

// saveTable writes the items of one table to path.
func (s *Snapshots) saveTable(ctx context.Context, ns, name, path string) (*SnapshotTable, error) {
	t, err := s.store.GetTable(ctx, ns, name)
	if errors.Is(err, storage.ErrTableNotFound) {
		return nil, fmt.Errorf("%w: %s", errNoTable, name)
	}
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<16)
	st := &SnapshotTable{TableName: name, Table: *t}
	var rec, head []byte
	err = scanAll(ctx, s.store, t, func(it item.Item) error {
		rec = item.AppendItem(rec[:0], it)
		head = binary.AppendUvarint(head[:0], uint64(len(rec)))
		if _, err := w.Write(head); err != nil {
			return err
		}
		st.ItemCount++
		_, err := w.Write(rec)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return st, f.Close()
}

// Get reads the manifest of snapshot name of namespace ns. Errors:
// errBadName, errNoSnapshot.
func (s *Snapshots) Get(ns, name string) (*Snapshot, error) {
	if !snapshotNameRE.MatchString(name) {
		return nil, errBadName
	}
	raw, err := os.ReadFile(filepath.Join(s.dir(ns, name), "manifest.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, errNoSnapshot
	}
	if err != nil {
		return nil, err
	}
	var snap Snapshot
	if err := json.Unmarshal(raw, &snap); err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", name, err)
	}
	return &snap, nil
}

// List returns the snapshots of namespace ns by name.
func (s *Snapshots) List(ns string) ([]*Snapshot, error) {
	entries, err := os.ReadDir(filepath.Join(s.root, url.PathEscape(ns)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Snapshot
	for _, e := range entries {
		if !e.IsDir() || !snapshotNameRE.MatchString(e.Name()) {
			continue
		}
		if snap, err := s.Get(ns, e.Name()); err == nil {
			out = append(out, snap)
		}
	}
	return out, nil
}

// Delete removes snapshot name of namespace ns. Errors: errBadName,
// errNoSnapshot.
func (s *Snapshots) Delete(ns, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.Get(ns, name); err != nil {
		return err
	}
	return os.RemoveAll(s.dir(ns, name))
}

// Restore puts the tables of snapshot name back into namespace ns as they
// were saved (definition and items); a whole snapshot also deletes the
// tables of ns created since. Errors: errBadName, errNoSnapshot.
func (s *Snapshots) Restore(ctx context.Context, ns, name string) (*Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap, err := s.Get(ns, name)
	if err != nil {
		return nil, err
	}
	if err := s.check(ns, snap); err != nil {
		return nil, err
	}
	if snap.Whole {
		if err := s.dropOthers(ctx, ns, snap); err != nil {
			return nil, err
		}
	}
	for i := range snap.Tables {
		st := &snap.Tables[i]
		err := s.restoreTable(ctx, ns, st, filepath.Join(s.dir(ns, name), strconv.Itoa(i)+".items"))
		s.forget(ns, st.TableName)
		if err != nil {
			return nil, fmt.Errorf("restore table %s: %w", st.TableName, err)
		}
	}
	return snap, nil
}

// dropOthers deletes the tables of ns that snap does not hold.
func (s *Snapshots) dropOthers(ctx context.Context, ns string, snap *Snapshot) error {
	names, err := s.store.ListTables(ctx, ns)
	if err != nil {
		return err
	}
	for _, n := range names {
		if slices.ContainsFunc(snap.Tables, func(t SnapshotTable) bool { return t.TableName == n }) {
			continue
		}
		err := s.store.DeleteTable(ctx, ns, n)
		s.forget(ns, n)
		if err != nil && !errors.Is(err, storage.ErrTableNotFound) {
			return err
		}
	}
	return nil
}

func (s *Snapshots) restoreTable(ctx context.Context, ns string, st *SnapshotTable, path string) error {
	next, done, err := openItems(path)
	if err != nil {
		return err
	}
	defer done()
	src := st.Table
	src.Name = st.TableName
	_, err = recreate(ctx, s.store, ns, &src, next)
	return err
}

// openItems opens a table's items file: next yields its items, then nil.
func openItems(path string) (next func() (item.Item, error), done func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	r := bufio.NewReaderSize(f, 1<<16)
	next = func() (item.Item, error) {
		n, err := binary.ReadUvarint(r)
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if n > maxItemRecord {
			return nil, errItemTooBig
		}
		rec := make([]byte, n)
		if _, err := io.ReadFull(r, rec); err != nil {
			return nil, err
		}
		return item.UnmarshalItem(rec)
	}
	return next, func() { f.Close() }, nil
}

// check reads every items file of snap, so that a damaged snapshot is
// refused before a restore changes anything.
func (s *Snapshots) check(ns string, snap *Snapshot) error {
	for i, st := range snap.Tables {
		next, done, err := openItems(filepath.Join(s.dir(ns, snap.Name), strconv.Itoa(i)+".items"))
		if err != nil {
			return fmt.Errorf("snapshot %s is damaged: %w", snap.Name, err)
		}
		var n int64
		for {
			it, err := next()
			if err != nil {
				done()
				return fmt.Errorf("snapshot %s is damaged: table %s: %w", snap.Name, st.TableName, err)
			}
			if it == nil {
				break
			}
			n++
		}
		done()
		if n != st.ItemCount {
			return fmt.Errorf("snapshot %s is damaged: table %s has %d items of %d", snap.Name, st.TableName, n, st.ItemCount)
		}
	}
	return nil
}
