package e2e

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// Tools replayed: the call sequences that Terraform and the table browsers
// send, checked call by call through the AWS SDK for Go v2.

// tfWait polls cond every 100ms for up to 30s, as the Terraform provider's
// waiters do (with longer intervals), failing the test on timeout.
func tfWait(t *testing.T, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	ctx := ctxT(t)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ok, err := cond(ctx)
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// tfRead is the provider's resourceTableRead: DescribeTable, then
// DescribeContinuousBackups, DescribeTimeToLive and ListTagsOfResource.
func tfRead(t *testing.T, c *dynamodb.Client, name string) (*types.TableDescription, bool, *types.TimeToLiveDescription, []types.Tag) {
	t.Helper()
	ctx := ctxT(t)
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatalf("read: DescribeTable: %v", err)
	}
	pitr, err := c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatalf("read: DescribeContinuousBackups: %v", err)
	}
	ttl, err := c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatalf("read: DescribeTimeToLive: %v", err)
	}
	tags, err := c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: d.Table.TableArn})
	if err != nil {
		t.Fatalf("read: ListTagsOfResource: %v", err)
	}
	on := pitr.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus == types.PointInTimeRecoveryStatusEnabled
	return d.Table, on, ttl.TimeToLiveDescription, tags.Tags
}

func tfTableActive(c *dynamodb.Client, name string) func(ctx context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			return false, err
		}
		if d.Table.TableStatus != types.TableStatusActive {
			return false, nil
		}
		for _, g := range d.Table.GlobalSecondaryIndexes {
			if g.IndexStatus != types.IndexStatusActive {
				return false, nil
			}
		}
		return true, nil
	}
}

func tfTTL(c *dynamodb.Client, name string, want types.TimeToLiveStatus) func(ctx context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		d, err := c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
		return err == nil && d.TimeToLiveDescription.TimeToLiveStatus == want, err
	}
}

func tfPITR(c *dynamodb.Client, name string, want types.PointInTimeRecoveryStatus) func(ctx context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		d, err := c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
		return err == nil && d.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus == want, err
	}
}

