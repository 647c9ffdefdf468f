package api

import (
	"context"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/storage"
)

// maxTotalSegments is the largest TotalSegments of a parallel Scan.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Scan.html#DDB-Scan-request-TotalSegments
const maxTotalSegments = 1000000

// scanInput is Scan's request.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Scan.html
type scanInput struct {
	readInput
	ScanFilter    map[string]expr.LegacyCondition
	TotalSegments *int64
	Segment       *int64
}

// scanOp is Scan. Its members are reported in DynamoDB's order.
// https://github.com/mhart/dynalite/blob/master/test/scan.js ("incorrect attributes")
var scanOp = itemOp[scanInput](readMembers,
	"tableName indexName limit select returnConsumedCapacity conditionalOperator attributesToGet segment totalSegments scanFilter",
	map[string]rule[scanInput]{
		"segment":       rangeRule("segment", func(in *scanInput) *int64 { return in.Segment }, 0, maxTotalSegments-1),
		"totalSegments": rangeRule("totalSegments", func(in *scanInput) *int64 { return in.TotalSegments }, 1, maxTotalSegments),
		"scanFilter":    conditionsRule("scanFilter", false, func(in *scanInput) map[string]expr.LegacyCondition { return in.ScanFilter }),
	},
	(*Engine).checkScan, (*Engine).scan)

// checkScan is Scan's checks before its table.
func (e *Engine) checkScan(in *scanInput) error {
	if err := (readSelect{in.Select, in.AttributesToGet, in.ProjectionExpression, in.IndexName, ""}).check(); err != nil {
		return err
	}
	if err := checkParams(map[string]bool{
		"ProjectionExpression": in.ProjectionExpression != nil, "FilterExpression": in.FilterExpression != nil,
		"AttributesToGet": in.AttributesToGet != nil, "ScanFilter": in.ScanFilter != nil, "ConditionalOperator": in.ConditionalOperator != nil},
		[]string{"ProjectionExpression", "FilterExpression"},
		[]string{"AttributesToGet", "ScanFilter", "ConditionalOperator"},
		in.ExpressionAttributeNames != nil, in.ExpressionAttributeValues != nil); err != nil {
		return err
	}
	if err := expr.CheckConditionalOperator(in.ConditionalOperator, len(in.ScanFilter)); err != nil {
		return err
	}
	if err := in.checkStart(); err != nil {
		return err
	}
	if err := checkSegments(in.Segment, in.TotalSegments); err != nil {
		return err
	}
	return e.parseExpressions(&in.readInput, nil, "ScanFilter", in.ScanFilter)
}

// scan reads a checked Scan request's page.
func (e *Engine) scan(ctx context.Context, in *scanInput, t *storage.Table) (any, error) {
	p, start, err := in.plan(t, false, e.now())
	if err != nil {
		return nil, err
	}
	if err := checkProjectionKeyPaths(t, in.proj); err != nil {
		return nil, err
	}
	s := &storage.ScanRequest{ExclusiveStart: start, Consistent: p.consistent}
	if p.ix != nil {
		s.Index = p.ix.IndexName
	}
	if in.TotalSegments != nil {
		s.Segment, s.TotalSegments = int(*in.Segment), int(*in.TotalSegments)
	}
	return e.run(ctx, p, func(raw bool, visit storage.VisitFunc) error {
		s.Raw = raw
		return e.store.Scan(ctx, t, s, visit)
	})
}

// checkSegments applies the rules pairing Segment with TotalSegments.
// https://github.com/mhart/dynalite/blob/master/validations/scan.js
func checkSegments(segment, total *int64) error {
	if segment != nil && total == nil {
		return ddberr.Validation("The TotalSegments parameter is required but was not present in the request when Segment parameter is present")
	}
	if total != nil {
		if segment == nil {
			return ddberr.Validation("The Segment parameter is required but was not present in the request when parameter TotalSegments is present")
		}
		if *segment >= *total {
			return ddberr.Validation("The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: %d is not less than TotalSegments: %d", *segment, *total)
		}
	}
	return nil
}
