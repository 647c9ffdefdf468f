package api

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
)

// exprEnv holds one request's ExpressionAttributeNames and
// ExpressionAttributeValues and records which of them its expressions use.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ExpressionAttributeNames.html
type exprEnv struct {
	cache  *expr.Cache // the engine's parse cache
	names  map[string]string
	values map[string]item.AttributeValue
	usage  *expr.Usage
}

var (
	namePlaceholder  = regexp.MustCompile(`^#[0-9a-zA-Z_]+$`)
	valuePlaceholder = regexp.MustCompile(`^:[0-9a-zA-Z_]+$`)
)

// newExprEnv checks the placeholder maps as DynamoDB does before parsing any
// expression: neither may be empty, keys must be well formed, no name may be
// empty and every value must be a valid AttributeValue.
// https://github.com/mhart/dynalite/blob/master/validations/index.js (validateExpressions)
func (e *Engine) newExprEnv(names map[string]string, values map[string]item.AttributeValue) (*exprEnv, error) {
	if names != nil {
		if len(names) == 0 {
			return nil, ddberr.Validation("ExpressionAttributeNames must not be empty")
		}
		for _, k := range sortedKeys(names) {
			if !namePlaceholder.MatchString(k) {
				return nil, ddberr.Validation("ExpressionAttributeNames contains invalid key: Syntax error; key: \"%s\"", k)
			}
			// DynamoDB's message, word for word as applications written
			// against DynamoDB test for it in their error handling.
			if names[k] == "" {
				return nil, ddberr.Validation("ExpressionAttributeNames contains invalid value: Empty attribute name for key %s", k)
			}
			if err := checkAttributeName(names[k]); err != nil {
				return nil, err
			}
		}
	}
	if values != nil {
		if len(values) == 0 {
			return nil, ddberr.Validation("ExpressionAttributeValues must not be empty")
		}
		keys := sortedKeys(values)
		for _, k := range keys {
			if !valuePlaceholder.MatchString(k) {
				return nil, ddberr.Validation("ExpressionAttributeValues contains invalid key: Syntax error; key: \"%s\"", k)
			}
		}
		for _, k := range keys {
			if err := checkNestedNames(values[k]); err != nil {
				return nil, err
			}
			if err := item.Validate(values[k]); err != nil {
				return nil, ddberr.Validation("ExpressionAttributeValues contains invalid value: %s for key %s", errMessage(err), k)
			}
		}
	}
	return &exprEnv{cache: e.exprs, names: names, values: values, usage: expr.NewUsage()}, nil
}

// condition parses a ConditionExpression or FilterExpression; nil src is no
// condition.
func (x *exprEnv) condition(kind expr.Kind, src *string) (*expr.Condition, error) {
	if src == nil {
		return nil, nil
	}
	return x.cache.ParseCondition(kind, *src, x.names, x.values, x.usage)
}

// projection parses a ProjectionExpression; nil src is no projection.
func (x *exprEnv) projection(src *string) (*expr.Projection, error) {
	if src == nil {
		return nil, nil
	}
	return x.cache.ParseProjection(*src, x.names, x.usage)
}

// update parses an UpdateExpression; nil src is no update.
func (x *exprEnv) update(src *string) (*expr.Update, error) {
	if src == nil {
		return nil, nil
	}
	return x.cache.ParseUpdate(*src, x.names, x.values, x.usage)
}

// checkUnused rejects names and values no expression referenced.
func (x *exprEnv) checkUnused() error {
	return x.usage.CheckUnused(x.names, x.values)
}

// checkParams applies DynamoDB's rules on mixing expression parameters with
// their legacy counterparts (expr.CheckParameters); present lists the
// parameters the request carries.
func checkParams(present map[string]bool, exprParams, legacyParams []string, hasNames, hasValues bool) error {
	return expr.CheckParameters(func(p string) bool { return present[p] }, exprParams, legacyParams, hasNames, hasValues)
}

// conditionNames returns the top-level attribute names a condition reads.
func conditionNames(c *expr.Condition) []string {
	return c.TopLevelNames()
}

// errMessage returns the message of a DynamoDB error, or err's text.
func errMessage(err error) string {
	if de, ok := err.(*ddberr.Error); ok {
		return de.Message
	}
	return err.Error()
}

func sortedKeys[V any](m map[string]V) []string {
	if len(m) == 0 {
		return nil // without the iterator, which allocates
	}
	return slices.Sorted(maps.Keys(m))
}

func joinComma(s []string) string { return strings.Join(s, ", ") }
