package auth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ServerKeySize is the length of the server key in bytes (AES-256).
const ServerKeySize = 32

// Sealer encrypts secrets at rest with the server key (AES-256-GCM, a
// random 12-byte nonce per secret, stored before the ciphertext).
type Sealer struct{ aead cipher.AEAD }

// NewSealer returns a Sealer for a 32-byte key.
func NewSealer(key []byte) (*Sealer, error) {
	if len(key) != ServerKeySize {
		return nil, fmt.Errorf("server key: %d bytes, want %d", len(key), ServerKeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts plain; aad binds the ciphertext to its record (the access
// key ID), so a sealed secret copied to another record does not open.
func (s *Sealer) Seal(plain, aad []byte) []byte {
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return s.aead.Seal(nonce, nonce, plain, aad)
}

// Open decrypts what Seal returned for the same aad.
func (s *Sealer) Open(sealed, aad []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("sealed secret too short")
	}
	out, err := s.aead.Open(nil, sealed[:n], sealed[n:], aad)
	if err != nil {
		return nil, errors.New("sealed secret does not open with this server key")
	}
	return out, nil
}

// ParseServerKey reads a server key written as 64 hex digits or as
// standard base64 of 32 bytes.
func ParseServerKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if b, err := hex.DecodeString(s); err == nil && len(b) == ServerKeySize {
		return b, nil
	}
	if b, err := base64.StdEncoding.DecodeString(s); err == nil && len(b) == ServerKeySize {
		return b, nil
	}
	return nil, errors.New("server key must be 64 hex digits or the base64 of 32 bytes")
}

// LoadOrCreateServerKey reads the key in path; when the file does not
// exist and create is set, it writes a new random key there, readable by
// its owner only.
func LoadOrCreateServerKey(path string, create bool) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err == nil {
		return ParseServerKey(string(raw))
	}
	if !errors.Is(err, os.ErrNotExist) || !create {
		return nil, fmt.Errorf("server key: %w", err)
	}
	key := make([]byte, ServerKeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("server key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return LoadOrCreateServerKey(path, false)
		}
		return nil, fmt.Errorf("server key: %w", err)
	}
	_, werr := f.WriteString(hex.EncodeToString(key) + "\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, fmt.Errorf("server key: %w", werr)
	}
	return key, nil
}
