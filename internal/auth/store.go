package auth

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// The credential store keeps accounts, users and access keys in one table
// of a reserved catalog namespace through the storage contract, so every
// backend holds them with no code of its own and every process sharing a
// backend sees the same records. No client can reach the namespace: client
// namespaces start with a 12-digit account ID (docs/adr/0011).
const (
	storeNamespace = "_iam"
	storeTable     = "credentials"
)

// Errors of the credential store.
var (
	ErrExists   = errors.New("auth: already exists")
	ErrNotFound = errors.New("auth: not found")
)

// Account is one account: a namespace of tables per region.
type Account struct {
	ID      string // 12 digits
	Name    string
	Created time.Time
}

// User is a principal of an account that holds access keys.
type User struct {
	Account string
	Name    string
	Created time.Time
	// Root marks the account's root user (the bootstrap admin): like an
	// AWS account's root user, it is not subject to identity policies.
	Root bool `json:",omitempty"`
}

// ARN is the user's ARN, e.g. arn:aws:iam::111122223333:user/alice.
func (u User) ARN() string { return "arn:aws:iam::" + u.Account + ":user/" + u.Name }

// AccessKey is a user's long-term credential.
type AccessKey struct {
	ID      string // AKIA followed by 16 upper-case letters and digits
	Account string
	User    string
	Secret  string `json:"-"`          // plain text in memory only; stored sealed
	Sealed  []byte `json:",omitempty"` // the secret, sealed with the server key; nil in lists
	Status  string // "Active" or "Inactive"
	Created time.Time

	// Temporary keys (ASIA..., from STS): the SHA-256 of the session
	// token, the expiry, and for AssumeRole the role and session names.
	TokenHash []byte    `json:",omitempty"`
	Expires   time.Time `json:",omitzero"`
	Role      string    `json:",omitempty"`
	Session   string    `json:",omitempty"`

	principal string // the user's ARN, set by the authenticator's cache
}

// Store is the credential store on a storage backend.
type Store struct {
	b      storage.Backend
	t      *storage.Table
	sealer *Sealer
}

// OpenStore opens (creating on first use) the credential store on b.
func OpenStore(ctx context.Context, b storage.Backend, sealer *Sealer) (*Store, error) {
	t, err := b.GetTable(ctx, storeNamespace, storeTable)
	if errors.Is(err, storage.ErrTableNotFound) {
		nt := &storage.Table{
			Account:              storeNamespace,
			Name:                 storeTable,
			ID:                   uuid.NewString(),
			KeySchema:            []storage.KeyElement{{AttributeName: "id", KeyType: "HASH"}},
			AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "id", AttributeType: "S"}},
			BillingMode:          "PAY_PER_REQUEST",
			TableClass:           "STANDARD",
			Status:               storage.StatusActive,
			CreatedAt:            time.Now(),
		}
		if err = b.CreateTable(ctx, nt); err != nil && !errors.Is(err, storage.ErrTableExists) {
			return nil, fmt.Errorf("auth: create credential store: %w", err)
		}
		t, err = b.GetTable(ctx, storeNamespace, storeTable)
	}
	if err != nil {
		return nil, fmt.Errorf("auth: open credential store: %w", err)
	}
	return &Store{b: b, t: t, sealer: sealer}, nil
}

func recordKey(id string) storage.Key { return storage.Key{PK: item.EncodeKey(item.S(id))} }

// get reads the record id into v; ErrNotFound when absent.
func (s *Store) get(ctx context.Context, id string, v any) error {
	it, err := s.b.GetItem(ctx, s.t, recordKey(id), true)
	if err != nil {
		return err
	}
	if it == nil {
		return ErrNotFound
	}
	return json.Unmarshal(it["doc"].B, v)
}

// put writes record id; with create set it fails with ErrExists when the
// record is there already.
func (s *Store) put(ctx context.Context, id string, v any, create bool) error {
	doc, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.b.Mutate(ctx, s.t, recordKey(id), func(old item.Item) (item.Item, error) {
		if create && old != nil {
			return nil, ErrExists
		}
		return item.Item{"id": item.S(id), "doc": item.B(doc)}, nil
	})
}

func (s *Store) del(ctx context.Context, id string) error {
	return s.b.Mutate(ctx, s.t, recordKey(id), func(old item.Item) (item.Item, error) {
		if old == nil {
			return nil, ErrNotFound
		}
		return nil, nil
	})
}

