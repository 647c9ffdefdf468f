package api

import (
	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Projections of reads: a ProjectionExpression or AttributesToGet parsed
// into an *expr.Projection; nil keeps every attribute.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ProjectionExpressions.html

// projectItem returns the projected image of it (it itself without a
// projection). An item none of whose attributes is selected comes back
// empty, not absent.
func projectItem(p *expr.Projection, it item.Item) item.Item {
	if p == nil || it == nil {
		return it
	}
	out := p.Project(it)
	if out == nil {
		out = item.Item{}
	}
	return out
}

// projectionPaths returns the paths of p (nil without a projection).
func projectionPaths(p *expr.Projection) []expr.Path {
	if p == nil {
		return nil
	}
	return p.Paths()
}

// projectedAll reports whether index ix holds every one of names.
func projectedAll(t *storage.Table, ix *storage.Index, names []string) bool {
	if ix.Projection.ProjectionType == storage.ProjectAll || ix.Projection.ProjectionType == "" {
		return true
	}
	tks, iks := schemaOf(t, t.KeySchema), schemaOf(t, ix.KeySchema)
	for _, n := range names {
		if tks.has(n) || iks.has(n) {
			continue
		}
		found := false
		if ix.Projection.ProjectionType == storage.ProjectInclude {
			for _, a := range ix.Projection.NonKeyAttributes {
				if a == n {
					found = true
					break
				}
			}
		}
		if !found {
			return false
		}
	}
	return true
}
