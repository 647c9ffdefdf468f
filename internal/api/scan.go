package api

import (
	"context"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/storage"
)

// maxTotalSegments is the largest TotalSegments of a parallel Scan.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Scan.html#DDB-Scan-request-TotalSegments
const maxTotalSegments = 1000000

// scanInput is Scan's request.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Scan.html
type scanInput struct {
	TableName                 *string                         `json:"TableName"`
	IndexName                 *string                         `json:"IndexName"`
	AttributesToGet           []string                        `json:"AttributesToGet"`
	Limit                     *int64                          `json:"Limit"`
	Select                    *string                         `json:"Select"`
	ScanFilter                map[string]expr.LegacyCondition `json:"ScanFilter"`
	ConditionalOperator       *string                         `json:"ConditionalOperator"`
	ExclusiveStartKey         item.Item                       `json:"ExclusiveStartKey"`
	ReturnConsumedCapacity    *string                         `json:"ReturnConsumedCapacity"`
	TotalSegments             *int64                          `json:"TotalSegments"`
	Segment                   *int64                          `json:"Segment"`
	ProjectionExpression      *string                         `json:"ProjectionExpression"`
	FilterExpression          *string                         `json:"FilterExpression"`
	ExpressionAttributeNames  map[string]string               `json:"ExpressionAttributeNames"`
	ExpressionAttributeValues map[string]item.AttributeValue  `json:"ExpressionAttributeValues"`
	ConsistentRead            *bool                           `json:"ConsistentRead"`
}

func scan(e *Engine, ctx context.Context, r *protocol.Request) (any, error) {
	var in scanInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraints
	readConstraints(&c, in.TableName, in.IndexName, in.Select, in.ReturnConsumedCapacity, in.ConditionalOperator, in.Limit, in.AttributesToGet)
	c.minInt(in.Segment, "segment", 0)
	c.maxInt(in.Segment, "segment", maxTotalSegments-1)
	c.minInt(in.TotalSegments, "totalSegments", 1)
	c.maxInt(in.TotalSegments, "totalSegments", maxTotalSegments)
	conditionConstraints(&c, in.ScanFilter, "scanFilter")
	if err := c.err(); err != nil {
		return nil, err
	}
	if err := (readSelect{in.Select, in.AttributesToGet, in.ProjectionExpression, in.IndexName, ""}).check(); err != nil {
		return nil, err
	}
	if err := checkParams(map[string]bool{
		"ProjectionExpression": in.ProjectionExpression != nil, "FilterExpression": in.FilterExpression != nil,
		"AttributesToGet": in.AttributesToGet != nil, "ScanFilter": in.ScanFilter != nil, "ConditionalOperator": in.ConditionalOperator != nil},
		[]string{"ProjectionExpression", "FilterExpression"},
		[]string{"AttributesToGet", "ScanFilter", "ConditionalOperator"},
		in.ExpressionAttributeNames != nil, in.ExpressionAttributeValues != nil); err != nil {
		return nil, err
	}
	if err := expr.CheckConditionalOperator(in.ConditionalOperator, len(in.ScanFilter)); err != nil {
		return nil, err
	}
	var proj *expr.Projection
	var err error
	if in.AttributesToGet != nil {
		if proj, err = expr.ConvertAttributesToGet(in.AttributesToGet); err != nil {
			return nil, err
		}
	}
	if err := checkStartKeyValues(in.ExclusiveStartKey); err != nil {
		return nil, err
	}
	if err := checkSegments(in.Segment, in.TotalSegments); err != nil {
		return nil, err
	}

	var filter *expr.Condition
	if in.FilterExpression != nil || in.ProjectionExpression != nil {
		x, err := newExprEnv(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
		if err != nil {
			return nil, err
		}
		if filter, err = x.condition(expr.KindFilter, in.FilterExpression); err != nil {
			return nil, err
		}
		if in.ProjectionExpression != nil {
			if proj, err = x.projection(in.ProjectionExpression); err != nil {
				return nil, err
			}
		}
		if err := x.checkUnused(); err != nil {
			return nil, err
		}
	}
	if in.FilterExpression == nil && in.ScanFilter != nil {
		if filter, err = expr.ConvertFilter("ScanFilter", in.ScanFilter, opString(in.ConditionalOperator)); err != nil {
			return nil, err
		}
	}

	t, err := e.dataTable(ctx, r, *in.TableName)
	if err != nil {
		return nil, err
	}
	consistent := in.ConsistentRead != nil && *in.ConsistentRead
	ix, err := resolveIndex(t, in.IndexName, consistent, in.Select)
	if err != nil {
		return nil, err
	}
	p := newReadPlan(t, ix, in.Select, proj, filter, in.Limit, consistent, capacityMode(in.ReturnConsumedCapacity))
	start, err := startPosition(p, in.ExclusiveStartKey, false)
	if err != nil {
		return nil, err
	}
	if err := checkProjectionKeyPaths(t, proj); err != nil {
		return nil, err
	}
	s := &storage.ScanRequest{ExclusiveStart: start, Consistent: p.consistent}
	if ix != nil {
		s.Index = ix.IndexName
	}
	if in.TotalSegments != nil {
		s.Segment, s.TotalSegments = int(*in.Segment), int(*in.TotalSegments)
	}
	return e.run(ctx, p, func(visit storage.VisitFunc) error { return e.store.Scan(ctx, t, s, visit) })
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
