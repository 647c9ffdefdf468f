package admin

import (
	"context"
	"errors"
	"net/http"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/storage"
)

// snapshotList is the answer of GET snapshots.
type snapshotList struct {
	Snapshots []*Snapshot
}

func (h *Handler) listSnapshots(_ context.Context, c *call, _ *http.Request) (any, error) {
	list, err := h.Snapshots.List(c.ns)
	if list == nil {
		list = []*Snapshot{}
	}
	return snapshotList{Snapshots: list}, err
}

// saveSnapshot saves {"Name": "...", "Tables": ["..."]} (all tables when
// Tables is empty).
func (h *Handler) saveSnapshot(ctx context.Context, c *call, _ *http.Request) (any, error) {
	var in struct {
		Name   string
		Tables []string
	}
	if err := decode(c, &in); err != nil {
		return nil, err
	}
	return h.Snapshots.Save(ctx, c.ns, in.Name, in.Tables)
}

func (h *Handler) getSnapshot(_ context.Context, c *call, r *http.Request) (any, error) {
	return h.Snapshots.Get(c.ns, r.PathValue("name"))
}

func (h *Handler) deleteSnapshot(_ context.Context, c *call, r *http.Request) (any, error) {
	snap, err := h.Snapshots.Get(c.ns, r.PathValue("name"))
	if err != nil {
		return nil, err
	}
	return snap, h.Snapshots.Delete(c.ns, snap.Name)
}

func (h *Handler) restoreSnapshot(ctx context.Context, c *call, r *http.Request) (any, error) {
	return h.Snapshots.Restore(ctx, c.ns, r.PathValue("name"))
}

// tableResult is the answer of the table operations.
type tableResult struct {
	TableName string
	// ExpiredItems is how many items expire-now deleted.
	ExpiredItems *int `json:",omitempty"`
}

func (h *Handler) truncate(ctx context.Context, c *call, r *http.Request) (any, error) {
	name := r.PathValue("table")
	h.Snapshots.mu.Lock()
	defer h.Snapshots.mu.Unlock()
	_, err := Truncate(ctx, h.Store, c.ns, name)
	h.Snapshots.forget(c.ns, name)
	if errors.Is(err, errNoTable) {
		return nil, ddberr.ResourceNotFound("Requested resource not found: Table: %s not found", name)
	}
	if err != nil {
		return nil, err
	}
	return tableResult{TableName: name}, nil
}

// expireNow runs the TTL expiry pass of one table at once, by the
// server's clock.
func (h *Handler) expireNow(ctx context.Context, c *call, r *http.Request) (any, error) {
	name := r.PathValue("table")
	t, err := h.Store.GetTable(ctx, c.ns, name)
	if errors.Is(err, storage.ErrTableNotFound) {
		return nil, ddberr.ResourceNotFound("Requested resource not found: Table: %s not found", name)
	}
	if err != nil {
		return nil, err
	}
	if !t.TTL.Maintained() {
		return nil, ddberr.Validation("Time to Live is not enabled on table %s", name)
	}
	n, err := h.Expire(ctx, t)
	if err != nil {
		return nil, err
	}
	return tableResult{TableName: name, ExpiredItems: &n}, nil
}
