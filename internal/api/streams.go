package api

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// DynamoDB Streams on the DynamoDB endpoint (X-Amz-Target
// DynamoDBStreams_20120810.<Operation>): ListStreams, DescribeStream,
// GetShardIterator and GetRecords. A table's stream is identified by its
// label (LatestStreamLabel) and has one shard; records come from the
// backend's storage.StreamStore. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Operations_Amazon_DynamoDB_Streams.html
// and docs/streams-and-ttl.md.

// streamOps maps each DynamoDB Streams operation to its handler.
var streamOps = map[string]opFunc{
	"ListStreams":      listStreamsOp.handler(),
	"DescribeStream":   describeStreamOp.handler(),
	"GetShardIterator": getShardIteratorOp.handler(),
	"GetRecords":       getRecordsOp.handler(),
}

// The Streams operations: the member rules, the stream ARN's form (or the
// shard iterator's), then the stream. A stream ARN that is not one is
// errInvalidStreamArn; a table or stream that does not exist is
// errStreamNotFound.
var (
	listStreamsOp = &controlOp[listStreamsInput]{
		rules: listStreamsRules,
		table: func(e *Engine, ctx context.Context, c caller, in *listStreamsInput) (*storage.Table, error) {
			if in.TableName == nil {
				return nil, nil
			}
			return e.lookup(ctx, c.account, *in.TableName, lookupControl)
		},
		execute: (*Engine).listStreams,
	}
	describeStreamOp   = streamArnOp(describeStreamRules, (*Engine).describeStream)
	getShardIteratorOp = streamArnOp(getShardIteratorRules, (*Engine).getShardIterator)
	getRecordsOp       = &controlOp[getRecordsInput]{
		rules:   getRecordsRules,
		check:   (*Engine).checkGetRecords,
		table:   byStreamArn[getRecordsInput](),
		execute: (*Engine).getRecords,
	}
)

// IteratorLifetime is how long a shard iterator stays valid.
const IteratorLifetime = 15 * time.Minute

// streamRef is a parsed stream ARN.
type streamRef struct {
	arn, region, table, label string
}

// parseStreamArn parses arn:aws:dynamodb:REGION:ACCOUNT:table/NAME/stream/LABEL.
func parseStreamArn(arn string) (streamRef, bool) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "dynamodb" {
		return streamRef{}, false
	}
	rest, ok := strings.CutPrefix(parts[5], "table/")
	if !ok {
		return streamRef{}, false
	}
	name, label, ok := strings.Cut(rest, "/stream/")
	if !ok || name == "" || label == "" {
		return streamRef{}, false
	}
	return streamRef{arn: arn, region: parts[3], table: name, label: label}, true
}

// errInvalidStreamArn is DynamoDB Streams' answer to a StreamArn that is
// not a stream ARN at all, as AWS SDK users quote it ("Invalid StreamArn
// (Service: AmazonDynamoDBStreams; Status Code: 400; Error Code:
// ValidationException", amazon-archives/logstash-input-dynamodb issue 18);
// a well-formed ARN of a stream that does not exist is
// ResourceNotFoundException.
func errInvalidStreamArn() error { return ddberr.Validation("Invalid StreamArn") }

func errStreamNotFound(arn string) error {
	return ddberr.ResourceNotFound("Requested resource not found: Stream: %s not found", arn)
}

// streamError builds a DynamoDB Streams error; the service answers in the
// DynamoDB namespace.
func streamError(name, msg string) error {
	return &ddberr.Error{Type: "com.amazonaws.dynamodb.v20120810#" + name, Message: msg, Status: http.StatusBadRequest}
}

// streamTarget is the stream a Streams request is addressed to, once its
// ARN is parsed (parse, in the operation's check).
type streamTarget struct{ ref streamRef }

func (s *streamTarget) stream() *streamTarget { return s }

// parse reads a stream ARN; a value that is not one is errInvalidStreamArn.
func (s *streamTarget) parse(arn string) error {
	ref, ok := parseStreamArn(arn)
	if !ok {
		return errInvalidStreamArn()
	}
	s.ref = ref
	return nil
}

