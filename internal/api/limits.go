package api

import (
	"context"

	"github.com/extenddb/extenddb/internal/storage"
)

// DescribeLimits reports DynamoDB's default account and table quotas.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeLimits.html
type describeLimitsOutput struct {
	AccountMaxReadCapacityUnits  int64
	AccountMaxWriteCapacityUnits int64
	TableMaxReadCapacityUnits    int64
	TableMaxWriteCapacityUnits   int64
}

var describeLimitsOp = &controlOp[struct{}]{execute: (*Engine).describeLimits}

func (e *Engine) describeLimits(context.Context, caller, *struct{}, *storage.Table) (any, error) {
	return describeLimitsOutput{
		AccountMaxReadCapacityUnits:  80000,
		AccountMaxWriteCapacityUnits: 80000,
		TableMaxReadCapacityUnits:    40000,
		TableMaxWriteCapacityUnits:   40000,
	}, nil
}

// DescribeEndpoints names the endpoint a client should use: this server's
// own address, as the request reached it.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeEndpoints.html
type endpoint struct {
	Address              string
	CachePeriodInMinutes int64
}

type describeEndpointsOutput struct {
	Endpoints []endpoint
}

var describeEndpointsOp = &controlOp[struct{}]{execute: (*Engine).describeEndpoints}

func (e *Engine) describeEndpoints(_ context.Context, c caller, _ *struct{}, _ *storage.Table) (any, error) {
	addr := c.host
	if addr == "" {
		addr = "dynamodb." + c.region + ".amazonaws.com"
	}
	return describeEndpointsOutput{Endpoints: []endpoint{{Address: addr, CachePeriodInMinutes: 1440}}}, nil
}
