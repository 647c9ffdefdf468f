package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	_ "github.com/mattn/go-sqlite3"

	ditem "github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/cassandra"
)

// Time to Live: UpdateTimeToLive / DescribeTimeToLive, the lifecycle
// states, expiry through the delete path, and the resumable backfill.

func updateTTL(c *dynamodb.Client, name string, enable bool, attr string) error {
	_, err := c.UpdateTimeToLive(context.Background(), &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(enable), AttributeName: aws.String(attr)},
	})
	return err
}

func ttlStatus(t testing.TB, c *dynamodb.Client, name string) (types.TimeToLiveStatus, string) {
	t.Helper()
	out, err := c.DescribeTimeToLive(ctxT(t), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatalf("DescribeTimeToLive: %v", err)
	}
	return out.TimeToLiveDescription.TimeToLiveStatus, aws.ToString(out.TimeToLiveDescription.AttributeName)
}

// waitTTL polls DescribeTimeToLive until it reports want.
func waitTTL(t testing.TB, c *dynamodb.Client, name string, want types.TimeToLiveStatus, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		got, _ := ttlStatus(t, c, name)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("TTL status %s after %v, want %s", got, within, want)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func TestTTLValidation(t *testing.T) {
	_, c := startClient(t)
	ctx := ctxT(t)
	name := tableName("ttlval")
	createHashTable(t, c, name, "S")

	if st, attr := ttlStatus(t, c, name); st != types.TimeToLiveStatusDisabled || attr != "" {
		t.Fatalf("new table: %s %q", st, attr)
	}
	wantAPIError(t, updateTTL(c, name, false, "ttl"), "ValidationException", "TimeToLive is already disabled")
	_, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name), TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(true), AttributeName: aws.String("")}})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '' at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length greater than or equal to 1")
	wantAPIError(t, updateTTL(c, "missing-table", true, "ttl"), "ResourceNotFoundException", "Requested resource not found: Table: missing-table not found")

	out, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name), TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(true), AttributeName: aws.String("ttl")}})
	if err != nil || !*out.TimeToLiveSpecification.Enabled || *out.TimeToLiveSpecification.AttributeName != "ttl" {
		t.Fatalf("UpdateTimeToLive: %+v %v", out, err)
	}
	waitTTL(t, c, name, types.TimeToLiveStatusEnabled, 10*time.Second)
	wantAPIError(t, updateTTL(c, name, true, "ttl"), "ValidationException", "TimeToLive is already enabled")
	wantAPIError(t, updateTTL(c, name, true, "other"), "ValidationException", "TimeToLive is active on a different AttributeName: current AttributeName is ttl")
	wantAPIError(t, updateTTL(c, name, false, "other"), "ValidationException", "TimeToLive is active on a different AttributeName: current AttributeName is ttl")
}

// TestTTLLifecycle observes ENABLING -> ENABLED -> DISABLING -> DISABLED,
// each transition completed by the worker's pages (slowed down here).
func TestTTLLifecycle(t *testing.T) {
	t.Setenv("EXTENDDB_TTL_PAGE_SIZE", "10")
	t.Setenv("EXTENDDB_TTL_PAGE_DELAY", "150ms")
	_, c := startClient(t)
	name := tableName("ttllife")
	createHashTable(t, c, name, "S")
	future := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	for i := range 40 {
		putItem(t, c, name, item{"pk": avS(fmt.Sprintf("k%02d", i)), "exp": avN(future)})
	}

	if err := updateTTL(c, name, true, "exp"); err != nil {
		t.Fatal(err)
	}
	if st, attr := ttlStatus(t, c, name); st != types.TimeToLiveStatusEnabling || attr != "exp" {
		t.Fatalf("after enabling: %s %q", st, attr)
	}
	wantAPIError(t, updateTTL(c, name, false, "exp"), "ValidationException", "Time to live is being updated for this table")
	wantAPIError(t, updateTTL(c, name, true, "exp"), "ValidationException", "TimeToLive is already enabled")
	start := time.Now()
	waitTTL(t, c, name, types.TimeToLiveStatusEnabled, 15*time.Second)
	if took := time.Since(start); took < 400*time.Millisecond {
		t.Errorf("ENABLED after %v: the backfill (5 pages, 150 ms apart) did not run", took)
	}

	if err := updateTTL(c, name, false, "exp"); err != nil {
		t.Fatal(err)
	}
	if st, attr := ttlStatus(t, c, name); st != types.TimeToLiveStatusDisabling || attr != "exp" {
		t.Fatalf("after disabling: %s %q", st, attr)
	}
	wantAPIError(t, updateTTL(c, name, true, "exp"), "ValidationException", "Time to live is being updated for this table")
	waitTTL(t, c, name, types.TimeToLiveStatusDisabled, 15*time.Second)
	if _, attr := ttlStatus(t, c, name); attr != "" {
		t.Errorf("DISABLED with attribute %q", attr)
	}
	// Enabling again, with another attribute, is accepted.
	if err := updateTTL(c, name, true, "exp2"); err != nil {
		t.Fatal(err)
	}
	waitTTL(t, c, name, types.TimeToLiveStatusEnabled, 15*time.Second)
}

