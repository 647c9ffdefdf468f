#!/usr/bin/env bash
# DynamoDB's getting-started tutorial in its PartiQL form, run with the AWS
# CLI's execute-statement, batch-execute-statement and execute-transaction
# against the endpoint in $ENDPOINT:
#   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/getting-started-step-2.html
#   (the "PartiQL for DynamoDB" tabs of steps 2 to 5)
#   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.multiplestatements.batching.html
#   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.multiplestatements.transactions.html
# Each step checks what the tutorial says it shows; any difference exits non-zero.
#
#   ENDPOINT=http://127.0.0.1:8000 AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x \
#     AWS_DEFAULT_REGION=us-east-1 bash e2e/tutorial/music_partiql_cli.sh
set -euo pipefail

: "${ENDPOINT:?set ENDPOINT to the server URL, e.g. http://127.0.0.1:8000}"

ddb() { aws dynamodb --endpoint-url "$ENDPOINT" --output json "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() { # expect NAME WANT GOT
	if [[ "$3" != "$2" ]]; then fail "$1: want [$2], got [$3]"; fi
	echo "ok: $1"
}

echo "== create the table"
ddb create-table \
	--table-name Music \
	--attribute-definitions \
		AttributeName=Artist,AttributeType=S \
		AttributeName=SongTitle,AttributeType=S \
	--key-schema AttributeName=Artist,KeyType=HASH AttributeName=SongTitle,KeyType=RANGE \
	--billing-mode PAY_PER_REQUEST >/dev/null
ddb wait table-exists --table-name Music

echo "== write data (execute-statement INSERT)"
got=$(ddb execute-statement --statement "INSERT INTO Music VALUE {'Artist':'No One You Know','SongTitle':'Call Me Today', 'AlbumTitle':'Somewhat Famous', 'Awards':'1'}" --query 'length(Items)')
expect "INSERT returns no items" 0 "$got"
ddb execute-statement --statement "INSERT INTO Music VALUE {'Artist':'Acme Band','SongTitle':'Happy Day', 'AlbumTitle':'Songs About Life', 'Awards':'10'}" >/dev/null
if out=$(ddb execute-statement --statement "INSERT INTO Music VALUE {'Artist':'Acme Band','SongTitle':'Happy Day'}" 2>&1); then
	fail "a second INSERT of a key succeeded: $out"
fi
expect "duplicate INSERT" 1 "$(grep -c 'DuplicateItemException' <<<"$out")"

echo "== write data (batch-execute-statement)"
got=$(ddb batch-execute-statement --statements '[
	{"Statement": "INSERT INTO Music VALUE {'"'"'Artist'"'"':'"'"'No One You Know'"'"','"'"'SongTitle'"'"':'"'"'Howdy'"'"','"'"'Awards'"'"':2}"},
	{"Statement": "INSERT INTO Music VALUE {'"'"'Artist'"'"':?,'"'"'SongTitle'"'"':?,'"'"'Awards'"'"':8}", "Parameters": [{"S": "Acme Band"}, {"S": "PartiQL Rocks"}]},
	{"Statement": "INSERT INTO Music VALUE {'"'"'Artist'"'"':'"'"'Acme Band'"'"','"'"'SongTitle'"'"':'"'"'Happy Day'"'"'}"}
]' --query 'Responses[*].[TableName, Error.Code]' --output text)
# A statement that ran and failed keeps its TableName (see TestPartiQLBatchExecuteStatement).
expect "batch-execute-statement" "$(printf 'Music\tNone\nMusic\tNone\nMusic\tDuplicateItem')" "$got"

echo "== read data (execute-statement SELECT)"
got=$(ddb execute-statement --statement "SELECT AlbumTitle, Awards FROM Music WHERE Artist='Acme Band' AND SongTitle='Happy Day'" \
	--query 'Items[0].[AlbumTitle.S, Awards.S]' --output text)
expect "SELECT by key" "$(printf 'Songs About Life\t10')" "$got"
got=$(ddb execute-statement --statement "SELECT SongTitle FROM Music WHERE Artist=? ORDER BY SongTitle DESC" \
	--parameters '[{"S": "Acme Band"}]' --query 'Items[*].SongTitle.S' --output text)
expect "SELECT by partition key" "$(printf 'PartiQL Rocks\tHappy Day')" "$got"

echo "== update data (execute-statement UPDATE)"
got=$(ddb execute-statement --statement "UPDATE Music SET AlbumTitle='Updated Album Title' WHERE Artist='Acme Band' AND SongTitle='Happy Day' RETURNING ALL NEW *" \
	--query 'Items[0].AlbumTitle.S' --output text)
expect "UPDATE RETURNING ALL NEW *" "Updated Album Title" "$got"

echo "== transaction (execute-transaction)"
ddb execute-transaction --transact-statements '[
	{"Statement": "UPDATE Music SET Awards = 3 WHERE Artist = '"'"'No One You Know'"'"' AND SongTitle = '"'"'Howdy'"'"'"},
	{"Statement": "DELETE FROM Music WHERE Artist = '"'"'No One You Know'"'"' AND SongTitle = '"'"'Call Me Today'"'"'"}
]' >/dev/null
got=$(ddb execute-transaction --transact-statements '[
	{"Statement": "SELECT Awards FROM Music WHERE Artist = '"'"'No One You Know'"'"' AND SongTitle = '"'"'Howdy'"'"'"},
	{"Statement": "SELECT * FROM Music WHERE Artist = '"'"'No One You Know'"'"' AND SongTitle = '"'"'Call Me Today'"'"'"}
]' --query 'Responses[*].Item.Awards.N' --output text)
expect "execute-transaction reads" "3" "$got"

echo "== count (execute-statement SELECT without a key: a scan)"
expect "items left" 3 "$(ddb execute-statement --statement 'SELECT * FROM Music' --query 'length(Items)')"
