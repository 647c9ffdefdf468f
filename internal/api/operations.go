package api

// operations maps each DynamoDB operation name (the part of X-Amz-Target
// after "DynamoDB_20120810.") to its handler.
func operations() map[string]opFunc {
	return map[string]opFunc{
		"CreateTable":           (*Engine).createTable,
		"DescribeTable":         (*Engine).describeTable,
		"ListTables":            decoded((*Engine).listTables),
		"DeleteTable":           (*Engine).deleteTable,
		"UpdateTable":           updateTable,
		"TagResource":           tagResource,
		"UntagResource":         untagResource,
		"ListTagsOfResource":    listTagsOfResource,
		"DescribeLimits":        (*Engine).describeLimits,
		"DescribeEndpoints":     (*Engine).describeEndpoints,
		"PutItem":               putItemOp.handler(),
		"GetItem":               getItemOp.handler(),
		"UpdateItem":            updateItemOp.handler(),
		"DeleteItem":            deleteItemOp.handler(),
		"Query":                 queryOp.handler(),
		"Scan":                  scanOp.handler(),
		"BatchGetItem":          decoded((*Engine).batchGetItem),
		"BatchWriteItem":        decoded((*Engine).batchWriteItem),
		"TransactWriteItems":    (*Engine).transactWriteItems,
		"TransactGetItems":      (*Engine).transactGetItems,
		"ExecuteStatement":      executeStatement,
		"BatchExecuteStatement": batchExecuteStatement,
		"ExecuteTransaction":    executeTransaction,
		"UpdateTimeToLive":      updateTimeToLive,
		"DescribeTimeToLive":    describeTimeToLive,
		// Backups (backups*.go).
		"CreateBackup":              createBackup,
		"DescribeBackup":            describeBackup,
		"ListBackups":               listBackups,
		"DeleteBackup":              deleteBackup,
		"RestoreTableFromBackup":    restoreTableFromBackup,
		"RestoreTableToPointInTime": restoreTableToPointInTime,
		"UpdateContinuousBackups":   updateContinuousBackups,
		"DescribeContinuousBackups": describeContinuousBackups,
		// Features with no local service behind them: settings stored and
		// described, as DynamoDB does with the feature switched off
		// (contributor_insights.go, kinesis.go, global_tables.go).
		"DescribeContributorInsights":         describeContributorInsights,
		"UpdateContributorInsights":           updateContributorInsights,
		"ListContributorInsights":             listContributorInsights,
		"DescribeKinesisStreamingDestination": describeKinesisStreamingDestination,
		"EnableKinesisStreamingDestination":   enableKinesisStreamingDestination,
		"DisableKinesisStreamingDestination":  disableKinesisStreamingDestination,
		"UpdateKinesisStreamingDestination":   updateKinesisStreamingDestination,
		"DescribeTableReplicaAutoScaling":     describeTableReplicaAutoScaling,
		"UpdateTableReplicaAutoScaling":       updateTableReplicaAutoScaling,
		"CreateGlobalTable":                   createGlobalTable,
		"ListGlobalTables":                    listGlobalTables,
		"DescribeGlobalTable":                 globalTableNotFound,
		"UpdateGlobalTable":                   globalTableNotFound,
		"DescribeGlobalTableSettings":         globalTableNotFound,
		"UpdateGlobalTableSettings":           globalTableNotFound,
	}
}