// streamArnInput is the StreamArn member of DescribeStream and
// GetShardIterator, with the stream once parsed.
type streamArnInput struct {
	streamTarget
	StreamArn *string
}

func (in *streamArnInput) streamArn() *streamArnInput { return in }

// streamArnOp is DescribeStream or GetShardIterator: the member rules, the
// StreamArn's form, then the stream.
func streamArnOp[T any, P interface {
	*T
	streamArn() *streamArnInput
	stream() *streamTarget
}](rs rules[T], execute func(e *Engine, ctx context.Context, c caller, in *T, t *storage.Table) (any, error)) *controlOp[T] {
	return &controlOp[T]{
		rules: rs,
		check: func(_ *Engine, _ caller, in *T) error {
			a := P(in).streamArn()
			return a.parse(*a.StreamArn)
		},
		table:   byStreamArn[T, P](),
		execute: execute,
	}
}

// byStreamArn resolves a parsed stream ARN to its table; the stream must
// be the table's latest (enabled, or disabled and still kept).
func byStreamArn[T any, P interface {
	*T
	stream() *streamTarget
}]() resolver[T] {
	return func(e *Engine, ctx context.Context, c caller, in *T) (*storage.Table, error) {
		ref := P(in).stream().ref
		t, err := e.lookup(ctx, c.account, ref.table, lookupControl)
		if err != nil || t.LatestStreamLabel != ref.label {
			return nil, errStreamNotFound(ref.arn)
		}
		return t, nil
	}
}

// streamOpen reports whether the stream labelled label of t still
// receives records.
func streamOpen(t *storage.Table, label string) bool {
	return t.Stream.StreamEnabled && t.LatestStreamLabel == label
}

// shardID names the one shard of a stream: its creation time in
// milliseconds and a hash of the table ID and label.
func shardID(t *storage.Table, label string) string {
	ms := int64(0)
	if at, err := time.ParseInLocation("2006-01-02T15:04:05.000", label, time.Local); err == nil {
		ms = at.UnixMilli()
	}
	h := sha256.Sum256([]byte(t.ID + "/" + label))
	return fmt.Sprintf("shardId-%020d-%s", ms, hex.EncodeToString(h[:4]))
}

type streamSummary struct {
	StreamArn   string
	StreamLabel string
	TableName   string
}

type listStreamsInput struct {
	TableName               *string
	Limit                   *int64
	ExclusiveStartStreamArn *string
}

type listStreamsOutput struct {
	Streams                []streamSummary
	LastEvaluatedStreamArn string `json:"LastEvaluatedStreamArn,omitempty"`
}

// listStreams is ListStreams: the streams of the account's tables (or of
// TableName), in table-name order.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_ListStreams.html
func (e *Engine) listStreams(ctx context.Context, c caller, in *listStreamsInput, named *storage.Table) (any, error) {
	limit := 100
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	account := c.account
	var names []string
	if named != nil {
		names = []string{named.Name}
	} else {
		var err error
		if names, err = e.store.ListTables(ctx, account); err != nil {
			return nil, err
		}
	}
	after := ""
	if in.ExclusiveStartStreamArn != nil {
		ref, ok := parseStreamArn(*in.ExclusiveStartStreamArn)
		if !ok {
			return nil, errInvalidStreamArn()
		}
		after = ref.table
	}
	out := listStreamsOutput{Streams: []streamSummary{}}
	for _, name := range names {
		if name <= after && after != "" {
			continue
		}
		t, err := e.lookup(ctx, account, name, lookupControl)
		if err != nil || t.LatestStreamLabel == "" {
			continue
		}
		if len(out.Streams) == limit {
			out.LastEvaluatedStreamArn = out.Streams[limit-1].StreamArn
			break
		}
		out.Streams = append(out.Streams, streamSummary{
			StreamArn:   e.tableArn(c.region, t) + "/stream/" + t.LatestStreamLabel,
			StreamLabel: t.LatestStreamLabel,
			TableName:   t.Name,
		})
	}
	return out, nil
}

type describeStreamInput struct {
	streamArnInput
	Limit                 *int64
	ExclusiveStartShardId *string
	ShardFilter           *shardFilter
}

