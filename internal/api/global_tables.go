package api

import (
	"context"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/storage"
)

// Global tables and replica auto scaling. This server keeps one copy of
// each table in one region, so no table is global: ListGlobalTables lists
// none, the operations on a global table answer GlobalTableNotFoundException,
// DescribeTableReplicaAutoScaling describes a table without replicas, and
// the operations that would replicate a table are refused after their
// input is validated (docs/adr/0014, docs/differences-from-dynamodb.md).
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListGlobalTables.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeGlobalTable.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateGlobalTable.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeTableReplicaAutoScaling.html

type globalTableInput struct {
	GlobalTableName  *string
	ReplicationGroup []replicaInput
	ReplicaUpdates   []anyMember
}

type replicaInput struct {
	RegionName *string
}

// anyMember accepts a member whose shape is not checked.
type anyMember = map[string]any

func errGlobalTableNotFound(name string) error {
	return ddberr.GlobalTableNotFound("Global table not found: Global table with name: '%s' does not exist.", name)
}

// globalTableNameRule is GlobalTableName: required, a table name.
var globalTableNameRule rule[globalTableInput] = func(in *globalTableInput, c *constraints) {
	if c.notNull(in.GlobalTableName != nil, "globalTableName") {
		c.name(in.GlobalTableName, "globalTableName")
	}
}

var (
	// globalTableNotFoundOp serves DescribeGlobalTable, UpdateGlobalTable,
	// DescribeGlobalTableSettings and UpdateGlobalTableSettings.
	globalTableNotFoundOp = &controlOp[globalTableInput]{
		rules: rules[globalTableInput]{globalTableNameRule},
		execute: func(_ *Engine, _ context.Context, _ caller, in *globalTableInput, _ *storage.Table) (any, error) {
			return nil, errGlobalTableNotFound(*in.GlobalTableName)
		},
	}
	createGlobalTableOp = &controlOp[globalTableInput]{
		rules: rules[globalTableInput]{
			globalTableNameRule,
			func(in *globalTableInput, c *constraints) {
				if c.notNull(in.ReplicationGroup != nil, "replicationGroup") {
					for i, rep := range in.ReplicationGroup {
						c.notNull(rep.RegionName != nil, "replicationGroup."+itoa(i+1)+".member.regionName")
					}
				}
			},
		},
		execute: (*Engine).createGlobalTable,
	}
	listGlobalTablesOp = &controlOp[listGlobalTablesInput]{
		rules: rules[listGlobalTablesInput]{
			nameRule("exclusiveStartGlobalTableName", func(in *listGlobalTablesInput) *string { return in.ExclusiveStartGlobalTableName }),
			minRule("limit", func(in *listGlobalTablesInput) *int64 { return in.Limit }, 1),
		},
		execute: func(_ *Engine, _ context.Context, _ caller, _ *listGlobalTablesInput, _ *storage.Table) (any, error) {
			return map[string][]struct{}{"GlobalTables": {}}, nil
		},
	}
)

// createGlobalTable checks that the table exists in every region of the
// replication group, as DynamoDB does, and then refuses: this server does
// not replicate tables between regions.
func (e *Engine) createGlobalTable(ctx context.Context, c caller, in *globalTableInput, _ *storage.Table) (any, error) {
	for _, rep := range in.ReplicationGroup {
		region := *rep.RegionName
		if region != c.region {
			return nil, ddberr.TableNotFound("Table not found: Table: '%s' not found in region: '%s'.", *in.GlobalTableName, region)
		}
		if _, err := e.lookup(ctx, c.account, *in.GlobalTableName, lookupControl); err != nil {
			return nil, ddberr.TableNotFound("Table not found: Table: '%s' not found in region: '%s'.", *in.GlobalTableName, region)
		}
	}
	return nil, ddberr.Validation("Global tables are not supported by this server: a table has one copy, in one region")
}

type listGlobalTablesInput struct {
	ExclusiveStartGlobalTableName *string
	Limit                         *int64
	RegionName                    *string
}

type tableAutoScalingDescription struct {
	TableName   string
	TableStatus string
	Replicas    []struct{}
}

var describeTableReplicaAutoScalingOp = namedTableOp((*Engine).describeTableReplicaAutoScaling)

func (e *Engine) describeTableReplicaAutoScaling(_ context.Context, _ caller, _ *tableNameInput, t *storage.Table) (any, error) {
	return map[string]tableAutoScalingDescription{"TableAutoScalingDescription": {
		TableName: t.Name, TableStatus: e.status(t), Replicas: []struct{}{},
	}}, nil
}

// updateTableReplicaAutoScaling refuses, after validating the table, as
// DynamoDB refuses it for a table that has no replicas: auto scaling
// settings belong to Application Auto Scaling, which is not served here.
var updateTableReplicaAutoScalingOp = namedTableOp((*Engine).updateTableReplicaAutoScaling)

func (e *Engine) updateTableReplicaAutoScaling(_ context.Context, _ caller, _ *tableNameInput, t *storage.Table) (any, error) {
	return nil, ddberr.Validation("Table: %s is not a global table: replica auto scaling applies to global tables (version 2019.11.21)", t.Name)
}
