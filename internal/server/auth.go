package server

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/extenddb/extenddb/internal/auth"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/sts"
)

// AuthConfig is the authentication part of Config (docs/security.md).
type AuthConfig struct {
	// RootAccessKeyID and RootSecretAccessKey seed the admin user's key in
	// the default account; once set, every request must be signed with a
	// known key, even on loopback.
	RootAccessKeyID     string
	RootSecretAccessKey string
	// RootCredentialsFile holds the two above as JSON
	// {"AccessKeyId": "...", "SecretAccessKey": "..."}.
	RootCredentialsFile string
	// ServerKey (64 hex digits or base64 of 32 bytes) or ServerKeyFile
	// seals secrets at rest. Default: <data-dir>/server.key (created) on
	// SQLite; required on PostgreSQL and Cassandra once auth is on.
	ServerKey     string
	ServerKeyFile string
	// Insecure allows a non-loopback listen address without authentication.
	Insecure bool
	// SharedDB: one namespace for every key and region (DynamoDB Local's
	// -sharedDb). PerAccessKey: in local mode, one namespace per access key
	// and region (DynamoDB Local's default).
	SharedDB     bool
	PerAccessKey bool
	// TLSCert and TLSKey (PEM files) serve HTTPS (HTTP/1.1 and HTTP/2).
	TLSCert string
	TLSKey  string
}

// setupAuth returns the authenticator of cfg on store, and the handler
// wrapper of its mode (the loopback Host guard in local mode).
func setupAuth(ctx context.Context, cfg Config, store storage.Backend, ln net.Listener) (*auth.Authenticator, func(http.Handler) http.Handler, error) {
	if err := checkTLS(cfg.Auth); err != nil {
		return nil, nil, err
	}
	id, secret, err := rootCredentials(cfg.Auth)
	if err != nil {
		return nil, nil, err
	}
	acfg := auth.Config{DefaultAccount: cfg.AccountID, HomeRegion: cfg.Region, SharedDB: cfg.Auth.SharedDB, PerAccessKey: cfg.Auth.PerAccessKey}
	enabled := id != ""
	if !enabled {
		enabled, err = auth.HasCredentials(ctx, store)
		if err != nil {
			return nil, nil, err
		}
	}
	if !enabled {
		if !isLoopback(ln.Addr()) && !cfg.Auth.Insecure {
			return nil, nil, fmt.Errorf("refusing to serve %s without authentication: set EXTENDDB_ROOT_ACCESS_KEY_ID and EXTENDDB_ROOT_SECRET_ACCESS_KEY (see docs/security.md), or pass --insecure", ln.Addr())
		}
		a := auth.New(acfg)
		if isLoopback(ln.Addr()) {
			return a, auth.LoopbackHostOnly, nil
		}
		return a, func(h http.Handler) http.Handler { return h }, nil
	}
	st, err := OpenCredentials(ctx, cfg, store)
	if err != nil {
		return nil, nil, err
	}
	if id != "" {
		if err := st.Bootstrap(ctx, cfg.AccountID, id, secret); err != nil {
			return nil, nil, fmt.Errorf("root credentials: %w", err)
		}
	}
	acfg.Store = st
	acfg.Tables = store.GetTable
	a := auth.New(acfg)
	stsHandler := &sts.Handler{Auth: a, Store: st}
	// STS's query protocol (form-encoded POSTs) on the same port.
	return a, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if sts.IsQueryRequest(r) {
				stsHandler.ServeHTTP(w, r)
				return
			}
			h.ServeHTTP(w, r)
		})
	}, nil
}

// checkTLS loads the certificate and key once at start, so that a bad
// file fails `extenddb serve` instead of every connection.
func checkTLS(a AuthConfig) error {
	if a.TLSCert == "" && a.TLSKey == "" {
		return nil
	}
	if a.TLSCert == "" || a.TLSKey == "" {
		return errors.New("TLS needs both --tls-cert and --tls-key")
	}
	if _, err := tls.LoadX509KeyPair(a.TLSCert, a.TLSKey); err != nil {
		return fmt.Errorf("TLS certificate: %w", err)
	}
	return nil
}

func rootCredentials(c AuthConfig) (id, secret string, err error) {
	id, secret = c.RootAccessKeyID, c.RootSecretAccessKey
	if c.RootCredentialsFile != "" {
		raw, err := os.ReadFile(c.RootCredentialsFile)
		if err != nil {
			return "", "", fmt.Errorf("root credentials file: %w", err)
		}
		var f struct{ AccessKeyId, SecretAccessKey string }
		if err := json.Unmarshal(raw, &f); err != nil {
			return "", "", fmt.Errorf("root credentials file %s: %w", c.RootCredentialsFile, err)
		}
		id, secret = f.AccessKeyId, f.SecretAccessKey
	}
	if (id == "") != (secret == "") {
		return "", "", errors.New("root credentials: set both the access key ID and the secret access key")
	}
	return id, secret, nil
}

// serverKey returns the key that seals secrets at rest.
func serverKey(cfg Config) ([]byte, error) {
	a := cfg.Auth
	switch {
	case a.ServerKey != "":
		return auth.ParseServerKey(a.ServerKey)
	case a.ServerKeyFile != "":
		return auth.LoadOrCreateServerKey(a.ServerKeyFile, false)
	case (cfg.Storage == "" || cfg.Storage == "sqlite") && cfg.InMemory:
		k := make([]byte, auth.ServerKeySize)
		_, err := rand.Read(k)
		return k, err
	case cfg.Storage == "" || cfg.Storage == "sqlite":
		return auth.LoadOrCreateServerKey(filepath.Join(cfg.DataDir, "server.key"), true)
	}
	return nil, errors.New("authentication on " + cfg.Storage + " needs the server key that seals secrets: --server-key-file or EXTENDDB_SERVER_KEY (64 hex digits, the same for every process)")
}

func isLoopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// AuthMode describes how requests are authenticated, for the start-up line.
func (s *Server) AuthMode() string {
	switch {
	case s.auth != nil && s.auth.Verifies():
		return "sigv4 (signatures verified against the credential store)"
	case isLoopback(s.listener.Addr()):
		return "local (no credentials configured: any well-formed signature is accepted; loopback Host only)"
	}
	return "insecure (no credentials configured: any well-formed signature is accepted)"
}

// authTimeout bounds the credential store's set-up at start.
const authTimeout = time.Minute

// OpenStorage opens the storage backend cfg names, for administration
// commands acting on a server's data.
func OpenStorage(cfg Config) (storage.Backend, error) { return openStorage(cfg) }

// OpenCredentials opens (creating on first use) the credential store on
// store with the server key of cfg.
func OpenCredentials(ctx context.Context, cfg Config, store storage.Backend) (*auth.Store, error) {
	key, err := serverKey(cfg)
	if err != nil {
		return nil, err
	}
	sealer, err := auth.NewSealer(key)
	if err != nil {
		return nil, err
	}
	return auth.OpenStore(ctx, store, sealer)
}