// shardFilter is DescribeStream's ShardFilter: with Type CHILD_SHARDS, only
// the children of shard ShardId are described. A stream here has one shard
// per stream label, which never splits, so no shard has children.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_ShardFilter.html
type shardFilter struct {
	Type    *string
	ShardId *string
}

type sequenceNumberRange struct {
	StartingSequenceNumber string `json:"StartingSequenceNumber,omitempty"`
	EndingSequenceNumber   string `json:"EndingSequenceNumber,omitempty"`
}

type shardDescription struct {
	ShardId             string
	SequenceNumberRange sequenceNumberRange
	ParentShardId       string `json:"ParentShardId,omitempty"`
}

type streamDescription struct {
	StreamArn               string
	StreamLabel             string
	StreamStatus            string
	StreamViewType          string
	CreationRequestDateTime float64
	TableName               string
	KeySchema               []keySchemaElement
	Shards                  []shardDescription
	LastEvaluatedShardId    string `json:"LastEvaluatedShardId,omitempty"`
}

// describeStream is DescribeStream.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_DescribeStream.html
func (e *Engine) describeStream(ctx context.Context, _ caller, in *describeStreamInput, t *storage.Table) (any, error) {
	ref := in.ref
	b, err := e.store.StreamBounds(ctx, t.ID, ref.label)
	if err != nil {
		return nil, err
	}
	created := time.Time{}
	if at, err := time.ParseInLocation("2006-01-02T15:04:05.000", ref.label, time.Local); err == nil {
		created = at
	}
	d := streamDescription{
		StreamArn:               ref.arn,
		StreamLabel:             ref.label,
		StreamStatus:            "DISABLED",
		StreamViewType:          t.Stream.StreamViewType,
		CreationRequestDateTime: float64(created.UnixMilli()) / 1000,
		TableName:               t.Name,
		KeySchema:               keySchemaOut(t.KeySchema),
		Shards:                  []shardDescription{},
	}
	open := streamOpen(t, ref.label)
	if open {
		d.StreamStatus = "ENABLED"
	}
	id := shardID(t, ref.label)
	childrenOnly := in.ShardFilter != nil && in.ShardFilter.Type != nil && in.ShardFilter.ShardId != nil
	if !childrenOnly && (in.ExclusiveStartShardId == nil || *in.ExclusiveStartShardId < id) {
		start := b.First
		if start == 0 {
			start = max(b.Trimmed, b.Last) + 1
		}
		sh := shardDescription{ShardId: id, SequenceNumberRange: sequenceNumberRange{StartingSequenceNumber: storage.FormatSequenceNumber(start)}}
		if !open {
			sh.SequenceNumberRange.EndingSequenceNumber = storage.FormatSequenceNumber(max(b.Last, start))
		}
		d.Shards = append(d.Shards, sh)
	}
	return map[string]any{"StreamDescription": d}, nil
}

// shardIterator is the decoded form of a ShardIterator: the stream, the
// position (records after sequence number After) and when it was issued.
type shardIterator struct {
	Arn    string `json:"a"`
	Table  string `json:"t"` // table ID: a recreated table's iterators are stale
	Shard  string `json:"s"`
	After  uint64 `json:"p"`
	Issued int64  `json:"i"` // unix milliseconds
}

func (it *shardIterator) encode() string {
	b, _ := json.Marshal(it)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeShardIterator(s string) (*shardIterator, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, false
	}
	var it shardIterator
	if json.Unmarshal(b, &it) != nil || it.Arn == "" {
		return nil, false
	}
	return &it, true
}

type getShardIteratorInput struct {
	streamArnInput
	ShardId           *string
	ShardIteratorType *string
	SequenceNumber    *string
}