// list returns the records of s whose id starts with prefix, decoded from
// JSON, those keep accepts (keep nil: all; keep may clear fields), in
// ascending order of key. On a decoding error it returns the records
// decoded before it with the error.
func list[T any](ctx context.Context, s *Store, prefix string, keep func(*T) bool, key func(T) string) ([]T, error) {
	var docs [][]byte
	err := s.b.Scan(ctx, s.t, &storage.ScanRequest{Consistent: true}, func(r storage.Row) bool {
		if strings.HasPrefix(r.Item["id"].S, prefix) {
			docs = append(docs, r.Item["doc"].B)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	var out []T
	for _, d := range docs {
		var v T
		if err = json.Unmarshal(d, &v); err != nil {
			break
		}
		if keep == nil || keep(&v) {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return key(out[i]) < key(out[j]) })
	return out, err
}

var (
	accountIDRE = regexp.MustCompile(`^[0-9]{12}$`)
	nameRE      = regexp.MustCompile(`^[\w+=,.@-]{1,64}$`)
)

// CreateAccount creates an account; id "" picks a random 12-digit ID.
func (s *Store) CreateAccount(ctx context.Context, id, name string) (Account, error) {
	if id == "" {
		n, err := rand.Int(rand.Reader, big.NewInt(9e11))
		if err != nil {
			return Account{}, err
		}
		id = fmt.Sprintf("%012d", n.Int64()+1e11)
	}
	if !accountIDRE.MatchString(id) {
		return Account{}, fmt.Errorf("account ID %q is not 12 digits", id)
	}
	a := Account{ID: id, Name: name, Created: time.Now().UTC()}
	if err := s.put(ctx, "account#"+id, a, true); err != nil {
		return Account{}, fmt.Errorf("account %s: %w", id, err)
	}
	return a, nil
}

// GetAccount returns an account or ErrNotFound.
func (s *Store) GetAccount(ctx context.Context, id string) (Account, error) {
	var a Account
	err := s.get(ctx, "account#"+id, &a)
	return a, err
}

// ListAccounts returns every account, by ID.
func (s *Store) ListAccounts(ctx context.Context) ([]Account, error) {
	return list(ctx, s, "account#", nil, func(a Account) string { return a.ID })
}

// DeleteAccount deletes an account with its users, roles and their keys. Its
// tables stay in storage, unreachable until an account of that ID exists
// again.
func (s *Store) DeleteAccount(ctx context.Context, id string) error {
	users, err := s.ListUsers(ctx, id)
	roles, rerr := s.ListRoles(ctx, id)
	if err := errors.Join(err, rerr); err != nil {
		return err
	}
	for _, u := range users {
		if err := s.DeleteUser(ctx, id, u.Name); err != nil {
			return err
		}
	}
	for _, r := range roles {
		if err := s.DeleteRole(ctx, id, r.Name); err != nil {
			return err
		}
	}
	return s.del(ctx, "account#"+id)
}

// CreateUser creates a user in an existing account.
func (s *Store) CreateUser(ctx context.Context, account, name string) (User, error) {
	if !nameRE.MatchString(name) {
		return User{}, fmt.Errorf("user name %q: 1 to 64 letters, digits and +=,.@_-", name)
	}
	if _, err := s.GetAccount(ctx, account); err != nil {
		return User{}, fmt.Errorf("account %s: %w", account, err)
	}
	u := User{Account: account, Name: name, Created: time.Now().UTC()}
	if err := s.put(ctx, "user#"+account+"#"+name, u, true); err != nil {
		return User{}, fmt.Errorf("user %s: %w", name, err)
	}
	return u, nil
}

// ListUsers returns the users of an account, by name.
func (s *Store) ListUsers(ctx context.Context, account string) ([]User, error) {
	return list(ctx, s, "user#"+account+"#", nil, func(u User) string { return u.Name })
}

// DeleteUser deletes a user and its access keys.
func (s *Store) DeleteUser(ctx context.Context, account, name string) error {
	keys, err := s.ListAccessKeys(ctx, account, name)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := s.DeleteAccessKey(ctx, k.ID); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	pols, err := s.ListUserPolicies(ctx, account, name)
	if err != nil {
		return err
	}
	for _, p := range pols {
		if err := s.DeleteUserPolicy(ctx, account, name, p.Name); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	return s.del(ctx, "user#"+account+"#"+name)
}

const keyAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

// NewAccessKeyID returns a random key ID with prefix (AKIA for long-term
// keys): 20 characters of upper-case letters and digits, as AWS's.
func NewAccessKeyID(prefix string) string {
	return prefix + randomString(keyAlphabet, 20-len(prefix))
}

func randomString(alphabet string, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// CreateAccessKey creates a key for an existing user; id and secret ""
// are generated (AKIA... and 40 characters of base64 alphabet).
func (s *Store) CreateAccessKey(ctx context.Context, account, user, id, secret string) (AccessKey, error) {
	var u User
	if err := s.get(ctx, "user#"+account+"#"+user, &u); err != nil {
		return AccessKey{}, fmt.Errorf("user %s of account %s: %w", user, account, err)
	}
	if id == "" {
		id = NewAccessKeyID("AKIA")
	}
	if secret == "" {
		secret = randomString("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 40)
	}
	if len(id) < 16 || len(id) > 128 || strings.ContainsAny(id, "/ ,=") {
		return AccessKey{}, fmt.Errorf("access key ID %q: 16 to 128 characters without '/', ',', '=' or spaces", id)
	}
	k := AccessKey{ID: id, Account: account, User: user, Secret: secret, Status: "Active", Created: time.Now().UTC()}
	k.Sealed = s.sealer.Seal([]byte(secret), []byte(id))
	if err := s.put(ctx, "key#"+id, k, true); err != nil {
		return AccessKey{}, fmt.Errorf("access key %s: %w", id, err)
	}
	return k, nil
}

// GetAccessKey returns a key with its secret opened; ErrNotFound when absent.
func (s *Store) GetAccessKey(ctx context.Context, id string) (AccessKey, error) {
	var k AccessKey
	if err := s.get(ctx, "key#"+id, &k); err != nil {
		return AccessKey{}, err
	}
	plain, err := s.sealer.Open(k.Sealed, []byte(id))
	if err != nil {
		return AccessKey{}, fmt.Errorf("access key %s: %w", id, err)
	}
	k.Secret = string(plain)
	return k, nil
}

// ListAccessKeys returns a user's keys (without their secrets), by ID.
func (s *Store) ListAccessKeys(ctx context.Context, account, user string) ([]AccessKey, error) {
	mine := func(k *AccessKey) bool {
		k.Sealed = nil
		return k.Account == account && (user == "" || k.User == user)
	}
	return list(ctx, s, "key#", mine, func(k AccessKey) string { return k.ID })
}

// DeleteAccessKey deletes a key; requests signed with it are refused
// within the authenticator's cache lifetime (KeyCacheTTL).
func (s *Store) DeleteAccessKey(ctx context.Context, id string) error {
	return s.del(ctx, "key#"+id)
}

// Bootstrap makes sure the account, its user "admin" and the key id with
// this secret exist, replacing the secret of an existing key of that ID.
func (s *Store) Bootstrap(ctx context.Context, account, id, secret string) error {
	if _, err := s.CreateAccount(ctx, account, "default"); err != nil && !errors.Is(err, ErrExists) {
		return err
	}
	if err := s.put(ctx, "user#"+account+"#admin", User{Account: account, Name: "admin", Created: time.Now().UTC(), Root: true}, false); err != nil {
		return err
	}
	if cur, err := s.GetAccessKey(ctx, id); err == nil && cur.Secret == secret && cur.Account == account {
		return nil
	}
	if err := s.DeleteAccessKey(ctx, id); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	_, err := s.CreateAccessKey(ctx, account, "admin", id, secret)
	return err
}

// Empty reports whether the store holds no access key at all.
func (s *Store) Empty(ctx context.Context) (bool, error) {
	empty := true
	err := s.b.Scan(ctx, s.t, &storage.ScanRequest{}, func(r storage.Row) bool {
		if strings.HasPrefix(r.Item["id"].S, "key#") {
			empty = false
			return false
		}
		return true
	})
	return empty, err
}

// HasCredentials reports whether b holds a credential store with at least
// one access key, without creating anything (the local mode must not
// touch storage it does not use).
func HasCredentials(ctx context.Context, b storage.Backend) (bool, error) {
	t, err := b.GetTable(ctx, storeNamespace, storeTable)
	if errors.Is(err, storage.ErrTableNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("auth: credential store: %w", err)
	}
	empty, err := (&Store{b: b, t: t}).Empty(ctx)
	return !empty, err
}
