package e2e

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// DynamoDB Streams through the AWS SDK for Go v2 streams client, on the
// same endpoint as DynamoDB.

func newStreamsClient(t testing.TB, endpoint string) *dynamodbstreams.Client {
	t.Helper()
	return dynamodbstreams.New(dynamodbstreams.Options{
		BaseEndpoint: aws.String(endpoint),
		Region:       testRegion,
		Credentials:  credentials.NewStaticCredentialsProvider(testAccessKey, testSecretKey, ""),
		Retryer:      aws.NopRetryer{},
		HTTPClient:   &http.Client{Timeout: 60 * time.Second},
	})
}

// createStreamTable creates a pk (S) table with a stream of view type vt
// and returns its LatestStreamArn.
func createStreamTable(t testing.TB, c *dynamodb.Client, name string, vt types.StreamViewType) string {
	t.Helper()
	out, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("pk", "S"),
		KeySchema:            keySchema("pk"),
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: vt},
	})
	if err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
	if out.TableDescription.LatestStreamArn == nil {
		t.Fatalf("CreateTable returned no LatestStreamArn")
	}
	return *out.TableDescription.LatestStreamArn
}

// readStream reads every record of every shard of arn from TRIM_HORIZON
// until a GetRecords returns none.
func readStream(t testing.TB, sc *dynamodbstreams.Client, arn string) []stypes.Record {
	t.Helper()
	ctx := ctxT(t)
	d, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil {
		t.Fatalf("DescribeStream: %v", err)
	}
	var out []stypes.Record
	for _, sh := range d.StreamDescription.Shards {
		it, err := sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{
			StreamArn: aws.String(arn), ShardId: sh.ShardId, ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon,
		})
		if err != nil {
			t.Fatalf("GetShardIterator: %v", err)
		}
		iter := it.ShardIterator
		for iter != nil {
			r, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter, Limit: aws.Int32(7)})
			if err != nil {
				t.Fatalf("GetRecords: %v", err)
			}
			out = append(out, r.Records...)
			if len(r.Records) == 0 {
				break
			}
			iter = r.NextShardIterator
		}
	}
	return out
}

