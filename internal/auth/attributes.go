package auth

import (
	"encoding/json"

	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
)

// The condition key dynamodb:Attributes lists the top-level attribute
// names a request reads or writes
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html):
// the names of its Key and Item, of its ProjectionExpression or
// AttributesToGet, of the paths its ConditionExpression, FilterExpression,
// KeyConditionExpression and UpdateExpression read or write, and of its
// legacy KeyConditions, QueryFilter, ScanFilter, Expected and
// AttributeUpdates. A read that returns whole items (no projection, Select
// other than COUNT) and a PartiQL statement do not name their attributes:
// the key cannot be derived and statements conditioned on it fail closed,
// so that ForAllValues never allows attributes a policy leaves out.
// Requests that touch no item (control plane) do not have the key.
const attributesKey = "dynamodb:attributes"

// attrParams are the request parameters that name attributes, besides
// Key, Item and the key conditions.
type attrParams struct {
	ProjectionExpression, FilterExpression, ConditionExpression, UpdateExpression string
	AttributesToGet                                                               []string
	AttributeUpdates, Expected, QueryFilter, ScanFilter                           map[string]json.RawMessage
}

// txItem is one item action of a transaction.
type txItem struct {
	TableName                 string
	Key, Item                 keyItem
	ProjectionExpression      string
	ConditionExpression       string
	UpdateExpression          string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]json.RawMessage
}

// attrNames collects the names of one item action; ok turns false when an
// expression does not parse (the engine refuses the request, authorization
// fails closed).
type attrNames struct {
	names  map[string]string
	values map[string]item.AttributeValue
	out    []string
	ok     bool
}

func newAttrNames(names map[string]string, raw map[string]json.RawMessage) *attrNames {
	a := &attrNames{names: names, values: map[string]item.AttributeValue{}, ok: true}
	for k, v := range raw {
		var av item.AttributeValue
		if json.Unmarshal(v, &av) != nil {
			a.ok = false
		}
		a.values[k] = av
	}
	return a
}

func (a *attrNames) add(names ...string) {
	for _, n := range names {
		dup := false
		for _, o := range a.out {
			dup = dup || o == n
		}
		if !dup {
			a.out = append(a.out, n)
		}
	}
}

func (a *attrNames) item(it keyItem) {
	for n := range it {
		a.add(n)
	}
}

func (a *attrNames) keys(m map[string]json.RawMessage) {
	for n := range m {
		a.add(n)
	}
}

func (a *attrNames) cond(kind expr.Kind, s string) {
	if s == "" {
		return
	}
	c, err := expr.ParseCondition(kind, s, a.names, a.values, nil)
	if err != nil {
		a.ok = false
		return
	}
	a.add(c.TopLevelNames()...)
}

func (a *attrNames) update(s string) {
	if s == "" {
		return
	}
	u, err := expr.ParseUpdate(s, a.names, a.values, nil)
	if err != nil {
		a.ok = false
		return
	}
	a.add(u.TopLevelNames()...)
}

// projection adds a read's projected names; a read without projection
// returns whole items, whose names the request does not give.
func (a *attrNames) projection(s string, attributesToGet []string) {
	switch {
	case s != "":
		p, err := expr.ParseProjection(s, a.names, nil)
		if err != nil {
			a.ok = false
			return
		}
		a.add(p.TopLevelNames()...)
	case attributesToGet != nil:
		a.add(attributesToGet...)
	default:
		a.ok = false
	}
}

// attributesOf is the dynamodb:Attributes value of one check: the names,
// whether they are known, and whether the request has the key at all.
func attributesOf(op string, b *authzBody, chk *check) (names []string, known, present bool) {
	if chk.tx != nil {
		t := chk.tx
		a := newAttrNames(t.ExpressionAttributeNames, t.ExpressionAttributeValues)
		a.item(t.Key)
		a.item(t.Item)
		a.cond(expr.KindCondition, t.ConditionExpression)
		a.update(t.UpdateExpression)
		if chk.action == "dynamodb:GetItem" {
			a.projection(t.ProjectionExpression, nil)
		}
		return a.out, a.ok, true
	}
	switch op {
	case "BatchGetItem":
		var t struct {
			Keys                     []keyItem
			ProjectionExpression     string
			AttributesToGet          []string
			ExpressionAttributeNames map[string]string
		}
		_ = json.Unmarshal(b.RequestItems[chk.table], &t)
		a := newAttrNames(t.ExpressionAttributeNames, nil)
		for _, k := range t.Keys {
			a.item(k)
		}
		a.projection(t.ProjectionExpression, t.AttributesToGet)
		return a.out, a.ok, true
	case "BatchWriteItem":
		a := newAttrNames(nil, nil)
		for _, it := range batchItems(op, b.RequestItems[chk.table]) {
			a.item(it)
		}
		return a.out, a.ok, true
	case "GetItem", "Query", "Scan", "PutItem", "UpdateItem", "DeleteItem":
		return singleItemAttributes(op, b)
	}
	return nil, false, false
}

// singleItemAttributes is attributesOf for the operations on one item or
// one read of a table.
func singleItemAttributes(op string, b *authzBody) ([]string, bool, bool) {
	a := newAttrNames(b.ExpressionAttributeNames, b.ExpressionAttributeValues)
	a.item(b.Key)
	a.item(b.Item)
	for n := range b.KeyConditions {
		a.add(n)
	}
	a.keys(b.QueryFilter)
	a.keys(b.ScanFilter)
	a.keys(b.Expected)
	a.keys(b.AttributeUpdates)
	a.cond(expr.KindCondition, b.KeyConditionExpression)
	a.cond(expr.KindCondition, b.ConditionExpression)
	a.cond(expr.KindFilter, b.FilterExpression)
	a.update(b.UpdateExpression)
	switch op {
	case "GetItem", "Query", "Scan":
		if b.Select != "COUNT" {
			a.projection(b.ProjectionExpression, b.AttributesToGet)
		}
	}
	return a.out, a.ok, true
}