// TestTerraformTableLifecycle replays the calls of the Terraform AWS
// provider's aws_dynamodb_table resource (resourceTableCreate, Read,
// Update and Delete with their waiters, in
// hashicorp/terraform-provider-aws internal/service/dynamodb/table.go):
// create with tags and a stream, TTL and PITR enabled after creation, then
// an apply that switches the billing mode, adds a GSI, disables the stream,
// changes tags and disables TTL and PITR, then destroy.
func TestTerraformTableLifecycle(t *testing.T) {
	// Tables stay CREATING/UPDATING/DELETING a while, so the waiters wait.
	_, c := startClient(t, "--status-delay", "300ms")
	ctx := ctxT(t)
	name := tableName("tf")

	// Create.
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:                 aws.String(name),
		AttributeDefinitions:      attrDefs("id", "S", "ts", "N"),
		KeySchema:                 keySchema("id", "ts"),
		BillingMode:               types.BillingModeProvisioned,
		ProvisionedThroughput:     &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)},
		StreamSpecification:       &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
		Tags:                      []types.Tag{{Key: aws.String("env"), Value: aws.String("test")}, {Key: aws.String("team"), Value: aws.String("a")}},
		TableClass:                types.TableClassStandard,
		DeletionProtectionEnabled: aws.Bool(false),
	})
	if err != nil {
		t.Fatalf("create: CreateTable: %v", err)
	}
	tfWait(t, "table ACTIVE", tfTableActive(c, name))
	if _, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatalf("create: UpdateTimeToLive: %v", err)
	}
	tfWait(t, "TTL ENABLED", tfTTL(c, name, types.TimeToLiveStatusEnabled))
	if _, err := c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(name),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatalf("create: UpdateContinuousBackups: %v", err)
	}
	tfWait(t, "PITR ENABLED", tfPITR(c, name, types.PointInTimeRecoveryStatusEnabled))
	td, pitr, ttl, tags := tfRead(t, c, name)
	if td.BillingModeSummary != nil && td.BillingModeSummary.BillingMode != types.BillingModeProvisioned ||
		*td.ProvisionedThroughput.ReadCapacityUnits != 5 || td.StreamSpecification == nil || !*td.StreamSpecification.StreamEnabled ||
		!pitr || aws.ToString(ttl.AttributeName) != "expires" || len(tags) != 2 {
		t.Fatalf("after create: table %+v pitr %v ttl %+v tags %+v", td, pitr, ttl, tags)
	}
	tfRead(t, c, name) // refresh before the next plan

	tfApplyUpdate(t, c, name, td.TableArn)
	td, pitr, ttl, tags = tfRead(t, c, name)
	if td.BillingModeSummary == nil || td.BillingModeSummary.BillingMode != types.BillingModePayPerRequest ||
		len(td.GlobalSecondaryIndexes) != 1 || aws.ToString(td.GlobalSecondaryIndexes[0].IndexName) != "by-owner" ||
		td.StreamSpecification != nil && aws.ToBool(td.StreamSpecification.StreamEnabled) || pitr ||
		ttl.TimeToLiveStatus != types.TimeToLiveStatusDisabled ||
		len(tags) != 1 || aws.ToString(tags[0].Key) != "env" || aws.ToString(tags[0].Value) != "prod" {
		t.Fatalf("after update: table %+v pitr %v ttl %+v tags %+v", td, pitr, ttl, tags)
	}
	// The provider reads OnDemandThroughput and WarmThroughput of the
	// table and of each GSI into state.
	if od := td.OnDemandThroughput; od == nil || aws.ToInt64(od.MaxReadRequestUnits) != -1 || aws.ToInt64(od.MaxWriteRequestUnits) != -1 {
		t.Fatalf("OnDemandThroughput after switch to PAY_PER_REQUEST: %+v", od)
	}
	if w := td.WarmThroughput; w == nil || w.Status != types.TableStatusActive || aws.ToInt64(w.ReadUnitsPerSecond) < 1 {
		t.Fatalf("WarmThroughput: %+v", w)
	}

	// Delete: DeleteTable, then DescribeTable until ResourceNotFoundException.
	if _, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
		t.Fatalf("delete: DeleteTable: %v", err)
	}
	tfWait(t, "table deleted", func(ctx context.Context) (bool, error) {
		_, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		var nf *types.ResourceNotFoundException
		if errors.As(err, &nf) {
			return true, nil
		}
		return false, err
	})
}

// tfApplyUpdate is the provider's resourceTableUpdate for a plan that
// switches the billing mode to PAY_PER_REQUEST, adds a GSI, disables the
// stream, changes tags and disables TTL and PITR: each change with its
// waiter.
func tfApplyUpdate(t *testing.T, c *dynamodb.Client, name string, arn *string) {
	t.Helper()
	ctx := ctxT(t)
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest}); err != nil {
		t.Fatalf("update: UpdateTable BillingMode: %v", err)
	}
	tfWait(t, "table ACTIVE after billing mode", tfTableActive(c, name))
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name),
		AttributeDefinitions:        attrDefs("id", "S", "ts", "N", "owner", "S"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{createGSIUpdate("by-owner", "owner")}}); err != nil {
		t.Fatalf("update: UpdateTable GSI Create: %v", err)
	}
	tfWait(t, "GSI ACTIVE", tfTableActive(c, name))
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}}); err != nil {
		t.Fatalf("update: UpdateTable stream: %v", err)
	}
	tfWait(t, "table ACTIVE after stream", tfTableActive(c, name))
	if _, err := c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: arn, TagKeys: []string{"team"}}); err != nil {
		t.Fatalf("update: UntagResource: %v", err)
	}
	if _, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: []types.Tag{{Key: aws.String("env"), Value: aws.String("prod")}}}); err != nil {
		t.Fatalf("update: TagResource: %v", err)
	}
	if _, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(false)}}); err != nil {
		t.Fatalf("update: UpdateTimeToLive: %v", err)
	}
	tfWait(t, "TTL DISABLED", tfTTL(c, name, types.TimeToLiveStatusDisabled))
	if _, err := c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(name),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(false)}}); err != nil {
		t.Fatalf("update: UpdateContinuousBackups: %v", err)
	}
	tfWait(t, "PITR DISABLED", tfPITR(c, name, types.PointInTimeRecoveryStatusDisabled))
}

