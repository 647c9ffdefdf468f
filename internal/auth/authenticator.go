// Package auth authenticates DynamoDB requests: SigV4 verification with
// AWS's errors, the credential store (accounts, users, access keys with
// secrets sealed by a server key), the mapping of a caller to its storage
// namespace, and the loopback guard of the local mode. See docs/security.md
// and docs/adr/0011-authentication-and-namespaces.md.
package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/storage"
)

// KeyCacheTTL is how long an access key read from the credential store is
// trusted: a deleted or rotated key stops working within it, in every
// process sharing the store.
const KeyCacheTTL = 5 * time.Second

// Config configures an Authenticator.
type Config struct {
	// Store holds the credentials to verify against; nil is the local
	// mode: any well-formed signature is accepted into DefaultAccount.
	Store *Store
	// DefaultAccount is the account of the local mode (12 digits).
	DefaultAccount string
	// HomeRegion is the region whose namespace is the bare account ID
	// (the server's --region).
	HomeRegion string
	// SharedDB puts every request in one namespace, DefaultAccount's home
	// region, whatever its key and region (DynamoDB Local's -sharedDb).
	SharedDB bool
	// PerAccessKey gives each access key and region a namespace of its own
	// in the local mode (DynamoDB Local's default without -sharedDb).
	PerAccessKey bool
	// Tables reads tables' key schemas for the condition key
	// dynamodb:LeadingKeys; nil leaves that key underived, so statements
	// conditioned on it fail closed.
	Tables TableReader
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Authenticator implements protocol.Authenticator.
type Authenticator struct {
	cfg Config

	mu       sync.RWMutex
	keys     map[string]cachedKey
	signing  map[signingScope]signingKey
	inflight singleflight.Group // one store read at a time per missing key
	tables   keySchemas
}

type cachedKey struct {
	key     AccessKey
	who     *principal // nil when !found
	found   bool
	fetched time.Time
}

type signingScope struct{ key, date, region, service string }

type signingKey struct {
	secret string // the secret it was derived from: a rotated key re-derives
	key    []byte
}

// maxCached bounds each cache; past it the cache starts over.
const maxCached = 100_000

// New returns an Authenticator.
func New(cfg Config) *Authenticator {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.DefaultAccount == "" {
		cfg.DefaultAccount = storage.DefaultAccount
	}
	return &Authenticator{cfg: cfg, keys: map[string]cachedKey{}, signing: map[signingScope]signingKey{},
		tables: keySchemas{read: cfg.Tables}}
}

// Verifies reports whether signatures are verified (a credential store is
// configured).
func (a *Authenticator) Verifies() bool { return a.cfg.Store != nil }

// Authenticate verifies r and returns its caller. payloadSHA256 is the
// SHA-256 of the raw body (needed when Verifies).
func (a *Authenticator) Authenticate(r *http.Request, payloadSHA256 []byte) (protocol.Caller, error) {
	return a.AuthenticateService(r, payloadSHA256, Service)
}

// AuthenticateService is Authenticate for a request signed for service
// ("dynamodb", or "sts" for the STS endpoint).
func (a *Authenticator) AuthenticateService(r *http.Request, payloadSHA256 []byte, service string) (protocol.Caller, error) {
	h := r.Header
	var authz Authorization
	az := &authz
	if err := az.parse(h.Get("Authorization"), h.Get("X-Amz-Date") != "" || h.Get("Date") != ""); err != nil {
		return protocol.Caller{}, err
	}
	if a.cfg.Store == nil {
		return a.localCaller(az), nil
	}
	if err := az.CheckCredential(); err != nil {
		return protocol.Caller{}, err
	}
	if err := az.CheckHostSigned(); err != nil {
		return protocol.Caller{}, err
	}
	t, amzDate, err := RequestTime(h)
	if err != nil {
		return protocol.Caller{}, err
	}
	if err := az.CheckScope(amzDate, service); err != nil {
		return protocol.Caller{}, err
	}
	if err := CheckSkew(t, a.cfg.Now()); err != nil {
		return protocol.Caller{}, err
	}
	ck, err := a.activeKey(r.Context(), az.AccessKeyID)
	if err != nil {
		return protocol.Caller{}, err
	}
	key := ck.key
	if err := a.checkSessionToken(key, h.Get("X-Amz-Security-Token")); err != nil {
		return protocol.Caller{}, err
	}
	if !az.Verify(r, amzDate, payloadSHA256, a.signingKey(az, key.Secret)) {
		return protocol.Caller{}, ErrSignatureMismatch()
	}
	c := protocol.Caller{
		AccessKeyID: az.AccessKeyID,
		Region:      az.Region,
		Account:     key.Account,
		Principal:   key.principal,
		Identity:    ck.who,
	}
	c.Namespace = a.namespace(c.Account, c.Region, "")
	return c, nil
}

// localCaller is the caller of the local mode.
func (a *Authenticator) localCaller(az *Authorization) protocol.Caller {
	c := protocol.Caller{AccessKeyID: az.AccessKeyID, Region: az.Region, Account: a.cfg.DefaultAccount}
	if c.Region == "" {
		c.Region = a.cfg.HomeRegion
	}
	perKey := ""
	if a.cfg.PerAccessKey {
		perKey = az.AccessKeyID
	}
	c.Namespace = a.namespace(c.Account, c.Region, perKey)
	return c
}

func (a *Authenticator) namespace(account, region, perKey string) string {
	switch {
	case a.cfg.SharedDB:
		return a.cfg.DefaultAccount
	case perKey != "":
		return account + "/" + region + "/" + perKey
	}
	return storage.Namespace(account, region, a.cfg.HomeRegion)
}

// errUnrecognized is DynamoDB's answer to an unknown access key
// (https://github.com/edasque/DynamoDBtoCSV/issues/36 quotes it).
func errUnrecognized() error {
	return ddberr.UnrecognizedClient("The security token included in the request is invalid.")
}

// accessKey returns an active key from the cache or the store.
func (a *Authenticator) accessKey(ctx context.Context, id string) (AccessKey, error) {
	c, err := a.activeKey(ctx, id)
	return c.key, err
}

// activeKey is the cache entry of an active key id, read when stale.
func (a *Authenticator) activeKey(ctx context.Context, id string) (cachedKey, error) {
	now := a.cfg.Now()
	c, ok := a.cachedKey(id, now)
	if !ok {
		var err error
		if c, err = a.loadKey(ctx, id, now); err != nil {
			return cachedKey{}, err
		}
	}
	if !c.found || c.key.Status != "Active" {
		return cachedKey{}, errUnrecognized()
	}
	return c, nil
}

// cachedKey returns the cache entry of id when it is still fresh at now.
func (a *Authenticator) cachedKey(id string, now time.Time) (cachedKey, bool) {
	a.mu.RLock()
	c, ok := a.keys[id]
	a.mu.RUnlock()
	return c, ok && now.Sub(c.fetched) < KeyCacheTTL && !now.Before(c.fetched)
}

// keyReadTimeout bounds a shared store read of an access key.
const keyReadTimeout = 10 * time.Second

// loadKey reads key id from the store into the cache. Requests waiting
// for the same key share one read; reads of different keys do not wait on
// each other, so a flood of unknown key ids does not hold up known ones.
// A request that goes away stops waiting (its context's error) while the
// shared read goes on for the others and fills the cache.
func (a *Authenticator) loadKey(ctx context.Context, id string, now time.Time) (cachedKey, error) {
	read := a.inflight.DoChan(id, func() (any, error) {
		if c, ok := a.cachedKey(id, now); ok {
			return c, nil
		}
		// The read is shared by every request waiting for id, so it runs
		// apart from the cancellation of the one that started it, within a
		// bound of its own.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), keyReadTimeout)
		defer cancel()
		c, err := a.readKey(rctx, id, now)
		if err != nil {
			return cachedKey{}, err
		}
		a.remember(id, c)
		return c, nil
	})
	select {
	case r := <-read:
		if r.Err != nil {
			return cachedKey{}, r.Err
		}
		return r.Val.(cachedKey), nil
	case <-ctx.Done():
		return cachedKey{}, ctx.Err()
	}
}

// readKey reads key id and its principal from the store; an unknown key
// is an entry with found false, cached like a known one.
func (a *Authenticator) readKey(ctx context.Context, id string, now time.Time) (cachedKey, error) {
	k, err := a.cfg.Store.GetAccessKey(ctx, id)
	var who principal
	if err == nil {
		who, err = a.cfg.Store.loadPrincipal(ctx, k)
	}
	switch {
	case errors.Is(err, ErrNotFound):
		return cachedKey{fetched: now}, nil
	case err != nil:
		return cachedKey{}, ddberr.Internal("Internal server error")
	}
	k.principal = who.arn
	return cachedKey{key: k, who: &who, found: true, fetched: now}, nil
}

// remember caches c as id's entry. A full cache first forgets its unknown
// keys, so that requests with made-up key ids cannot push the real ones
// out; only a cache full of real keys starts over.
func (a *Authenticator) remember(id string, c cachedKey) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.keys) >= maxCached {
		for k, e := range a.keys {
			if !e.found {
				delete(a.keys, k)
			}
		}
		if len(a.keys) >= maxCached {
			a.keys = map[string]cachedKey{}
		}
	}
	a.keys[id] = c
}

