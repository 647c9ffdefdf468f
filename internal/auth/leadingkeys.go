package auth

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/policy"
	"github.com/extenddb/extenddb/internal/storage"
)

// The condition key dynamodb:LeadingKeys holds the partition key values a
// request names: the Key or Item of single-item and transaction actions,
// every key of a table in a batch, and the partition key value of a
// Query's key condition (on the index queried, when there is one). A
// request that names none (Scan, ListTables, PartiQL) does not have the
// key, so ForAllValues conditions on it hold, as AWS documents for absent
// keys. See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html
// and
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-single-vs-multi-valued-context-keys.html.
const leadingKeysKey = "dynamodb:leadingkeys"

// TableReader reads a table's catalog entry: storage.Catalog's GetTable.
type TableReader func(ctx context.Context, namespace, name string) (*storage.Table, error)

// keySchemas caches, per table, the partition key attribute names of the
// table and its indexes and its resource-based policies, for as long as
// access keys are cached (KeyCacheTTL).
type keySchemas struct {
	read TableReader
	mu   sync.RWMutex
	m    map[[2]string]schemaEntry
}

type schemaEntry struct {
	keys map[string]expr.KeySchema // index name ("" for the table) -> key schema
	// policies are the parsed resource-based policies of the table (key
	// "") and of its streams (key: stream label).
	policies map[string][]*policy.Document
	fetched  time.Time
}

// maxSchemaEntries bounds the cache; when full it starts over.
const maxSchemaEntries = 4096

// schema is the key schema of a table (index "") or of one of its
// indexes; PartitionKey is "" when the table or index does not exist.
func (k *keySchemas) schema(ctx context.Context, now time.Time, ns, table, index string) expr.KeySchema {
	return k.entry(ctx, now, ns, table).keys[index]
}

// entry is the cached entry of a table, read again when older than
// KeyCacheTTL; a table that does not exist has an empty entry, not kept
// (the table may be created at once).
func (k *keySchemas) entry(ctx context.Context, now time.Time, ns, table string) schemaEntry {
	key := [2]string{ns, table}
	k.mu.RLock()
	e, ok := k.m[key]
	k.mu.RUnlock()
	if ok && now.Sub(e.fetched) < KeyCacheTTL {
		return e
	}
	t, err := k.read(ctx, ns, table)
	e = schemaEntry{keys: map[string]expr.KeySchema{}, fetched: now}
	if err == nil && t != nil {
		e.keys[""] = keySchemaOf(t.KeySchema)
		for _, ix := range t.Indexes {
			e.keys[ix.IndexName] = keySchemaOf(ix.KeySchema)
		}
		e.policies = parseResourcePolicies(t.ResourcePolicies)
	}
	if err != nil || t == nil {
		return e
	}
	k.mu.Lock()
	if k.m == nil || len(k.m) >= maxSchemaEntries {
		k.m = map[[2]string]schemaEntry{}
	}
	k.m[key] = e
	k.mu.Unlock()
	return e
}

func keySchemaOf(ks []storage.KeyElement) expr.KeySchema {
	var s expr.KeySchema
	h, r := storage.KeyParts(ks)
	if len(h) > 0 {
		s.PartitionKey = h[0]
	}
	if len(r) > 0 {
		s.SortKey = r[0]
	}
	return s
}

// keyValue renders an attribute value as a condition value: a string or
// number as its text, binary as its base64 text; "" for other types.
func keyValue(raw json.RawMessage) (string, bool) {
	var v struct {
		S, N, B *string
	}
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch {
	case v.S != nil:
		return *v.S, true
	case v.N != nil:
		return *v.N, true
	case v.B != nil:
		return *v.B, true
	}
	return "", false
}

// keyItem is a Key or Item: attribute names to raw attribute values.
type keyItem map[string]json.RawMessage

// leading appends the value of attribute pk of each item to out.
func leading(out []string, pk string, items ...keyItem) []string {
	for _, it := range items {
		if v, ok := keyValue(it[pk]); ok {
			out = append(out, v)
		}
	}
	return out
}

// queryLeadingKey is the partition key value of a Query's
// KeyConditionExpression or legacy KeyConditions, if it names one.
func queryLeadingKey(b *authzBody, ks expr.KeySchema) (string, bool) {
	pk := ks.PartitionKey
	if c, ok := b.KeyConditions[pk]; ok && len(c.AttributeValueList) > 0 {
		return keyValue(c.AttributeValueList[0])
	}
	if b.KeyConditionExpression == "" {
		return "", false
	}
	values := map[string]item.AttributeValue{}
	for name, raw := range b.ExpressionAttributeValues {
		var av item.AttributeValue
		if json.Unmarshal(raw, &av) != nil {
			return "", false
		}
		values[name] = av
	}
	kc, err := expr.ParseKeyCondition(b.KeyConditionExpression, b.ExpressionAttributeNames, values, nil, ks)
	if err != nil || kc.PartitionKey != pk {
		return "", false
	}
	raw, err := json.Marshal(kc.PartitionValue)
	if err != nil {
		return "", false
	}
	return keyValue(raw)
}

// usesKey reports whether a statement of docs has a condition on key.
func usesKey(docs []*policy.Document, key string) bool {
	for _, d := range docs {
		for i := range d.Statement {
			for _, keys := range d.Statement[i].Condition {
				if _, ok := keys[key]; ok {
					return true
				}
			}
		}
	}
	return false
}

// withKey is ctx with key set to values (or without key when !present),
// leaving ctx unchanged.
func withKey(ctx map[string][]string, key string, values []string, present bool) map[string][]string {
	out := make(map[string][]string, len(ctx)+1)
	for k, v := range ctx {
		out[k] = v
	}
	if present {
		out[key] = values
	}
	return out
}

// addLeadingKeys fills the LeadingKeys values of each check of an item
// operation from the partition key of its table (or index) in namespace ns.
func (a *Authenticator) addLeadingKeys(ctx context.Context, ns, op string, b *authzBody, checks []check) {
	now := a.cfg.Now()
	for i := range checks {
		chk := &checks[i]
		if chk.table == "" {
			continue
		}
		ks := a.tables.schema(ctx, now, ns, tableNameOf(chk.table), chk.index)
		if ks.PartitionKey == "" {
			continue
		}
		switch op {
		case "Query":
			if v, ok := queryLeadingKey(b, ks); ok {
				chk.leading, chk.hasLeading = []string{v}, true
			}
			continue
		case "BatchGetItem", "BatchWriteItem":
			chk.items = batchItems(op, b.RequestItems[chk.table])
		case "Scan":
			continue
		}
		chk.leading = leading(nil, ks.PartitionKey, chk.items...)
		chk.hasLeading = len(chk.leading) > 0
	}
}

// batchItems are the keys (BatchGetItem) or the items and keys
// (BatchWriteItem) of one table of a batch.
func batchItems(op string, raw json.RawMessage) []keyItem {
	if op == "BatchGetItem" {
		var t struct{ Keys []keyItem }
		_ = json.Unmarshal(raw, &t)
		return t.Keys
	}
	var reqs []struct {
		PutRequest    struct{ Item keyItem }
		DeleteRequest struct{ Key keyItem }
	}
	_ = json.Unmarshal(raw, &reqs)
	out := make([]keyItem, 0, len(reqs))
	for _, r := range reqs {
		out = append(out, r.PutRequest.Item, r.DeleteRequest.Key)
	}
	return out
}
