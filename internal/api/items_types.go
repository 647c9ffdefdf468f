package api

import (
	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
)

// Wire shapes shared by the item operations. Member names are DynamoDB's;
// see https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Types_Amazon_DynamoDB.html

// Enum value sets, in the order DynamoDB lists them in constraint messages.
var (
	enumReturnConsumedCapacity      = []string{"INDEXES", "TOTAL", "NONE"}
	enumReturnItemCollectionMetrics = []string{"SIZE", "NONE"}
	enumReturnValues                = []string{"ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"}
	enumReturnValuesOnFailure       = []string{"ALL_OLD", "NONE"}
	enumConditionalOperator         = []string{"OR", "AND"}
	enumSelect                      = []string{"SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"}
	enumAttributeAction             = []string{"ADD", "PUT", "DELETE"}
)

// validateItemValues reports the first invalid AttributeValue of it, in
// attribute-name order so the answer is deterministic.
func validateItemValues(it item.Item) error {
	if len(it) == 0 {
		return nil
	}
	for _, k := range sortedKeys(it) {
		if err := item.Validate(it[k]); err != nil {
			return err
		}
	}
	return nil
}

// returnValuesMode parses ReturnValues (already checked against its enum).
func returnValuesMode(s *string) string {
	if s == nil {
		return "NONE"
	}
	return *s
}

// conditionFailed is ConditionalCheckFailedException, carrying the item's
// current image when ReturnValuesOnConditionCheckFailure is ALL_OLD.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html#DDB-PutItem-request-ReturnValuesOnConditionCheckFailure
func conditionFailed(onFailure *string, old item.Item) error {
	err := ddberr.ConditionalCheckFailed()
	if onFailure != nil && *onFailure == "ALL_OLD" && old != nil {
		return err.With("Item", old)
	}
	return err
}
