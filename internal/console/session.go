package console

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"sync"
	"time"
)

// Sessions live in the server's memory: the cookie holds only a random
// identifier, never the secret key.
const (
	sessionCookie = "extenddb_console"
	sessionIdle   = 12 * time.Hour // a session unused this long is forgotten
	maxSessions   = 4096           // beyond it, the least recently used session goes
)

// session is one browser's state: its CSRF token, the access key it signed
// in with (none in local mode) and a message for the next page.
type session struct {
	id        string     // read and changed under sessions.mu only
	lastUsed  time.Time  // likewise
	mu        sync.Mutex // guards the fields below
	csrf      string
	keyID     string
	secret    string
	token     string // session token of temporary credentials
	region    string
	flash     string
	failure   string // an error for the next page
	principal string
}

// csrfToken is the session's CSRF token.
func (s *session) csrfToken() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.csrf
}

func (s *session) signedIn() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keyID != ""
}

// setFlash leaves msg for the next page, as a result or, when failed, as
// an error.
func (s *session) setFlash(msg string, failed bool) {
	s.mu.Lock()
	if failed {
		s.failure = msg
	} else {
		s.flash = msg
	}
	s.mu.Unlock()
}

// takeFlash returns and clears the messages for the next page.
func (s *session) takeFlash() (flash, failure string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	flash, failure = s.flash, s.failure
	s.flash, s.failure = "", ""
	return flash, failure
}

// identity is what the session signs with: the key pair, session token,
// region and principal (all "" in local mode before any sign-in).
type identity struct{ keyID, secret, token, region, principal string }

func (s *session) identity() identity {
	s.mu.Lock()
	defer s.mu.Unlock()
	return identity{s.keyID, s.secret, s.token, s.region, s.principal}
}

func (s *session) setIdentity(id identity) {
	s.mu.Lock()
	s.keyID, s.secret, s.token, s.region, s.principal = id.keyID, id.secret, id.token, id.region, id.principal
	s.mu.Unlock()
}

type sessions struct {
	mu   sync.Mutex
	byID map[string]*session
}

func newSessions() *sessions { return &sessions{byID: map[string]*session{}} }

func randomToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// get returns the live session named by r's cookie, or nil.
func (ss *sessions) get(r *http.Request) *session {
	ck, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.byID[ck.Value]
	if s == nil {
		return nil
	}
	now := time.Now()
	if now.Sub(s.lastUsed) > sessionIdle {
		delete(ss.byID, s.id)
		return nil
	}
	s.lastUsed = now
	return s
}

// create starts a session and sets its cookie on w.
func (ss *sessions) create(w http.ResponseWriter, secure bool) *session {
	s := &session{id: randomToken(), csrf: randomToken(), lastUsed: time.Now()}
	ss.mu.Lock()
	if len(ss.byID) >= maxSessions {
		ss.evictLocked()
	}
	ss.byID[s.id] = s
	ss.mu.Unlock()
	setSessionCookie(w, s.id, secure)
	return s
}

// signIn gives s the identity id under a new session id and CSRF token,
// so that an id known before signing in (fixation) is worth nothing.
func (ss *sessions) signIn(w http.ResponseWriter, s *session, id identity, secure bool) {
	ss.mu.Lock()
	delete(ss.byID, s.id)
	s.id = randomToken()
	sid := s.id
	ss.byID[sid] = s
	ss.mu.Unlock()
	s.setIdentity(id)
	s.mu.Lock()
	s.csrf = randomToken()
	s.mu.Unlock()
	setSessionCookie(w, sid, secure)
}

func setSessionCookie(w http.ResponseWriter, id string, secure bool) {
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: id, Path: Prefix, HttpOnly: true, Secure: secure,
		SameSite: http.SameSiteStrictMode,
	})
}

// evictLocked forgets idle sessions, or the least recently used one.
func (ss *sessions) evictLocked() {
	var oldest *session
	now := time.Now()
	for id, s := range ss.byID {
		if now.Sub(s.lastUsed) > sessionIdle {
			delete(ss.byID, id)
			continue
		}
		if oldest == nil || s.lastUsed.Before(oldest.lastUsed) {
			oldest = s
		}
	}
	if len(ss.byID) >= maxSessions && oldest != nil {
		delete(ss.byID, oldest.id)
	}
}

// drop ends s (sign out) and clears its cookie.
func (ss *sessions) drop(w http.ResponseWriter, s *session) {
	ss.mu.Lock()
	delete(ss.byID, s.id)
	ss.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: Prefix, MaxAge: -1, HttpOnly: true})
}

// checkCSRF reports whether a POST carries s's token and, when the browser
// names its origin, comes from this host.
func (c *Console) checkCSRF(r *http.Request, s *session) bool {
	if o := r.Header.Get("Origin"); o != "" && o != "null" {
		if o != "http://"+r.Host && o != "https://"+r.Host {
			return false
		}
	}
	got := r.PostFormValue("csrf")
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.csrfToken())) == 1
}
