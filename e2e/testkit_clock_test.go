package e2e

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// TestManualClock: with --clock manual time moves only through the admin
// API, and CreationDateTime, backups, TTL expiry, stream iterator expiry
// (15 minutes,
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_GetShardIterator.html)
// and stream retention (24 hours,
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html)
// follow it, without sleeping.
func TestManualClock(t *testing.T) {
	s, c := startClient(t, "--admin-api", "--clock", "manual")
	sc := newStreamsClient(t, s.Endpoint)
	a := adminAPI(s, testAccessKey, testSecretKey)
	ctx := ctxT(t)
	st, err := a.Clock(ctx)
	if err != nil || st.Mode != "manual" {
		t.Fatalf("Clock = %+v, %v", st, err)
	}
	start := st.Now
	name := tableName("clock")
	d := testkitTable(t, c, name)
	if !d.CreationDateTime.Equal(start) {
		t.Fatalf("CreationDateTime %v, clock %v", d.CreationDateTime, start)
	}
	exp := func(after time.Duration) types.AttributeValue {
		return avN(strconv.FormatInt(start.Add(after).Unix(), 10))
	}
	if _, err := c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(name),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	putItem(t, c, name, item{"pk": avS("soon"), "g": avS("x"), "exp": exp(time.Hour)})
	putItem(t, c, name, item{"pk": avS("later"), "g": avS("x"), "exp": exp(24 * time.Hour)})

	// Nothing expires while the clock stands still, however long it takes.
	if n, err := a.ExpireNow(ctx, name); err != nil || n != 0 {
		t.Fatalf("ExpireNow before the advance = %d, %v", n, err)
	}
	if st, err = a.AdvanceClock(ctx, "2h"); err != nil || !st.Now.Equal(start.Add(2*time.Hour)) {
		t.Fatalf("AdvanceClock = %+v, %v", st, err)
	}
	if _, err := a.ExpireNow(ctx, name); err != nil {
		t.Fatal(err)
	}
	if got := keysOf(t, c, name); len(got) != 1 || got[0] != "later" {
		t.Fatalf("after 2h: %v", got)
	}
	recs := readStream(t, sc, aws.ToString(d.LatestStreamArn))
	last := recs[len(recs)-1]
	if len(recs) != 3 || last.EventName != stypes.OperationTypeRemove || last.UserIdentity == nil || aws.ToString(last.UserIdentity.PrincipalId) != "dynamodb.amazonaws.com" {
		t.Fatalf("stream records %+v", recs)
	}

	// Point in time recovery's window and history follow the clock: a
	// restore to an hour after the start has both items.
	cb, err := c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	if pd := cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription; !pd.LatestRestorableDateTime.Equal(st.Now) || !pd.EarliestRestorableDateTime.Equal(start) {
		t.Fatalf("restorable window %v to %v, clock started %v and reads %v", pd.EarliestRestorableDateTime, pd.LatestRestorableDateTime, start, st.Now)
	}
	if e2eBackend != backendCassandra { // Cassandra stamps the history with the wall clock
		restored := name + "-pitr"
		if _, err := c.RestoreTableToPointInTime(ctx, &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(name),
			TargetTableName: aws.String(restored), RestoreDateTime: aws.Time(start.Add(time.Hour))}); err != nil {
			t.Fatal(err)
		}
		waitStatus(t, c, restored, types.TableStatusActive, time.Minute)
		if got := keysOf(t, c, restored); len(got) != 2 {
			t.Fatalf("restored to start+1h: %v", got)
		}
	}

	// A backup is stamped with the clock.
	b, err := c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String(name), BackupName: aws.String("before-expiry")})
	if err != nil || !b.BackupDetails.BackupCreationDateTime.Equal(st.Now) {
		t.Fatalf("CreateBackup = %+v, %v; clock %v", b, err, st.Now)
	}

	// An iterator expires 15 minutes after it was issued.
	sh, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: d.LatestStreamArn})
	if err != nil {
		t.Fatal(err)
	}
	it, err := sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: d.LatestStreamArn,
		ShardId: sh.StreamDescription.Shards[0].ShardId, ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.AdvanceClock(ctx, "16m"); err != nil {
		t.Fatal(err)
	}
	_, err = sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
	wantAPIError(t, err, "ExpiredIteratorException", "The shard iterator has expired")

	// A day later the records of that day are gone and "later" has
	// expired: moving the clock runs the expiry pass, then the stream's
	// retention, at once. The expiry's record is stamped with the clock.
	st, err = a.AdvanceClock(ctx, "1d")
	if err != nil {
		t.Fatal(err)
	}
	recs = readStream(t, sc, aws.ToString(d.LatestStreamArn))
	if e2eBackend == backendCassandra {
		// Cassandra stamps records with the wall clock, so the expiry's
		// record is a day old by the clock and trimmed with the others
		// (docs/differences-from-dynamodb.md, Test suite features).
		if len(recs) != 0 {
			t.Fatalf("a day later the stream has %+v", recs)
		}
	} else if len(recs) != 1 || recs[0].EventName != stypes.OperationTypeRemove || avText(streamKey(recs[0])) != `{"S":"later"}` ||
		!recs[0].Dynamodb.ApproximateCreationDateTime.Equal(st.Now) {
		t.Fatalf("a day later the stream has %+v", recs)
	}
	if got := keysOf(t, c, name); len(got) != 0 {
		t.Fatalf("after a day: %v", got)
	}

	// The clock can be set anywhere, back too.
	then := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	if _, err := a.SetClock(ctx, then); err != nil {
		t.Fatal(err)
	}
	other := tableName("clock2")
	out, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(other), AttributeDefinitions: attrDefs("pk", "S"),
		KeySchema: keySchema("pk"), BillingMode: types.BillingModePayPerRequest})
	if err != nil || !out.TableDescription.CreationDateTime.Equal(then) {
		t.Fatalf("CreateTable at %v = %+v, %v", then, out, err)
	}
	_, err = a.AdvanceClock(ctx, "-1h")
	wantAdminError(t, err, http.StatusBadRequest, "com.amazon.coral.validate#ValidationException")
	_, err = a.ExpireNow(ctx, other)
	wantAdminError(t, err, http.StatusBadRequest, "com.amazon.coral.validate#ValidationException")
}