// TestTTLExpiry: expired items are deleted through the delete path (index
// rows go, a REMOVE stream record names the TTL service); items whose TTL
// is in the future, not a Number, or missing stay.
func TestTTLExpiry(t *testing.T) {
	s, c := startClient(t, "--ttl-interval", "200ms")
	sc := newStreamsClient(t, s.Endpoint)
	ctx := ctxT(t)
	name := tableName("ttlexp")
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("pk", "S", "g", "S"),
		KeySchema:            keySchema("pk"),
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("byG"), KeySchema: keySchema("g"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	arn := *describe(t, c, name).LatestStreamArn
	past := strconv.FormatInt(time.Now().Add(-time.Minute).Unix(), 10)
	future := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	putItem(t, c, name, item{"pk": avS("old"), "g": avS("x"), "exp": avN(past)})        // before enabling: the backfill registers it
	putItem(t, c, name, item{"pk": avS("str"), "g": avS("x"), "exp": avS(past)})        // not a Number: never expires
	putItem(t, c, name, item{"pk": avS("none"), "g": avS("x")})                         // no TTL
	putItem(t, c, name, item{"pk": avS("later"), "g": avS("x"), "exp": avN(future)})    // not yet
	putItem(t, c, name, item{"pk": avS("ancient"), "g": avS("x"), "exp": avN("86400")}) // more than five years old: left alone
	if err := updateTTL(c, name, true, "exp"); err != nil {
		t.Fatal(err)
	}
	waitTTL(t, c, name, types.TimeToLiveStatusEnabled, 10*time.Second)
	putItem(t, c, name, item{"pk": avS("new"), "g": avS("x"), "exp": avN(past)}) // maintained by the write

	deadline := time.Now().Add(10 * time.Second)
	for getItem(t, c, name, item{"pk": avS("old")}) != nil || getItem(t, c, name, item{"pk": avS("new")}) != nil {
		if time.Now().After(deadline) {
			t.Fatal("expired items not deleted within 10s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, k := range []string{"str", "none", "later", "ancient"} {
		if getItem(t, c, name, item{"pk": avS(k)}) == nil {
			t.Errorf("item %s was deleted", k)
		}
	}
	q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: item{":g": avS("x")}})
	if err != nil || len(q.Items) != 4 {
		t.Errorf("index after expiry: %d items, %v", len(q.Items), err)
	}
	removes := 0
	for _, r := range readStream(t, sc, arn) {
		if r.EventName != stypes.OperationTypeRemove {
			if r.UserIdentity != nil {
				t.Errorf("%s record with userIdentity", r.EventName)
			}
			continue
		}
		removes++
		if r.UserIdentity == nil || *r.UserIdentity.Type != "Service" || *r.UserIdentity.PrincipalId != "dynamodb.amazonaws.com" {
			t.Errorf("REMOVE record identity: %+v", r.UserIdentity)
		}
		if r.Dynamodb.OldImage == nil {
			t.Errorf("REMOVE record without OldImage")
		}
	}
	if removes != 2 {
		t.Errorf("%d REMOVE records, want 2", removes)
	}
}

// TestTTLBackfillResume kills the server (kill -9) while a backfill is
// pending, plants a cursor in the durable catalog, and restarts: the
// backfill resumes after the cursor instead of rescanning, so exactly the
// items after it (in the backend's backfill order: scan order on SQLite
// and PostgreSQL, token order on Cassandra, docs/adr/0018g) are
// registered and expire.
func TestTTLBackfillResume(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("EXTENDDB_TTL_PAGE_DELAY", "1h") // the first page never starts
	s1, c := startClient(t, "--data-dir", dir, "--ttl-interval", "200ms")
	name := tableName("ttlresume")
	createHashTable(t, c, name, "S")
	past := strconv.FormatInt(time.Now().Add(-time.Minute).Unix(), 10)
	for i := range 20 {
		putItem(t, c, name, item{"pk": avS(fmt.Sprintf("k%02d", i)), "exp": avN(past)})
	}
	if err := updateTTL(c, name, true, "exp"); err != nil {
		t.Fatal(err)
	}
	scan, err := c.Scan(ctxT(t), &dynamodb.ScanInput{TableName: aws.String(name)})
	if err != nil || len(scan.Items) != 20 {
		t.Fatalf("scan: %d %v", len(scan.Items), err)
	}
	order := make([]string, len(scan.Items))
	for i, it := range scan.Items {
		order[i] = it["pk"].(*types.AttributeValueMemberS).Value
	}
	s1.kill()
	order = backfillOrder(t, s1, name, order)
	cursor := order[9]
	plantTTLCursor(t, s1, name, storage.Key{PK: ditem.EncodeKey(ditem.S(cursor))})

	t.Setenv("EXTENDDB_TTL_PAGE_DELAY", "0s")
	_, c = startClient(t, "--data-dir", dir, "--ttl-interval", "200ms")
	// On a backend shared by several servers (PostgreSQL, Cassandra) the
	// backfill's job resumes once the killed server's lease lapses (ten
	// seconds, ADR 0013d); on SQLite at once.
	waitTTL(t, c, name, types.TimeToLiveStatusEnabled, 30*time.Second)
	deadline := time.Now().Add(10 * time.Second)
	for {
		scan, err = c.Scan(ctxT(t), &dynamodb.ScanInput{TableName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		if len(scan.Items) <= 10 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(600 * time.Millisecond) // a few more expiry passes
	scan, _ = c.Scan(ctxT(t), &dynamodb.ScanInput{TableName: aws.String(name)})
	var left []string
	for _, it := range scan.Items {
		left = append(left, it["pk"].(*types.AttributeValueMemberS).Value)
	}
	sort.Strings(left)
	want := append([]string(nil), order[:10]...)
	sort.Strings(want)
	if fmt.Sprint(left) != fmt.Sprint(want) {
		t.Fatalf("items left %v, want those up to the cursor %v", left, want)
	}
}

// backfillOrder returns the hash keys of table name (a table of string
// hash keys whose items are scanned, in scan order) in the order the
// backend's TTL backfill registers them: scan order, but on Cassandra its
// token order, which the backend reports (cassandra.Backend.BackfillOrder).
func backfillOrder(t testing.TB, s *server, name string, scanned []string) []string {
	t.Helper()
	if s.Backend != backendCassandra {
		return scanned
	}
	ctx := ctxT(t)
	b, err := cassandra.Open(ctx, cassandra.Options{Hosts: strings.Split(cassandraHosts, ","), KeyspacePrefix: s.Schema})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	keys, err := b.BackfillOrder(ctx, "000000000000", name)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]string{}
	for _, pk := range scanned {
		byKey[string(ditem.EncodeKey(ditem.S(pk)))] = pk
	}
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		pk, ok := byKey[string(k.PK)]
		if !ok {
			t.Fatalf("backfill order holds a key %x the scan did not return", k.PK)
		}
		out = append(out, pk)
	}
	if len(out) != len(scanned) {
		t.Fatalf("backfill order holds %d keys, the scan %d", len(out), len(scanned))
	}
	return out
}

// plantTTLCursor sets the TTL backfill cursor of table name in the stopped
// server's catalog.
func plantTTLCursor(t testing.TB, s *server, name string, cursor storage.Key) {
	t.Helper()
	edit := func(def []byte) []byte {
		var tb storage.Table
		if err := json.Unmarshal(def, &tb); err != nil {
			t.Fatalf("catalog entry: %v", err)
		}
		if tb.TTL.Status != storage.TTLEnabling {
			t.Fatalf("TTL is %s, want ENABLING", tb.TTL.Status)
		}
		tb.TTL.BackfillCursor = &cursor
		if s.Backend == backendCassandra { // a cursor of its token order (docs/adr/0018g)
			tb.TTL.BackfillOrder = cassandra.TokenOrder
		}
		out, _ := json.Marshal(&tb)
		return out
	}
	ctx := ctxT(t)
	if s.Backend == backendCassandra {
		// Through the backend itself: Cassandra's catalog is only ever
		// written by lightweight transactions.
		b, err := cassandra.Open(ctx, cassandra.Options{Hosts: strings.Split(cassandraHosts, ","), KeyspacePrefix: s.Schema})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if _, err := b.UpdateTable(ctx, "000000000000", name, func(tb *storage.Table) error {
			def, _ := json.Marshal(tb)
			return json.Unmarshal(edit(def), tb)
		}); err != nil {
			t.Fatal(err)
		}
		return
	}
	if s.Backend == backendPostgres {
		conn, err := pgConnect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		q := fmt.Sprintf(`SELECT def FROM %q.catalog WHERE name = $1`, s.Schema)
		var def []byte
		if err := conn.QueryRow(ctx, q, name).Scan(&def); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, fmt.Sprintf(`UPDATE %q.catalog SET def = $1, version = version + 1 WHERE name = $2`, s.Schema), edit(def), name); err != nil {
			t.Fatal(err)
		}
		return
	}
	db, err := sql.Open("sqlite3", filepath.Join(s.DataDir, "extenddb.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var def []byte
	if err := db.QueryRowContext(ctx, "SELECT def FROM catalog WHERE name = ?", name).Scan(&def); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "UPDATE catalog SET def = ?, version = version + 1 WHERE name = ?", edit(def), name); err != nil {
		t.Fatal(err)
	}
}

// TestTTLSmallTableSettlesInline: on a table small enough for the inline
// budget, DescribeTimeToLive reports ENABLED (and, after disabling,
// DISABLED) right after UpdateTimeToLive returns, as DynamoDB does for an
// ordinary table, so a change back is accepted at once; the items written
// before the TTL was enabled are registered and expire.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeTimeToLive.html
func TestTTLSmallTableSettlesInline(t *testing.T) {
	_, c := startClient(t, "--ttl-interval", "200ms")
	name := tableName("ttlinline")
	createHashTable(t, c, name, "S")
	past := strconv.FormatInt(time.Now().Add(-time.Minute).Unix(), 10)
	future := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	// Two pages of 256: the second is settled inline too, on Cassandra as
	// well, whose first page waits its grace first (ADR 0018g). Only the
	// Cassandra run tests that; internal/workers TestTTLSettleBudget tests
	// the budget itself on SQLite.
	for i := range 300 {
		exp := future
		if i%100 == 0 {
			exp = past
		}
		putItem(t, c, name, item{"pk": avS(fmt.Sprintf("k%03d", i)), "exp": avN(exp)})
	}
	for round := range 2 {
		if err := updateTTL(c, name, true, "exp"); err != nil {
			t.Fatal(err)
		}
		if st, attr := ttlStatus(t, c, name); st != types.TimeToLiveStatusEnabled || attr != "exp" {
			t.Fatalf("round %d: right after enabling: %s %q, want ENABLED \"exp\"", round, st, attr)
		}
		if err := updateTTL(c, name, false, "exp"); err != nil {
			t.Fatalf("round %d: disabling right after enabling: %v", round, err)
		}
		if st, attr := ttlStatus(t, c, name); st != types.TimeToLiveStatusDisabled || attr != "" {
			t.Fatalf("round %d: right after disabling: %s %q, want DISABLED", round, st, attr)
		}
	}
	if err := updateTTL(c, name, true, "exp"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, err := c.Scan(ctxT(t), &dynamodb.ScanInput{TableName: aws.String(name), Select: types.SelectCount})
		if err != nil {
			t.Fatal(err)
		}
		if out.Count == 297 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d items left, want 297: the items written before enabling were not registered", out.Count)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