// signingKey returns the derived key of the scope, from the cache when
// derived from the same secret.
func (a *Authenticator) signingKey(az *Authorization, secret string) []byte {
	sc := signingScope{az.AccessKeyID, az.Date, az.Region, az.Service}
	a.mu.RLock()
	k, ok := a.signing[sc]
	a.mu.RUnlock()
	if ok && k.secret == secret {
		return k.key
	}
	k = signingKey{secret: secret, key: SigningKey(secret, az.Date, az.Region, az.Service)}
	a.mu.Lock()
	if len(a.signing) >= maxCached {
		a.signing = map[signingScope]signingKey{}
	}
	a.signing[sc] = k
	a.mu.Unlock()
	return k.key
}

// checkSessionToken: a temporary key (ASIA...) needs its session token and
// must not have expired; a long-term key takes no session token (AWS
// refuses the pair).
func (a *Authenticator) checkSessionToken(key AccessKey, token string) error {
	if key.TokenHash == nil {
		if token != "" {
			return errUnrecognized()
		}
		return nil
	}
	sum := sha256.Sum256([]byte(token))
	if token == "" || subtle.ConstantTimeCompare(sum[:], key.TokenHash) != 1 {
		return errUnrecognized()
	}
	if !a.cfg.Now().Before(key.Expires) {
		return &ddberr.Error{Type: "com.amazon.coral.service#ExpiredTokenException", Message: "The security token included in the request is expired", Status: http.StatusBadRequest}
	}
	return nil
}