// TestSystemClockRefusesMoves: without --clock manual the clock cannot be
// moved.
func TestSystemClockRefusesMoves(t *testing.T) {
	s, _ := startClient(t, "--admin-api")
	a := adminAPI(s, testAccessKey, testSecretKey)
	st, err := a.Clock(ctxT(t))
	if err != nil || st.Mode != "system" || time.Since(st.Now).Abs() > time.Minute {
		t.Fatalf("Clock = %+v, %v", st, err)
	}
	_, err = a.AdvanceClock(ctxT(t), "1h")
	wantAdminError(t, err, http.StatusBadRequest, "com.amazon.coral.validate#ValidationException")
}

// streamKey is the pk of a stream record's keys, as a table's attribute.
func streamKey(r stypes.Record) types.AttributeValue {
	return avS(r.Dynamodb.Keys["pk"].(*stypes.AttributeValueMemberS).Value)
}

// TestManualClockStaysInRange: the manual clock refuses to move before
// 1970 or past 9999 with a ValidationException and stays where it was, so
// every later response (whose dates are epoch seconds and four-digit ISO
// 8601 years) can still be written.
func TestManualClockStaysInRange(t *testing.T) {
	s, _ := startClient(t, "--admin-api", "--clock", "manual")
	a := adminAPI(s, testAccessKey, testSecretKey)
	end := time.Date(9999, 12, 31, 23, 0, 0, 0, time.UTC)
	if _, err := a.SetClock(ctxT(t), end); err != nil {
		t.Fatal(err)
	}
	_, err := a.AdvanceClock(ctxT(t), "2h")
	wantAdminError(t, err, http.StatusBadRequest, "com.amazon.coral.validate#ValidationException")
	_, err = a.SetClock(ctxT(t), time.Date(1969, 1, 1, 0, 0, 0, 0, time.UTC))
	wantAdminError(t, err, http.StatusBadRequest, "com.amazon.coral.validate#ValidationException")
	_, err = a.AdvanceClock(ctxT(t), "1e300d")
	wantAdminError(t, err, http.StatusBadRequest, "com.amazon.coral.validate#ValidationException")
	if st, err := a.Clock(ctxT(t)); err != nil || !st.Now.Equal(end) {
		t.Fatalf("Clock = %+v, %v; want %v", st, err, end)
	}
}
