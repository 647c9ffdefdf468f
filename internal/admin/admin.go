// Package admin serves extenddb's admin API for test suites, beside the
// DynamoDB API on paths under /admin/v1/ (docs/testing-with-extenddb.md,
// docs/adr/0016): named snapshots of a namespace's tables and their
// restore, truncating a table, the manual clock, and running TTL expiry at
// once. Requests are authenticated like the DynamoDB API's (SigV4 signed
// for the service "dynamodb"); with credentials configured the caller must
// be an account root or be allowed the action extenddb:Admin. Every
// operation acts on the caller's namespace (account, region, and access
// key with --per-access-key). The API is off unless the server is started
// with --admin-api.
package admin

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/extenddb/extenddb/internal/auth"
	"github.com/extenddb/extenddb/internal/clock"
	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/storage"
)

// Prefix is the path of every admin request.
const Prefix = "/admin/v1/"

// Action is the IAM action a non-root caller needs for the admin API.
const Action = "extenddb:Admin"

// maxBody bounds an admin request's body.
const maxBody = 64 << 10

// Handler serves the admin API.
type Handler struct {
	Store     storage.Backend
	Auth      *auth.Authenticator
	Clock     clock.Clock
	Snapshots *Snapshots
	// DefaultNamespace is the namespace of an unsigned request in local
	// mode (no credentials configured).
	DefaultNamespace string
	// Expire deletes the expired items of a table at once (the TTL
	// worker's pass) and returns how many it deleted.
	Expire func(ctx context.Context, t *storage.Table) (int, error)
	// ClockMoved runs after the manual clock moved: the background passes
	// that depend on time (TTL expiry, stream retention) run at once.
	ClockMoved func(ctx context.Context)
	// Log records the server faults of admin requests; nil logs nothing.
	Log *slog.Logger

	mux *http.ServeMux
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.mux == nil {
		h.routes()
	}
	h.mux.ServeHTTP(w, r)
}

type call struct {
	ns   string
	body []byte
}

type opFunc func(ctx context.Context, c *call, r *http.Request) (any, error)

func (h *Handler) routes() {
	m := http.NewServeMux()
	m.Handle("GET "+Prefix+"snapshots", h.op(h.listSnapshots))
	m.Handle("POST "+Prefix+"snapshots", h.op(h.saveSnapshot))
	m.Handle("GET "+Prefix+"snapshots/{name}", h.op(h.getSnapshot))
	m.Handle("DELETE "+Prefix+"snapshots/{name}", h.op(h.deleteSnapshot))
	m.Handle("POST "+Prefix+"snapshots/{name}/restore", h.op(h.restoreSnapshot))
	m.Handle("POST "+Prefix+"tables/{table}/truncate", h.op(h.truncate))
	m.Handle("POST "+Prefix+"tables/{table}/expire-now", h.op(h.expireNow))
	m.Handle("GET "+Prefix+"clock", h.op(h.getClock))
	m.Handle("POST "+Prefix+"clock", h.op(h.setClock))
	m.HandleFunc(Prefix, func(w http.ResponseWriter, r *http.Request) {
		h.writeError(w, &ddberr.Error{Type: "UnknownOperationException", Message: r.Method + " " + r.URL.Path + " is not an admin operation", Status: http.StatusNotFound})
	})
	h.mux = m
}

// op authenticates and authorises a request, then runs f and writes its
// result as JSON.
func (h *Handler) op(f opFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err != nil {
			h.writeError(w, ddberr.Validation("could not read the request body"))
			return
		}
		if len(body) > maxBody {
			h.writeError(w, ddberr.Validation("the request body is larger than %d bytes", maxBody))
			return
		}
		c, err := h.caller(r, body)
		if err != nil {
			h.writeError(w, err)
			return
		}
		out, err := f(r.Context(), c, r)
		if err != nil {
			h.writeError(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	})
}

