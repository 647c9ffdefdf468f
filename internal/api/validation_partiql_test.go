package api

import (
	"strings"
	"testing"
)

// The member constraints of the three PartiQL operations, which share the
// members of ParameterizedStatement: Statement 1 to 8,192 characters,
// ReturnValuesOnConditionCheckFailure ALL_OLD or NONE, the statement lists
// 1 to 25 (BatchExecuteStatement) and 1 to 100 (ExecuteTransaction)
// entries, ClientRequestToken 1 to 36 characters.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ParameterizedStatement.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchStatementRequest.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteTransaction.html
func TestValidationPartiQLMembers(t *testing.T) {
	e := itemEngine(t)
	const (
		srcExec  = "https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteStatement.html"
		srcBatch = "https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchExecuteStatement.html"
		srcTx    = "https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteTransaction.html"
		vOnFail  = "failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]"
	)
	long := strings.Repeat("a", maxStatementChars+1)
	runValidations(t, e, "ExecuteStatement", []validation{
		{"no statement", `{}`, n1("Value null at 'statement' " + vNull), srcExec},
		{"every member", `{"Statement":"","Parameters":[],"Limit":0,"ReturnConsumedCapacity":"x","ReturnValuesOnConditionCheckFailure":"y"}`,
			"ValidationException: 5 validation errors detected: Value '' at 'statement' " + vEmptyList +
				"; Value '[]' at 'parameters' " + vEmptyList +
				"; Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1" +
				"; Value 'x' at 'returnConsumedCapacity' " + vRCC +
				"; Value 'y' at 'returnValuesOnConditionCheckFailure' " + vOnFail, srcExec},
	})
	runValidations(t, e, "BatchExecuteStatement", []validation{
		{"no statements", `{}`, n1("Value null at 'statements' " + vNull), srcBatch},
		{"empty statements", `{"Statements":[]}`, n1("Value '[...]' at 'statements' " + vEmptyList), srcBatch},
		{"too many statements", `{"Statements":[` + strings.Repeat(`{"Statement":"SELECT * FROM hash"},`, maxBatchStatements) + `{"Statement":"SELECT * FROM hash"}]}`,
			n1("Value '[...]' at 'statements' failed to satisfy constraint: Member must have length less than or equal to 25"), srcBatch},
		{"statement members", `{"Statements":[{"Statement":"SELECT * FROM hash"},{"ReturnValuesOnConditionCheckFailure":"x"},{"Statement":"` + long + `"}],"ReturnConsumedCapacity":"y"}`,
			"ValidationException: 4 validation errors detected: Value null at 'statements.2.member.statement' " + vNull +
				"; Value 'x' at 'statements.2.member.returnValuesOnConditionCheckFailure' " + vOnFail +
				"; Value '" + long + "' at 'statements.3.member.statement' failed to satisfy constraint: Member must have length less than or equal to 8192" +
				"; Value 'y' at 'returnConsumedCapacity' " + vRCC, srcBatch},
	})
	runValidations(t, e, "ExecuteTransaction", []validation{
		{"no statements", `{}`, n1("Value null at 'transactStatements' " + vNull), srcTx},
		{"empty statements", `{"TransactStatements":[]}`, n1("Value '[...]' at 'transactStatements' " + vEmptyList), srcTx},
		{"statement members", `{"TransactStatements":[{"Statement":"","ReturnValuesOnConditionCheckFailure":"x"}],"ClientRequestToken":"","ReturnConsumedCapacity":"y"}`,
			"ValidationException: 4 validation errors detected: Value '' at 'transactStatements.1.member.statement' " + vEmptyList +
				"; Value 'x' at 'transactStatements.1.member.returnValuesOnConditionCheckFailure' " + vOnFail +
				"; Value '' at 'clientRequestToken' " + vEmptyList +
				"; Value 'y' at 'returnConsumedCapacity' " + vRCC, srcTx},
	})
}
