package api

import (
	"context"

	"github.com/extenddb/extenddb/internal/protocol"
)

// DescribeLimits reports DynamoDB's default account and table quotas.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeLimits.html
type describeLimitsOutput struct {
	AccountMaxReadCapacityUnits  int64 `json:"AccountMaxReadCapacityUnits"`
	AccountMaxWriteCapacityUnits int64 `json:"AccountMaxWriteCapacityUnits"`
	TableMaxReadCapacityUnits    int64 `json:"TableMaxReadCapacityUnits"`
	TableMaxWriteCapacityUnits   int64 `json:"TableMaxWriteCapacityUnits"`
}

func (e *Engine) describeLimits(ctx context.Context, r *protocol.Request) (any, error) {
	var in struct{}
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
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
	Address              string `json:"Address"`
	CachePeriodInMinutes int64  `json:"CachePeriodInMinutes"`
}

type describeEndpointsOutput struct {
	Endpoints []endpoint `json:"Endpoints"`
}

func (e *Engine) describeEndpoints(ctx context.Context, r *protocol.Request) (any, error) {
	var in struct{}
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	addr := r.Host
	if addr == "" {
		addr = "dynamodb." + r.Caller.Region + ".amazonaws.com"
	}
	return describeEndpointsOutput{Endpoints: []endpoint{{Address: addr, CachePeriodInMinutes: 1440}}}, nil
}
