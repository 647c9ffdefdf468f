// Package console is extenddb's web console, served under /console when
// the server runs with --console (docs/console.md, ADR 0015).
//
// Pages are rendered on the server with html/template; a small embedded
// script polls the stream tail. Every action is a DynamoDB operation run
// in-process on the engine, authenticated and authorized exactly as the
// same request sent over HTTP would be: when the server verifies
// signatures, the console asks for an access key pair, keeps it in the
// server's memory under a random session cookie, and signs each call with
// it, so the console can do exactly what that principal may do. Without
// credentials configured (local mode) the console is open, like the API.
// Every POST carries the session's CSRF token.
package console

import (
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/extenddb/extenddb/internal/protocol"
)

// Prefix is the path the console is served under.
const Prefix = "/console"

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Config is what the console needs from the server.
type Config struct {
	Engine protocol.Handler       // the DynamoDB engine, called in-process
	Auth   protocol.Authenticator // the server's authenticator; nil = local mode without one
	Region string                 // region of the console's calls unless the session names one
	Secure bool                   // the server speaks HTTPS: cookies are Secure
	Log    *slog.Logger
	// Now is the time the console signs its requests at; it must be the
	// authenticator's clock. nil is time.Now.
	Now func() time.Time
}

// Console is the console's HTTP handler. Create it with New.
type Console struct {
	cfg      Config
	sessions *sessions
	pages    map[string]*template.Template
	static   http.Handler
	Rates    *Rates // request rate and latency, fed by Observe
}

// New returns the console of cfg.
func New(cfg Config) *Console {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err)
	}
	return &Console{
		cfg:      cfg,
		sessions: newSessions(),
		pages:    parsePages(),
		static:   http.StripPrefix(Prefix+"/static/", http.FileServerFS(sub)),
		Rates:    NewRates(),
	}
}

// Observe records one API request for the charts; it has the signature of
// the protocol layer's Observe hook.
func (c *Console) Observe(_ string, status int, _ string, elapsed time.Duration) {
	c.Rates.Observe(time.Now(), status, elapsed)
}

// Handles reports whether path is the console's.
func Handles(path string) bool {
	return path == Prefix || strings.HasPrefix(path, Prefix+"/")
}

// verifies reports whether the server checks signatures, so that the
// console needs a login.
func (c *Console) verifies() bool { return c.cfg.Auth != nil && c.cfg.Auth.Verifies() }

// ServeHTTP serves the console's pages.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'")
	path := strings.TrimPrefix(r.URL.Path, Prefix)
	if strings.HasPrefix(path, "/static/") {
		c.static.ServeHTTP(w, r)
		return
	}
	if path == "" {
		http.Redirect(w, r, Prefix+"/", http.StatusFound)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	s := c.sessions.get(r)
	if s == nil {
		s = c.sessions.create(w, c.cfg.Secure)
	}
	if r.Method == http.MethodPost && !c.checkCSRF(r, s) {
		c.render(w, r, s, http.StatusForbidden, "error", page{Title: "Forbidden", Error: "The form expired or did not come from this console: reload the page and try again."})
		return
	}
	if path == "/login" {
		c.serveLogin(w, r, s)
		return
	}
	if c.verifies() && !s.signedIn() {
		if r.Method == http.MethodGet {
			http.Redirect(w, r, Prefix+"/login", http.StatusSeeOther)
			return
		}
		c.render(w, r, s, http.StatusForbidden, "error", page{Title: "Sign in", Error: "Sign in with an access key first."})
		return
	}
	c.route(w, r, s, path)
}

// maxFormBytes bounds a form post (an item is at most 400 KB).
const maxFormBytes = 2 << 20

// route dispatches a console path (without the prefix).
func (c *Console) route(w http.ResponseWriter, r *http.Request, s *session, path string) {
	get, post := r.Method == http.MethodGet || r.Method == http.MethodHead, r.Method == http.MethodPost
	switch {
	case path == "/" && get:
		c.serveTables(w, r, s)
	case path == "/logout" && post:
		c.sessions.drop(w, s)
		http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
	case path == "/create" && get:
		c.render(w, r, s, http.StatusOK, "create", page{Title: "Create table", Form: createDefaults()})
	case path == "/create" && post:
		c.serveCreate(w, r, s)
	case path == "/partiql" && (get || post):
		c.servePartiQL(w, r, s)
	case path == "/metrics" && get:
		c.serveMetrics(w, r, s)
	case strings.HasPrefix(path, "/tables/"):
		c.routeTable(w, r, s, strings.TrimPrefix(path, "/tables/"), get, post)
	default:
		c.render(w, r, s, http.StatusNotFound, "error", page{Title: "Not found", Error: "No console page at " + r.URL.Path + "."})
	}
}

// routeTable dispatches /tables/{name}[/{view}].
func (c *Console) routeTable(w http.ResponseWriter, r *http.Request, s *session, rest string, get, post bool) {
	name, view, _ := strings.Cut(rest, "/")
	switch {
	case view == "" && get:
		c.serveTable(w, r, s, name)
	case view == "delete" && post:
		c.serveDeleteTable(w, r, s, name)
	case view == "items" && get:
		c.serveItems(w, r, s, name)
	case view == "item" && (get || post):
		c.serveItem(w, r, s, name)
	case view == "stream" && get:
		c.render(w, r, s, http.StatusOK, "stream", page{Title: name + " stream", Table: name, Form: map[string]string{"from": r.URL.Query().Get("from")}})
	case view == "stream/records" && get:
		c.serveStreamRecords(w, r, s, name)
	default:
		c.render(w, r, s, http.StatusNotFound, "error", page{Title: "Not found", Error: "No console page at " + r.URL.Path + "."})
	}
}