// TestTableBrowserConnectFlows replays what dynamodb-admin, NoSQL
// Workbench and the IntelliJ DynamoDB plugin send when they connect and
// open a table: ListTables, DescribeTable of each table, ListBackups, then
// a Scan page of the opened table and a PartiQL SELECT.
func TestTableBrowserConnectFlows(t *testing.T) {
	_, c := startClient(t)
	ctx := ctxT(t)
	name := tableName("browse")
	createHashTable(t, c, name, "S")
	for _, k := range []string{"a", "b", "c"} {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": avS(k), "n": avN("1")}}); err != nil {
			t.Fatal(err)
		}
	}
	lt, err := c.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(100)})
	if err != nil || len(lt.TableNames) == 0 {
		t.Fatalf("ListTables: %v %v", lt, err)
	}
	found := false
	for _, n := range lt.TableNames {
		d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(n)})
		if err != nil {
			t.Fatalf("DescribeTable %s: %v", n, err)
		}
		found = found || n == name && aws.ToInt64(d.Table.ItemCount) == 3
	}
	if !found {
		t.Fatalf("ListTables/DescribeTable did not show %s with 3 items: %v", name, lt.TableNames)
	}
	lb, err := c.ListBackups(ctx, &dynamodb.ListBackupsInput{TableName: aws.String(name)})
	if err != nil || len(lb.BackupSummaries) != 0 {
		t.Fatalf("ListBackups: %+v %v", lb, err)
	}
	sc, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name), Limit: aws.Int32(2)})
	if err != nil || len(sc.Items) != 2 || sc.LastEvaluatedKey == nil {
		t.Fatalf("Scan page: %+v %v", sc, err)
	}
	sc, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name), Limit: aws.Int32(2), ExclusiveStartKey: sc.LastEvaluatedKey})
	if err != nil || len(sc.Items) != 1 {
		t.Fatalf("Scan next page: %+v %v", sc, err)
	}
	es, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "` + name + `" WHERE pk = 'b'`)})
	if err != nil || len(es.Items) != 1 || avText(es.Items[0]["pk"]) != `{"S":"b"}` {
		t.Fatalf("ExecuteStatement: %+v %v", es, err)
	}
}

// TestFeaturesSwitchedOff checks through the SDK the operations of features
// with no local service behind them (see internal/api's tests for their
// exact bodies) and the Streams ShardFilter.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_ShardFilter.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListGlobalTables.html
func TestFeaturesSwitchedOff(t *testing.T) {
	srv, c := startClient(t)
	ctx := ctxT(t)
	name := tableName("off")
	arn := createStreamTable(t, c, name, types.StreamViewTypeKeysOnly)

	ci, err := c.DescribeContributorInsights(ctx, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String(name)})
	if err != nil || ci.ContributorInsightsStatus != types.ContributorInsightsStatusDisabled || aws.ToString(ci.TableName) != name {
		t.Fatalf("DescribeContributorInsights: %+v %v", ci, err)
	}
	kd, err := c.DescribeKinesisStreamingDestination(ctx, &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String(name)})
	if err != nil || len(kd.KinesisDataStreamDestinations) != 0 {
		t.Fatalf("DescribeKinesisStreamingDestination: %+v %v", kd, err)
	}
	gl, err := c.ListGlobalTables(ctx, &dynamodb.ListGlobalTablesInput{})
	if err != nil || gl.GlobalTables == nil || len(gl.GlobalTables) != 0 {
		t.Fatalf("ListGlobalTables: %+v %v", gl, err)
	}
	_, err = c.DescribeGlobalTable(ctx, &dynamodb.DescribeGlobalTableInput{GlobalTableName: aws.String(name)})
	var gnf *types.GlobalTableNotFoundException
	if !errors.As(err, &gnf) {
		t.Fatalf("DescribeGlobalTable: want GlobalTableNotFoundException, got %v", err)
	}
	as, err := c.DescribeTableReplicaAutoScaling(ctx, &dynamodb.DescribeTableReplicaAutoScalingInput{TableName: aws.String(name)})
	if err != nil || aws.ToString(as.TableAutoScalingDescription.TableName) != name || len(as.TableAutoScalingDescription.Replicas) != 0 {
		t.Fatalf("DescribeTableReplicaAutoScaling: %+v %v", as, err)
	}

	sc := newStreamsClient(t, srv.Endpoint)
	ds, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil || len(ds.StreamDescription.Shards) != 1 {
		t.Fatalf("DescribeStream: %+v %v", ds, err)
	}
	shard := ds.StreamDescription.Shards[0].ShardId
	children, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn),
		ShardFilter: &stypes.ShardFilter{Type: stypes.ShardFilterTypeChildShards, ShardId: shard}})
	if err != nil || len(children.StreamDescription.Shards) != 0 || aws.ToString(children.StreamDescription.StreamArn) != arn {
		t.Fatalf("DescribeStream CHILD_SHARDS of %s: %+v %v", aws.ToString(shard), children, err)
	}
	_, err = sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn),
		ShardFilter: &stypes.ShardFilter{Type: "PARENT_SHARDS", ShardId: shard}})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value 'PARENT_SHARDS' at 'shardFilter.type' failed to satisfy constraint: Member must satisfy enum value set: [CHILD_SHARDS]")
}

// TestStoredSettingsSurviveRestart: the settings DynamoDB stores for
// features with no service here (contributor insights, a Kinesis
// destination, OnDemandThroughput, WarmThroughput) are in the table's
// catalog entry, so a restarted server on the same data describes them.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateContributorInsights.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_OnDemandThroughput.html
func TestStoredSettingsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	s, c := startClient(t, "--data-dir", dir)
	ctx := ctxT(t)
	name := tableName("kept")
	stream := "arn:aws:kinesis:us-east-1:000000000000:stream/kept"
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
		BillingMode:        types.BillingModePayPerRequest,
		OnDemandThroughput: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(40)},
		WarmThroughput:     &types.WarmThroughput{WriteUnitsPerSecond: aws.Int64(5000)},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateContributorInsights(ctx, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String(name),
		ContributorInsightsAction: types.ContributorInsightsActionEnable}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.EnableKinesisStreamingDestination(ctx, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String(name),
		StreamArn: aws.String(stream)}); err != nil {
		t.Fatal(err)
	}
	s.stop()

	_, c = startClient(t, "--data-dir", dir)
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	if od := d.Table.OnDemandThroughput; od == nil || aws.ToInt64(od.MaxReadRequestUnits) != 40 || aws.ToInt64(od.MaxWriteRequestUnits) != -1 {
		t.Fatalf("OnDemandThroughput after restart: %+v", od)
	}
	if w := d.Table.WarmThroughput; w == nil || aws.ToInt64(w.WriteUnitsPerSecond) != 5000 || aws.ToInt64(w.ReadUnitsPerSecond) != 12000 {
		t.Fatalf("WarmThroughput after restart: %+v", w)
	}
	ci, err := c.DescribeContributorInsights(ctx, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String(name)})
	if err != nil || ci.ContributorInsightsStatus != types.ContributorInsightsStatusEnabled || len(ci.ContributorInsightsRuleList) != 2 {
		t.Fatalf("DescribeContributorInsights after restart: %+v %v", ci, err)
	}
	kd, err := c.DescribeKinesisStreamingDestination(ctx, &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String(name)})
	if err != nil || len(kd.KinesisDataStreamDestinations) != 1 || aws.ToString(kd.KinesisDataStreamDestinations[0].StreamArn) != stream ||
		kd.KinesisDataStreamDestinations[0].DestinationStatus != types.DestinationStatusEnableFailed {
		t.Fatalf("DescribeKinesisStreamingDestination after restart: %+v %v", kd, err)
	}
}