// caller authenticates r like a DynamoDB request and checks the caller may
// use the admin API.
func (h *Handler) caller(r *http.Request, body []byte) (*call, error) {
	if !h.Auth.Verifies() && r.Header.Get("Authorization") == "" {
		return &call{ns: h.DefaultNamespace, body: body}, nil
	}
	sum := sha256.Sum256(body)
	c, err := h.Auth.Authenticate(r, sum[:])
	if err != nil {
		return nil, err
	}
	if h.Auth.Verifies() {
		resource := "arn:aws:dynamodb:" + c.Region + ":" + c.Account + ":table/*"
		_, denied, err := h.Auth.AuthorizeAction(r.Context(), c, Action, resource)
		if err != nil {
			return nil, err
		}
		if denied {
			return nil, ddberr.AccessDenied("User: %s is not authorized to perform: %s on resource: %s because no identity-based policy allows the %s action", c.Principal, Action, resource, Action)
		}
	}
	ns := c.Namespace
	if ns == "" {
		ns = c.Account
	}
	if ns == "" {
		ns = h.DefaultNamespace
	}
	return &call{ns: ns, body: body}, nil
}

// decode reads the JSON body of c into v; an empty body leaves v zero.
func decode(c *call, v any) error {
	if len(strings.TrimSpace(string(c.body))) == 0 {
		return nil
	}
	if err := json.Unmarshal(c.body, v); err != nil {
		return ddberr.Validation("the request body is not valid JSON for this operation: %v", err)
	}
	return nil
}

// writeError writes err as DynamoDB writes errors: {"__type", "message"}
// with the error's status; an error of no known kind is a 500.
func (h *Handler) writeError(w http.ResponseWriter, err error) {
	var e *ddberr.Error
	if !errors.As(err, &e) {
		e = mapError(err)
	}
	if e.Status >= http.StatusInternalServerError && h.Log != nil {
		h.Log.Error("admin API request failed", "error", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": e.Type, "message": e.Message})
}

// mapError gives the admin API's own errors their DynamoDB kind.
func mapError(err error) *ddberr.Error {
	switch {
	case errors.Is(err, errNoSnapshot):
		return ddberr.ResourceNotFound("Snapshot not found")
	case errors.Is(err, errNoTable):
		return ddberr.ResourceNotFound("Requested resource not found: Table: %s not found", strings.TrimPrefix(err.Error(), errNoTable.Error()+": "))
	case errors.Is(err, errBadName):
		return ddberr.Validation("Snapshot names are 1 to 255 characters of A-Z, a-z, 0-9, '_', '-' and '.'")
	case errors.Is(err, clock.ErrNotManual):
		return ddberr.Validation("%s", err.Error())
	}
	return ddberr.Internal("Internal server error")
}

// clockState is the answer of the clock operations.
type clockState struct {
	Mode string
	Now  time.Time
}

func (h *Handler) getClock(context.Context, *call, *http.Request) (any, error) {
	return clockState{Mode: clock.Mode(h.Clock), Now: h.Clock.Now().UTC()}, nil
}

// setClock moves the manual clock: {"Advance": "1h30m"} (a Go duration,
// or a number of days with "d") or {"Set": "2026-01-02T03:04:05Z"}.
func (h *Handler) setClock(ctx context.Context, c *call, _ *http.Request) (any, error) {
	var in struct{ Advance, Set string }
	if err := decode(c, &in); err != nil {
		return nil, err
	}
	m, ok := h.Clock.(*clock.Manual)
	if !ok {
		return nil, clock.ErrNotManual
	}
	switch {
	case (in.Advance == "") == (in.Set == ""):
		return nil, ddberr.Validation("Give exactly one of Advance (a duration such as 1h or 2d) and Set (an RFC 3339 time)")
	case in.Advance != "":
		d, err := clock.ParseDuration(in.Advance)
		if err != nil {
			return nil, ddberr.Validation("Advance: %v", err)
		}
		if _, err := m.Advance(d); err != nil {
			return nil, ddberr.Validation("Advance: %v", err)
		}
	default:
		t, err := time.Parse(time.RFC3339Nano, in.Set)
		if err != nil {
			return nil, ddberr.Validation("Set: %q is not an RFC 3339 time such as 2026-01-02T03:04:05Z", in.Set)
		}
		if _, err := m.Set(t); err != nil {
			return nil, ddberr.Validation("Set: %v", err)
		}
	}
	if h.ClockMoved != nil {
		h.ClockMoved(ctx)
	}
	return h.getClock(ctx, c, nil)
}