// getShardIterator is GetShardIterator.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_GetShardIterator.html
func (e *Engine) getShardIterator(ctx context.Context, _ caller, in *getShardIteratorInput, t *storage.Table) (any, error) {
	ref := in.ref
	if *in.ShardId != shardID(t, ref.label) {
		return nil, ddberr.ResourceNotFound("Requested resource not found: Shard does not exist")
	}
	b, err := e.store.StreamBounds(ctx, t.ID, ref.label)
	if err != nil {
		return nil, err
	}
	it := &shardIterator{Arn: ref.arn, Table: t.ID, Shard: *in.ShardId, Issued: e.now().UnixMilli()}
	typ := *in.ShardIteratorType
	if in.SequenceNumber != nil && (typ == "TRIM_HORIZON" || typ == "LATEST") {
		// DynamoDB refuses it (scylladb's test_get_shard_iterator, run
		// against DynamoDB); the words are extenddb's.
		return nil, ddberr.Validation("SequenceNumber cannot be specified when using ShardIteratorType %s", typ)
	}
	switch typ {
	case "TRIM_HORIZON":
		it.After = b.Trimmed
	case "LATEST":
		it.After = max(b.Last, b.Trimmed)
	default:
		if in.SequenceNumber == nil {
			return nil, ddberr.Validation("Must specify SequenceNumber when using ShardIteratorType %s", typ)
		}
		seq, ok := storage.ParseSequenceNumber(*in.SequenceNumber)
		if !ok || seq == 0 {
			return nil, ddberr.Validation("Invalid SequenceNumber %s for shard %s", *in.SequenceNumber, *in.ShardId)
		}
		it.After = seq
		if typ == "AT_SEQUENCE_NUMBER" {
			it.After = seq - 1
		}
		if it.After < b.Trimmed {
			return nil, streamError("TrimmedDataAccessException", "The data you are trying to access has been trimmed")
		}
	}
	return map[string]string{"ShardIterator": it.encode()}, nil
}

type getRecordsInput struct {
	streamTarget
	ShardIterator *string
	Limit         *int64
	it            *shardIterator // ShardIterator, decoded
}

// record is one Record of GetRecords.
type record struct {
	EventID      string        `json:"eventID"`
	EventName    string        `json:"eventName"`
	EventVersion string        `json:"eventVersion"`
	EventSource  string        `json:"eventSource"`
	AwsRegion    string        `json:"awsRegion"`
	Dynamodb     streamRecord  `json:"dynamodb"`
	UserIdentity *userIdentity `json:"userIdentity,omitempty"`
}

type streamRecord struct {
	ApproximateCreationDateTime int64
	Keys                        item.Item
	NewImage                    item.Item `json:"NewImage,omitempty"`
	OldImage                    item.Item `json:"OldImage,omitempty"`
	SequenceNumber              string
	SizeBytes                   int64
	StreamViewType              string
}

type userIdentity struct {
	PrincipalId string
	Type        string
}

type getRecordsOutput struct {
	Records           []record
	NextShardIterator string `json:"NextShardIterator,omitempty"`
}

// getRecords is GetRecords: up to Limit (default and at most 1000)
// records after the iterator's position.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_GetRecords.html
// checkGetRecords decodes GetRecords' iterator, which must not have
// expired, and the stream ARN in it.
func (e *Engine) checkGetRecords(_ caller, in *getRecordsInput) error {
	it, ok := decodeShardIterator(*in.ShardIterator)
	if !ok {
		return ddberr.Validation("Invalid ShardIterator")
	}
	if e.now().Sub(time.UnixMilli(it.Issued)) > IteratorLifetime {
		return streamError("ExpiredIteratorException", "The shard iterator has expired")
	}
	in.it = it
	return in.parse(it.Arn)
}

func (e *Engine) getRecords(ctx context.Context, _ caller, in *getRecordsInput, t *storage.Table) (any, error) {
	it, ref := in.it, in.ref
	if t.ID != it.Table {
		return nil, errStreamNotFound(it.Arn)
	}
	b, err := e.store.StreamBounds(ctx, t.ID, ref.label)
	if err != nil {
		return nil, err
	}
	if it.After < b.Trimmed {
		return nil, streamError("TrimmedDataAccessException", "The data you are trying to access has been trimmed")
	}
	limit := 1000
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	recs, err := e.store.ReadStream(ctx, t.ID, ref.label, it.After, limit)
	if err != nil {
		return nil, err
	}
	out := getRecordsOutput{Records: make([]record, 0, len(recs))}
	region := ref.region
	for _, sr := range recs {
		out.Records = append(out.Records, renderRecord(t.ID, region, sr))
		it.After = sr.Seq
	}
	// A closed shard (the stream was disabled) ends once read to its end.
	if streamOpen(t, ref.label) || len(recs) > 0 && it.After < b.Last {
		it.Issued = e.now().UnixMilli()
		out.NextShardIterator = it.encode()
	}
	return out, nil
}

