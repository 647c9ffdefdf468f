package api

// operations maps each DynamoDB operation name (the part of X-Amz-Target
// after "DynamoDB_20120810.") to its handler.
func operations() map[string]opFunc {
	return map[string]opFunc{
		"CreateTable":           createTable,
		"DescribeTable":         describeTable,
		"ListTables":            listTables,
		"DeleteTable":           deleteTable,
		"UpdateTable":           updateTable,
		"TagResource":           tagResource,
		"UntagResource":         untagResource,
		"ListTagsOfResource":    listTagsOfResource,
		"DescribeLimits":        describeLimits,
		"DescribeEndpoints":     describeEndpoints,
		"PutItem":               putItemOp.handler(),
		"GetItem":               getItemOp.handler(),
		"UpdateItem":            updateItemOp.handler(),
		"DeleteItem":            deleteItemOp.handler(),
		"Query":                 queryOp.handler(),
		"Scan":                  scanOp.handler(),
		"BatchGetItem":          batchGetItem,
		"BatchWriteItem":        batchWriteItem,
		"TransactWriteItems":    transactWriteItems,
		"TransactGetItems":      transactGetItems,
		"ExecuteStatement":      executeStatement,
		"BatchExecuteStatement": batchExecuteStatement,
		"ExecuteTransaction":    executeTransaction,
		"UpdateTimeToLive":      updateTimeToLive,
		"DescribeTimeToLive":    describeTimeToLive,
	}
}
