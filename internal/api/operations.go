package api

// operations maps each DynamoDB operation name (the part of X-Amz-Target
// after "DynamoDB_20120810.") to its handler.
func operations() map[string]opFunc {
	return map[string]opFunc{
		"CreateTable":        createTableOp.handler(),
		"DescribeTable":      describeTableOp.handler(),
		"ListTables":         listTablesOp.handler(),
		"DeleteTable":        deleteTableOp.handler(),
		"UpdateTable":        updateTableOp.handler(),
		"TagResource":        tagResourceOp.handler(),
		"UntagResource":      untagResourceOp.handler(),
		"ListTagsOfResource": listTagsOfResourceOp.handler(),
		// Resource-based policies (resource_policy.go).
		"PutResourcePolicy":     putResourcePolicyOp.handler(),
		"GetResourcePolicy":     getResourcePolicyOp.handler(),
		"DeleteResourcePolicy":  deleteResourcePolicyOp.handler(),
		"DescribeLimits":        describeLimitsOp.handler(),
		"DescribeEndpoints":     describeEndpointsOp.handler(),
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
		"UpdateTimeToLive":      updateTimeToLiveOp.handler(),
		"DescribeTimeToLive":    describeTimeToLiveOp.handler(),
		// Backups (backups*.go).
		"CreateBackup":              createBackupOp.handler(),
		"DescribeBackup":            describeBackupOp.handler(),
		"ListBackups":               listBackupsOp.handler(),
		"DeleteBackup":              deleteBackupOp.handler(),
		"RestoreTableFromBackup":    restoreTableFromBackupOp.handler(),
		"RestoreTableToPointInTime": restoreTableToPointInTimeOp.handler(),
		"UpdateContinuousBackups":   updateContinuousBackupsOp.handler(),
		"DescribeContinuousBackups": describeContinuousBackupsOp.handler(),
		// Exports (exports*.go).
		"ExportTableToPointInTime": exportTableToPointInTimeOp.handler(),
		"DescribeExport":           describeExportOp.handler(),
		"ListExports":              listExportsOp.handler(),
		// Imports from S3 (imports*.go).
		"ImportTable":    importTableOp.handler(),
		"DescribeImport": describeImportOp.handler(),
		"ListImports":    listImportsOp.handler(),
		// Features with no local service behind them: settings stored and
		// described, as DynamoDB does with the feature switched off
		// (contributor_insights.go, kinesis.go, global_tables.go).
		"DescribeContributorInsights":         describeContributorInsightsOp.handler(),
		"UpdateContributorInsights":           updateContributorInsightsOp.handler(),
		"ListContributorInsights":             listContributorInsightsOp.handler(),
		"DescribeKinesisStreamingDestination": describeKinesisStreamingDestinationOp.handler(),
		"EnableKinesisStreamingDestination":   enableKinesisStreamingDestinationOp.handler(),
		"DisableKinesisStreamingDestination":  disableKinesisStreamingDestinationOp.handler(),
		"UpdateKinesisStreamingDestination":   updateKinesisStreamingDestinationOp.handler(),
		"DescribeTableReplicaAutoScaling":     describeTableReplicaAutoScalingOp.handler(),
		"UpdateTableReplicaAutoScaling":       updateTableReplicaAutoScalingOp.handler(),
		"CreateGlobalTable":                   createGlobalTableOp.handler(),
		"ListGlobalTables":                    listGlobalTablesOp.handler(),
		"DescribeGlobalTable":                 globalTableNotFoundOp.handler(),
		"UpdateGlobalTable":                   globalTableNotFoundOp.handler(),
		"DescribeGlobalTableSettings":         globalTableNotFoundOp.handler(),
		"UpdateGlobalTableSettings":           globalTableNotFoundOp.handler(),
	}
}