// renderRecord renders a stored record as a GetRecords Record. Its eventID
// derives from the table and sequence number, so a record read twice has
// one ID.
func renderRecord(tableID, region string, sr *storage.StreamRecord) record {
	h := sha256.Sum256([]byte(tableID + "/" + storage.FormatSequenceNumber(sr.Seq)))
	rec := record{
		EventID:      hex.EncodeToString(h[:16]),
		EventName:    sr.EventName,
		EventVersion: "1.1",
		EventSource:  "aws:dynamodb",
		AwsRegion:    region,
		Dynamodb: streamRecord{
			ApproximateCreationDateTime: sr.CreatedAt.Unix(),
			Keys:                        sr.Keys,
			NewImage:                    sr.NewImage,
			OldImage:                    sr.OldImage,
			SequenceNumber:              storage.FormatSequenceNumber(sr.Seq),
			SizeBytes:                   sr.SizeBytes,
			StreamViewType:              sr.ViewType,
		},
	}
	if sr.Identity != nil {
		rec.UserIdentity = &userIdentity{PrincipalId: sr.Identity.PrincipalID, Type: sr.Identity.Type}
	}
	return rec
}

// The Streams operations' member constraints, in the API reference's member
// order (DynamoDB's order for them is not recorded); validation_streams_test.go
// lists them with their sources.
var (
	listStreamsRules = rules[listStreamsInput]{
		nameRule("tableName", func(in *listStreamsInput) *string { return in.TableName }),
		minRule("limit", func(in *listStreamsInput) *int64 { return in.Limit }, 1),
		maxRule("limit", func(in *listStreamsInput) *int64 { return in.Limit }, 100),
		lengthRule("exclusiveStartStreamArn", func(in *listStreamsInput) *string { return in.ExclusiveStartStreamArn }, 37, 1024, false),
	}
	describeStreamRules = rules[describeStreamInput]{
		lengthRule("streamArn", func(in *describeStreamInput) *string { return in.StreamArn }, 37, 1024, true),
		minRule("limit", func(in *describeStreamInput) *int64 { return in.Limit }, 1),
		maxRule("limit", func(in *describeStreamInput) *int64 { return in.Limit }, 100),
		lengthRule("exclusiveStartShardId", func(in *describeStreamInput) *string { return in.ExclusiveStartShardId }, 28, 65, false),
		func(in *describeStreamInput, c *constraints) {
			if f := in.ShardFilter; f != nil {
				c.enum(f.Type, "shardFilter.type", "CHILD_SHARDS")
				c.lenRange(f.ShardId, "shardFilter.shardId", 28, 65)
			}
		},
	}
	getShardIteratorRules = rules[getShardIteratorInput]{
		lengthRule("streamArn", func(in *getShardIteratorInput) *string { return in.StreamArn }, 37, 1024, true),
		lengthRule("shardId", func(in *getShardIteratorInput) *string { return in.ShardId }, 28, 65, true),
		required("shardIteratorType", func(in *getShardIteratorInput) bool { return in.ShardIteratorType != nil }),
		enumRule("shardIteratorType", func(in *getShardIteratorInput) *string { return in.ShardIteratorType },
			[]string{"TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"}),
		lengthRule("sequenceNumber", func(in *getShardIteratorInput) *string { return in.SequenceNumber }, 21, 40, false),
	}
	getRecordsRules = rules[getRecordsInput]{
		lengthRule("shardIterator", func(in *getRecordsInput) *string { return in.ShardIterator }, 1, 2048, true),
		minRule("limit", func(in *getRecordsInput) *int64 { return in.Limit }, 1),
		maxRule("limit", func(in *getRecordsInput) *int64 { return in.Limit }, 1000),
	}
)