func TestStreamRecords(t *testing.T) {
	s, c := startClient(t)
	sc := newStreamsClient(t, s.Endpoint)
	ctx := ctxT(t)
	name := tableName("streams")
	arn := createStreamTable(t, c, name, types.StreamViewTypeNewAndOldImages)

	putItem(t, c, name, item{"pk": avS("a"), "v": avN("1")})
	putItem(t, c, name, item{"pk": avS("a"), "v": avN("1")}) // changes nothing: no record
	putItem(t, c, name, item{"pk": avS("a"), "v": avN("2")})
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: item{"pk": avS("missing")}}); err != nil {
		t.Fatal(err) // deletes nothing: no record
	}
	if _, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(name), Item: item{"pk": avS("b"), "v": avN("3")}}},
		{Delete: &types.Delete{TableName: aws.String(name), Key: item{"pk": avS("a")}}},
	}}); err != nil {
		t.Fatal(err)
	}

	recs := readStream(t, sc, arn)
	want := []string{"INSERT a", "MODIFY a", "INSERT b", "REMOVE a"}
	if len(recs) != len(want) {
		t.Fatalf("got %d records, want %d: %+v", len(recs), len(want), recs)
	}
	prev := ""
	for i, r := range recs {
		got := string(r.EventName) + " " + r.Dynamodb.Keys["pk"].(*stypes.AttributeValueMemberS).Value
		if i < 2 && got != want[i] {
			t.Errorf("record %d: %s, want %s", i, got, want[i])
		}
		if *r.EventVersion != "1.1" || *r.EventSource != "aws:dynamodb" || *r.AwsRegion != testRegion || r.EventID == nil {
			t.Errorf("record %d envelope: %+v", i, r)
		}
		seq := *r.Dynamodb.SequenceNumber
		if _, err := strconv.ParseUint(seq, 10, 64); err != nil || seq <= prev {
			t.Errorf("record %d sequence number %q after %q", i, seq, prev)
		}
		prev = seq
		if r.Dynamodb.StreamViewType != stypes.StreamViewTypeNewAndOldImages || r.Dynamodb.SizeBytes == nil || *r.Dynamodb.SizeBytes <= 0 ||
			r.Dynamodb.ApproximateCreationDateTime == nil || time.Since(*r.Dynamodb.ApproximateCreationDateTime) > time.Minute {
			t.Errorf("record %d: %+v", i, r.Dynamodb)
		}
		if r.UserIdentity != nil {
			t.Errorf("record %d has userIdentity %+v", i, r.UserIdentity)
		}
	}
	mod := recs[1].Dynamodb
	if mod.OldImage["v"].(*stypes.AttributeValueMemberN).Value != "1" || mod.NewImage["v"].(*stypes.AttributeValueMemberN).Value != "2" {
		t.Errorf("MODIFY images: old %v new %v", mod.OldImage, mod.NewImage)
	}
	// A transaction's records (one per item) may come in either order.
	rm := recs[2]
	if rm.EventName != stypes.OperationTypeRemove {
		rm = recs[3]
	}
	if rm.EventName != stypes.OperationTypeRemove || rm.Dynamodb.NewImage != nil || rm.Dynamodb.OldImage == nil {
		t.Errorf("REMOVE record: %+v", rm)
	}

	// DescribeTable, ListStreams, DescribeStream.
	d := describe(t, c, name)
	if d.LatestStreamArn == nil || *d.LatestStreamArn != arn || d.StreamSpecification == nil || !*d.StreamSpecification.StreamEnabled {
		t.Errorf("DescribeTable stream fields: %v %+v", d.LatestStreamArn, d.StreamSpecification)
	}
	ls, err := sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String(name)})
	if err != nil || len(ls.Streams) != 1 || *ls.Streams[0].StreamArn != arn || *ls.Streams[0].TableName != name {
		t.Fatalf("ListStreams: %+v %v", ls, err)
	}
	ds, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	sd := ds.StreamDescription
	if sd.StreamStatus != stypes.StreamStatusEnabled || *sd.TableName != name || len(sd.KeySchema) != 1 || len(sd.Shards) != 1 ||
		sd.CreationRequestDateTime == nil || sd.StreamViewType != stypes.StreamViewTypeNewAndOldImages {
		t.Errorf("DescribeStream: %+v", sd)
	}
	if sd.Shards[0].SequenceNumberRange.EndingSequenceNumber != nil {
		t.Errorf("open shard has an EndingSequenceNumber")
	}

	// LATEST, AT_ and AFTER_SEQUENCE_NUMBER.
	shard := sd.Shards[0].ShardId
	at := func(typ stypes.ShardIteratorType, seq *string) []stypes.Record {
		it, err := sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: shard, ShardIteratorType: typ, SequenceNumber: seq})
		if err != nil {
			t.Fatalf("GetShardIterator %s: %v", typ, err)
		}
		r, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
		if err != nil {
			t.Fatalf("GetRecords: %v", err)
		}
		if r.NextShardIterator == nil {
			t.Errorf("open shard: no NextShardIterator")
		}
		return r.Records
	}
	if n := len(at(stypes.ShardIteratorTypeLatest, nil)); n != 0 {
		t.Errorf("LATEST: %d records", n)
	}
	if got := at(stypes.ShardIteratorTypeAtSequenceNumber, recs[1].Dynamodb.SequenceNumber); len(got) != 3 {
		t.Errorf("AT_SEQUENCE_NUMBER: %d records, want 3", len(got))
	}
	if got := at(stypes.ShardIteratorTypeAfterSequenceNumber, recs[1].Dynamodb.SequenceNumber); len(got) != 2 {
		t.Errorf("AFTER_SEQUENCE_NUMBER: %d records, want 2", len(got))
	}

	// Errors.
	_, err = sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn + "x")})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Stream: "+arn+"x not found")
	_, err = sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String("bogus")})
	wantAPIError(t, err, "ValidationException", "")
	_, err = sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String("bogus"), Limit: aws.Int32(1001)})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '1001' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 1000")
	_, err = sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String("shardId-00000000000000000000-00000000"), ShardIteratorType: stypes.ShardIteratorTypeLatest})
	wantAPIError(t, err, "ResourceNotFoundException", "")

	// Disabling closes the shard: it gets an EndingSequenceNumber, and a
	// reader reaches its end (no NextShardIterator).
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}}); err != nil {
		t.Fatal(err)
	}
	// DescribeTable leaves out StreamSpecification and keeps the disabled
	// stream's ARN and label, as DynamoDB does
	// (https://github.com/scylladb/scylladb/pull/31553).
	dt, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	if dt.Table.StreamSpecification != nil || aws.ToString(dt.Table.LatestStreamArn) != arn || aws.ToString(dt.Table.LatestStreamLabel) == "" {
		t.Errorf("DescribeTable after disabling: StreamSpecification %+v, LatestStreamArn %q, LatestStreamLabel %q, want none, %q and its label",
			dt.Table.StreamSpecification, aws.ToString(dt.Table.LatestStreamArn), aws.ToString(dt.Table.LatestStreamLabel), arn)
	}
	putItem(t, c, name, item{"pk": avS("c")})
	ds, err = sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	if ds.StreamDescription.StreamStatus != stypes.StreamStatusDisabled || ds.StreamDescription.Shards[0].SequenceNumberRange.EndingSequenceNumber == nil {
		t.Errorf("disabled stream: %+v", ds.StreamDescription)
	}
	if n := len(readStream(t, sc, arn)); n != 4 {
		t.Errorf("disabled stream: %d records, want 4", n)
	}
}

