package api

// operations maps each DynamoDB operation name (the part of X-Amz-Target
// after "DynamoDB_20120810.") to its handler.
func operations() map[string]opFunc {
	return map[string]opFunc{
		"CreateTable":        (*Engine).createTable,
		"DescribeTable":      (*Engine).describeTable,
		"ListTables":         decoded((*Engine).listTables),
		"DeleteTable":        (*Engine).deleteTable,
		"UpdateTable":        (*Engine).updateTable,
		"TagResource":        (*Engine).tagResource,
		"UntagResource":      (*Engine).untagResource,
		"ListTagsOfResource": (*Engine).listTagsOfResource,
		// Resource-based policies (resource_policy.go).
		"PutResourcePolicy":     (*Engine).putResourcePolicy,
		"GetResourcePolicy":     (*Engine).getResourcePolicy,
		"DeleteResourcePolicy":  (*Engine).deleteResourcePolicy,
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
		"ExecuteStatement":      (*Engine).executeStatement,
		"BatchExecuteStatement": (*Engine).batchExecuteStatement,
		"ExecuteTransaction":    (*Engine).executeTransaction,
		"UpdateTimeToLive":      (*Engine).updateTimeToLive,
		"DescribeTimeToLive":    (*Engine).describeTimeToLive,
		// Backups (backups*.go).
		"CreateBackup":              (*Engine).createBackup,
		"DescribeBackup":            (*Engine).describeBackup,
		"ListBackups":               (*Engine).listBackups,
		"DeleteBackup":              (*Engine).deleteBackup,
		"RestoreTableFromBackup":    (*Engine).restoreTableFromBackup,
		"RestoreTableToPointInTime": (*Engine).restoreTableToPointInTime,
		"UpdateContinuousBackups":   (*Engine).updateContinuousBackups,
		"DescribeContinuousBackups": (*Engine).describeContinuousBackups,
		// Exports (exports*.go).
		"ExportTableToPointInTime": (*Engine).exportTableToPointInTime,
		"DescribeExport":           (*Engine).describeExport,
		"ListExports":              (*Engine).listExports,
		// Imports from S3 (imports*.go).
		"ImportTable":    (*Engine).importTable,
		"DescribeImport": (*Engine).describeImport,
		"ListImports":    (*Engine).listImports,
		// Features with no local service behind them: settings stored and
		// described, as DynamoDB does with the feature switched off
		// (contributor_insights.go, kinesis.go, global_tables.go).
		"DescribeContributorInsights":         (*Engine).describeContributorInsights,
		"UpdateContributorInsights":           (*Engine).updateContributorInsights,
		"ListContributorInsights":             (*Engine).listContributorInsights,
		"DescribeKinesisStreamingDestination": (*Engine).describeKinesisStreamingDestination,
		"EnableKinesisStreamingDestination":   (*Engine).enableKinesisStreamingDestination,
		"DisableKinesisStreamingDestination":  (*Engine).disableKinesisStreamingDestination,
		"UpdateKinesisStreamingDestination":   (*Engine).updateKinesisStreamingDestination,
		"DescribeTableReplicaAutoScaling":     (*Engine).describeTableReplicaAutoScaling,
		"UpdateTableReplicaAutoScaling":       (*Engine).updateTableReplicaAutoScaling,
		"CreateGlobalTable":                   (*Engine).createGlobalTable,
		"ListGlobalTables":                    (*Engine).listGlobalTables,
		"DescribeGlobalTable":                 (*Engine).globalTableNotFound,
		"UpdateGlobalTable":                   (*Engine).globalTableNotFound,
		"DescribeGlobalTableSettings":         (*Engine).globalTableNotFound,
		"UpdateGlobalTableSettings":           (*Engine).globalTableNotFound,
	}
}
