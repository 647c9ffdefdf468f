package api

import (
	"context"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/protocol"
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
	GlobalTableName  *string        `json:"GlobalTableName"`
	ReplicationGroup []replicaInput `json:"ReplicationGroup"`
	ReplicaUpdates   []anyMember    `json:"ReplicaUpdates"`
}

type replicaInput struct {
	RegionName *string `json:"RegionName"`
}

// anyMember accepts a member whose shape is not checked.
type anyMember = map[string]any

func errGlobalTableNotFound(name string) error {
	return ddberr.GlobalTableNotFound("Global table not found: Global table with name: '%s' does not exist.", name)
}

func checkGlobalTableName(in *globalTableInput) error {
	var c constraints
	if c.notNull(in.GlobalTableName != nil, "globalTableName") {
		c.name(in.GlobalTableName, "globalTableName")
	}
	return c.err()
}

// globalTableNotFound serves DescribeGlobalTable, UpdateGlobalTable,
// DescribeGlobalTableSettings and UpdateGlobalTableSettings.
func (e *Engine) globalTableNotFound(ctx context.Context, r *protocol.Request) (any, error) {
	var in globalTableInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	if err := checkGlobalTableName(&in); err != nil {
		return nil, err
	}
	return nil, errGlobalTableNotFound(*in.GlobalTableName)
}

// createGlobalTable checks that the table exists in every region of the
// replication group, as DynamoDB does, and then refuses: this server does
// not replicate tables between regions.
func (e *Engine) createGlobalTable(ctx context.Context, r *protocol.Request) (any, error) {
	var in globalTableInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraints
	if c.notNull(in.GlobalTableName != nil, "globalTableName") {
		c.name(in.GlobalTableName, "globalTableName")
	}
	if c.notNull(in.ReplicationGroup != nil, "replicationGroup") {
		for i, rep := range in.ReplicationGroup {
			c.notNull(rep.RegionName != nil, "replicationGroup."+itoa(i+1)+".member.regionName")
		}
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	for _, rep := range in.ReplicationGroup {
		region := *rep.RegionName
		if region != r.Caller.Region {
			return nil, ddberr.TableNotFound("Table not found: Table: '%s' not found in region: '%s'.", *in.GlobalTableName, region)
		}
		if _, err := e.lookup(ctx, e.account(r), *in.GlobalTableName, lookupControl); err != nil {
			return nil, ddberr.TableNotFound("Table not found: Table: '%s' not found in region: '%s'.", *in.GlobalTableName, region)
		}
	}
	return nil, ddberr.Validation("Global tables are not supported by this server: a table has one copy, in one region")
}

type listGlobalTablesInput struct {
	ExclusiveStartGlobalTableName *string `json:"ExclusiveStartGlobalTableName"`
	Limit                         *int64  `json:"Limit"`
	RegionName                    *string `json:"RegionName"`
}

func (e *Engine) listGlobalTables(ctx context.Context, r *protocol.Request) (any, error) {
	var in listGlobalTablesInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraints
	c.name(in.ExclusiveStartGlobalTableName, "exclusiveStartGlobalTableName")
	c.minInt(in.Limit, "limit", 1)
	if err := c.err(); err != nil {
		return nil, err
	}
	return map[string][]struct{}{"GlobalTables": {}}, nil
}

type tableAutoScalingDescription struct {
	TableName   string     `json:"TableName"`
	TableStatus string     `json:"TableStatus"`
	Replicas    []struct{} `json:"Replicas"`
}

func (e *Engine) describeTableReplicaAutoScaling(ctx context.Context, r *protocol.Request) (any, error) {
	t, err := e.namedTable(ctx, r)
	if err != nil {
		return nil, err
	}
	return map[string]tableAutoScalingDescription{"TableAutoScalingDescription": {
		TableName: t.Name, TableStatus: e.status(t), Replicas: []struct{}{},
	}}, nil
}

// updateTableReplicaAutoScaling refuses, after validating the table, as
// DynamoDB refuses it for a table that has no replicas: auto scaling
// settings belong to Application Auto Scaling, which is not served here.
func (e *Engine) updateTableReplicaAutoScaling(ctx context.Context, r *protocol.Request) (any, error) {
	t, err := e.namedTable(ctx, r)
	if err != nil {
		return nil, err
	}
	return nil, ddberr.Validation("Table: %s is not a global table: replica auto scaling applies to global tables (version 2019.11.21)", t.Name)
}