// TestStreamReplay has concurrent writers on a few keys and one consumer
// reading the stream from TRIM_HORIZON; replaying the records rebuilds
// exactly the final contents of the table.
func TestStreamReplay(t *testing.T) {
	s, c := startClient(t)
	sc := newStreamsClient(t, s.Endpoint)
	ctx := ctxT(t)
	name := tableName("replay")
	arn := createStreamTable(t, c, name, types.StreamViewTypeNewImage)

	const writers, writes, keys = 6, 60, 5
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for i := range writes {
				k := avS(fmt.Sprintf("k%d", rng.IntN(keys)))
				var err error
				switch rng.IntN(4) {
				case 0:
					_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: item{"pk": k}})
				case 1:
					_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: item{"pk": k},
						UpdateExpression:          aws.String("ADD n :one SET w = :w"),
						ExpressionAttributeValues: item{":one": avN("1"), ":w": avS(fmt.Sprint(w))}})
				default:
					_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": k, "w": avS(fmt.Sprint(w)), "i": avN(strconv.Itoa(i))}})
				}
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		})
	}
	wg.Wait()

	replayed := map[string]map[string]stypes.AttributeValue{}
	for _, r := range readStream(t, sc, arn) {
		k := r.Dynamodb.Keys["pk"].(*stypes.AttributeValueMemberS).Value
		switch r.EventName {
		case stypes.OperationTypeRemove:
			delete(replayed, k)
		default:
			replayed[k] = r.Dynamodb.NewImage
		}
	}
	scan, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if len(scan.Items) != len(replayed) {
		t.Fatalf("table has %d items, replayed stream %d", len(scan.Items), len(replayed))
	}
	for _, it := range scan.Items {
		k := it["pk"].(*types.AttributeValueMemberS).Value
		if got, want := streamItemText(replayed[k]), itemText(it); got != want {
			t.Errorf("key %s: replayed %s, table %s", k, got, want)
		}
	}
}

// streamItemText renders a streams-client item like itemText.
func streamItemText(it map[string]stypes.AttributeValue) string {
	out := item{}
	for k, v := range it {
		out[k] = toDDB(v)
	}
	return itemText(out)
}

// toDDB converts a streams-client value to a DynamoDB-client value.
func toDDB(v stypes.AttributeValue) types.AttributeValue {
	switch v := v.(type) {
	case *stypes.AttributeValueMemberS:
		return avS(v.Value)
	case *stypes.AttributeValueMemberN:
		return avN(v.Value)
	case *stypes.AttributeValueMemberB:
		return avB(v.Value)
	case *stypes.AttributeValueMemberBOOL:
		return avBool(v.Value)
	case *stypes.AttributeValueMemberNULL:
		return avNull()
	case *stypes.AttributeValueMemberSS:
		return avSS(v.Value...)
	case *stypes.AttributeValueMemberNS:
		return avNS(v.Value...)
	case *stypes.AttributeValueMemberBS:
		return avBS(v.Value...)
	case *stypes.AttributeValueMemberL:
		l := make([]types.AttributeValue, len(v.Value))
		for i, e := range v.Value {
			l[i] = toDDB(e)
		}
		return avL(l...)
	case *stypes.AttributeValueMemberM:
		m := map[string]types.AttributeValue{}
		for k, e := range v.Value {
			m[k] = toDDB(e)
		}
		return avM(m)
	}
	return nil
}
