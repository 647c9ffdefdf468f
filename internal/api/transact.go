package api

import (
	"encoding/json"
	"errors"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Shared parts of TransactWriteItems and TransactGetItems: limits, the
// TransactionCanceledException with its CancellationReasons, per-action key
// validation and transactional capacity.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html

// Transaction limits.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html
const (
	maxTransactItems    = 100
	maxTransactBytes    = 4 << 20
	maxClientTokenChars = 36
)

// cancellationReason is one entry of CancellationReasons, in the shape the
// AWS SDKs parse: Code is always present ("None" for an action that was
// fine), Message and Item only when there is one.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CancellationReason.html
type cancellationReason struct {
	Code    string
	Message string    `json:"Message,omitempty"`
	Item    item.Item `json:"Item,omitempty"`
}

// transactionCanceled is TransactionCanceledException carrying reasons, in
// request order. Its message lists every reason's code:
// "Transaction cancelled, please refer cancellation reasons for specific
// reasons [None, ConditionalCheckFailed]".
func transactionCanceled(reasons []cancellationReason) error {
	codes := make([]string, len(reasons))
	for i, r := range reasons {
		codes[i] = r.Code
	}
	return ddberr.TransactionCanceled("Transaction cancelled, please refer cancellation reasons for specific reasons [%s]",
		strings.Join(codes, ", ")).With("CancellationReasons", reasons)
}

// txConflictMessage is DynamoDB's message for an item another transaction
// holds, as a TransactionConflict cancellation reason and as a
// TransactionConflictException.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html#API_TransactWriteItems_Errors
const txConflictMessage = "Transaction is ongoing for the item"

// asCancellation turns a *storage.TransactionError into DynamoDB's
// TransactionCanceledException; any other error is returned unchanged.
func asCancellation(err error) error {
	var te *storage.TransactionError
	if !errors.As(err, &te) {
		return err
	}
	reasons, rerr := cancellationReasons(te)
	if rerr != nil {
		return rerr
	}
	return transactionCanceled(reasons)
}

// cancellationReasons turns the per-mutation errors of a
// *storage.TransactionError into CancellationReasons. An error that is not a
// DynamoDB error is a fault of the server and is returned as such.
func cancellationReasons(te *storage.TransactionError) ([]cancellationReason, error) {
	out := make([]cancellationReason, len(te.Reasons))
	for i, err := range te.Reasons {
		if err == nil {
			out[i] = cancellationReason{Code: "None"}
			continue
		}
		if errors.Is(err, storage.ErrTransactionConflict) {
			out[i] = cancellationReason{Code: "TransactionConflict", Message: txConflictMessage}
			continue
		}
		var de *ddberr.Error
		if !errors.As(err, &de) {
			return nil, err
		}
		out[i] = reasonOf(de)
	}
	return out, nil
}

// reasonOf maps a DynamoDB error raised by one action to its cancellation
// reason: ConditionalCheckFailedException becomes ConditionalCheckFailed
// (with the item when ReturnValuesOnConditionCheckFailure is ALL_OLD),
// ValidationException becomes ValidationError, and any other error its name
// without "Exception".
func reasonOf(de *ddberr.Error) cancellationReason {
	switch de.Name() {
	case "ConditionalCheckFailedException":
		r := cancellationReason{Code: "ConditionalCheckFailed", Message: de.Message}
		if it, ok := de.Extra["Item"].(item.Item); ok {
			r.Item = it
		}
		return r
	case "ValidationException":
		return cancellationReason{Code: "ValidationError", Message: de.Message}
	}
	return cancellationReason{Code: strings.TrimSuffix(de.Name(), "Exception"), Message: de.Message}
}

// isEmptyKeyValue reports whether err rejects an empty string or binary key
// value (of the table or of an index). DynamoDB reports that as a
// ValidationException of the whole request, while other key mismatches
// cancel the transaction with a ValidationError reason.
// https://github.com/getmoto/moto/blob/master/tests/test_dynamodb/exceptions/test_dynamodb_transactions.py (test_transaction_with_empty_key, AWS-verified)
// https://github.com/nubo-db/dynoxide/pull/99 (captured from DynamoDB)
func isEmptyKeyValue(err error) bool {
	var de *ddberr.Error
	return errors.As(err, &de) && strings.HasPrefix(de.Message, "One or more parameter values are not valid.")
}

// actionKeys validates each action's key against its table (done by keyOf)
// the way DynamoDB does inside a transaction: an empty key value fails the
// request at once; any other mismatch cancels the transaction before
// anything runs, with a ValidationError for that action and None for the
// others.
func actionKeys(n int, keyOf func(i int) error) error {
	var reasons []cancellationReason
	for i := range n {
		err := keyOf(i)
		if err == nil {
			continue
		}
		var de *ddberr.Error
		if isEmptyKeyValue(err) || !errors.As(err, &de) || de.Name() != "ValidationException" {
			return err
		}
		if reasons == nil {
			reasons = make([]cancellationReason, n)
			for j := range reasons {
				reasons[j] = cancellationReason{Code: "None"}
			}
		}
		reasons[i] = reasonOf(de)
	}
	if reasons != nil {
		return transactionCanceled(reasons)
	}
	return nil
}

// errMultipleOperations is DynamoDB's answer to two actions on one item.
// https://github.com/getmoto/moto/blob/master/tests/test_dynamodb/exceptions/test_dynamodb_transactions.py (AWS-verified)
func errMultipleOperations() error {
	return ddberr.Validation("Transaction request cannot include multiple operations on one item")
}

// errNotOneAction is DynamoDB's answer to a TransactWriteItems member
// with no action or several.
// https://github.com/getmoto/moto/blob/master/moto/dynamodb/exceptions.py (TransactWriteSingleOpException)
func errNotOneAction() error {
	return ddberr.Validation("TransactItems can only contain one of Check, Put, Update or Delete")
}

// errTransactionTooLarge is DynamoDB's answer to a transaction whose items
// add up to more than 4 MB.
// https://github.com/nubo-db/dynoxide/blob/main/src/actions/transact_write_items.rs
func errTransactionTooLarge() error {
	return ddberr.Validation("Collection size of items exceeded, which can also be caused by the aggregate size of the items in the transaction exceeding the 4MB limit")
}

// txTarget is the item one action of a transaction reads or writes.
type txTarget struct {
	t   *storage.Table
	key storage.Key
}

// targetClaims refuses a transaction with two actions on one item: each
// action claims its target, in the order of the request.
type targetClaims map[string]bool

// claim records tg, or answers DynamoDB's error when an earlier action
// of the transaction has claimed the same item.
func (c targetClaims) claim(tg *txTarget) error {
	id := itemID(tg.t, tg.key)
	if c[id] {
		return errMultipleOperations()
	}
	c[id] = true
	return nil
}

// itemID identifies an item across tables for duplicate detection.
func itemID(t *storage.Table, k storage.Key) string {
	return t.ID + "\x00" + string(k.PK) + "\x00" + string(k.SK)
}

// transactItemsTooMany renders DynamoDB's length constraint on transactItems,
// whose value is the Java rendering of the list: each member's class name
// and a hash code. member names the class (TransactWriteItem or
// TransactGetItem); the hash codes here derive from each member's JSON.
// https://github.com/getmoto/moto/blob/master/moto/dynamodb/responses.py (transact_get_items)
func transactItemsTooMany(member string, raw []string) string {
	var b strings.Builder
	b.WriteString("Value '[")
	for i, r := range raw {
		if i > 0 {
			b.WriteString(", ")
		}
		h := fnv.New32a()
		h.Write([]byte(r))
		h.Write([]byte{byte(i), byte(i >> 8)})
		b.WriteString("com.amazonaws.dynamodb.v20120810.")
		b.WriteString(member)
		b.WriteByte('@')
		b.WriteString(strconv.FormatUint(uint64(h.Sum32()), 16))
	}
	b.WriteString("]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to ")
	b.WriteString(itoa(maxTransactItems))
	return b.String()
}

// transactItemsRule is the TransactItems member of TransactGetItems or
// TransactWriteItems, whose entries are of type member ("TransactGetItem",
// "TransactWriteItem"): present, 1 to 100 entries (the message of a longer
// list quotes them all), each entry checked by each at its path,
// "transactItems.N.member".
func transactItemsRule[T, I any](member string, list func(*T) []I, each func(c *constraints, path string, it *I)) rule[T] {
	return func(in *T, c *constraints) {
		items := list(in)
		if !c.notNull(items != nil, "transactItems") {
			return
		}
		switch {
		case len(items) < 1:
			c.add("Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1")
		case len(items) > maxTransactItems:
			raw := make([]string, len(items))
			for i := range items {
				b, _ := json.Marshal(&items[i])
				raw[i] = string(b)
			}
			c.add("%s", transactItemsTooMany(member, raw))
		}
		for i := range items {
			each(c, "transactItems."+itoa(i+1)+".member", &items[i])
		}
	}
}

// txCapacity is the ConsumedCapacity list of a transaction, one entry per
// table in the order the tables first appear in the request. Besides
// CapacityUnits it reports the read or write split (ReadCapacityUnits for
// TransactGetItems, WriteCapacityUnits for TransactWriteItems), for the
// table and each index when INDEXES is requested.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ConsumedCapacity.html
type txCapacity struct {
	b    *batchCapacity
	kind string // "ReadCapacityUnits" or "WriteCapacityUnits"
}

func newTxCapacity(mode *string, kind string) *txCapacity {
	b := newBatchCapacity(capacityMode(mode))
	if b == nil {
		return nil
	}
	return &txCapacity{b: b, kind: kind}
}

// of returns the accumulator of table name, or nil when capacity is not
// being reported.
func (c *txCapacity) of(name string) *consumed {
	if c == nil {
		return nil
	}
	return c.b.of(name)
}

func (c *txCapacity) appendUnits(dst []byte, v float64) []byte {
	dst = append(dst, `{"CapacityUnits":`...)
	dst = appendUnits(dst, v)
	dst = append(dst, `,"`...)
	dst = append(dst, c.kind...)
	dst = append(dst, `":`...)
	dst = appendUnits(dst, v)
	return append(dst, '}')
}

func (c *txCapacity) appendJSON(dst []byte) []byte {
	dst = append(dst, '[')
	for i, name := range c.b.order {
		if i > 0 {
			dst = append(dst, ',')
		}
		t := c.b.tables[name]
		dst = append(dst, `{"TableName":`...)
		dst = strconv.AppendQuote(dst, name)
		dst = append(dst, `,"CapacityUnits":`...)
		dst = appendUnits(dst, t.total())
		dst = append(dst, `,"`...)
		dst = append(dst, c.kind...)
		dst = append(dst, `":`...)
		dst = appendUnits(dst, t.total())
		if t.mode == capIndexes {
			dst = append(dst, `,"Table":`...)
			dst = c.appendUnits(dst, t.units)
			dst = c.appendIndexes(dst, "LocalSecondaryIndexes", t.lsi)
			dst = c.appendIndexes(dst, "GlobalSecondaryIndexes", t.gsi)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

func (c *txCapacity) appendIndexes(dst []byte, member string, m map[string]float64) []byte {
	if len(m) == 0 {
		return dst
	}
	dst = append(dst, ',', '"')
	dst = append(dst, member...)
	dst = append(dst, `":{`...)
	for i, name := range sortedKeys(m) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendQuote(dst, name)
		dst = append(dst, ':')
		dst = c.appendUnits(dst, m[name])
	}
	return append(dst, '}')
}
