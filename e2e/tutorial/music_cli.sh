#!/usr/bin/env bash
# DynamoDB's getting-started tutorial, run with the AWS CLI against the
# endpoint in $ENDPOINT:
#   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/getting-started-step-1.html
#   (and steps 2, 3, 4, 5 and 7 that follow it)
# Each step checks what the tutorial says it shows; any difference exits non-zero.
#
#   ENDPOINT=http://127.0.0.1:8000 AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x \
#     AWS_DEFAULT_REGION=us-east-1 bash e2e/tutorial/music_cli.sh
set -euo pipefail

: "${ENDPOINT:?set ENDPOINT to the server URL, e.g. http://127.0.0.1:8000}"

ddb() { aws dynamodb --endpoint-url "$ENDPOINT" --output json "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() { # expect NAME WANT GOT
	if [[ "$3" != "$2" ]]; then fail "$1: want [$2], got [$3]"; fi
	echo "ok: $1"
}

echo "== Step 1: create a table"
ddb create-table \
	--table-name Music \
	--attribute-definitions \
		AttributeName=Artist,AttributeType=S \
		AttributeName=SongTitle,AttributeType=S \
	--key-schema AttributeName=Artist,KeyType=HASH AttributeName=SongTitle,KeyType=RANGE \
	--billing-mode PAY_PER_REQUEST \
	--table-class STANDARD >/dev/null
ddb wait table-exists --table-name Music
got=$(ddb describe-table --table-name Music \
	--query 'Table.[TableStatus, BillingModeSummary.BillingMode, KeySchema[0].AttributeName, KeySchema[0].KeyType, KeySchema[1].AttributeName, KeySchema[1].KeyType]' \
	--output text)
expect "describe-table" "$(printf 'ACTIVE\tPAY_PER_REQUEST\tArtist\tHASH\tSongTitle\tRANGE')" "$got"

echo "== Step 2: write data"
ddb put-item --table-name Music \
	--item '{"Artist": {"S": "No One You Know"}, "SongTitle": {"S": "Call Me Today"}, "AlbumTitle": {"S": "Somewhat Famous"}, "Awards": {"N": "1"}}'
ddb put-item --table-name Music \
	--item '{"Artist": {"S": "No One You Know"}, "SongTitle": {"S": "Howdy"}, "AlbumTitle": {"S": "Somewhat Famous"}, "Awards": {"N": "2"}}'
ddb put-item --table-name Music \
	--item '{"Artist": {"S": "Acme Band"}, "SongTitle": {"S": "Happy Day"}, "AlbumTitle": {"S": "Songs About Life"}, "Awards": {"N": "10"}}'
ddb put-item --table-name Music \
	--item '{"Artist": {"S": "Acme Band"}, "SongTitle": {"S": "PartiQL Rocks"}, "AlbumTitle": {"S": "Another Album Title"}, "Awards": {"N": "8"}}'
expect "item count" 4 "$(ddb scan --table-name Music --select COUNT --query 'Count' --output text)"

echo "== Step 3: read data"
got=$(ddb get-item --consistent-read --table-name Music \
	--key '{"Artist": {"S": "Acme Band"}, "SongTitle": {"S": "Happy Day"}}' \
	--query 'Item.[Artist.S,SongTitle.S,AlbumTitle.S,Awards.N]' --output text)
expect "get-item" "$(printf 'Acme Band\tHappy Day\tSongs About Life\t10')" "$got"

echo "== Step 4: update data"
got=$(ddb update-item --table-name Music \
	--key '{"Artist": {"S": "Acme Band"}, "SongTitle": {"S": "Happy Day"}}' \
	--update-expression "SET AlbumTitle = :newval" \
	--expression-attribute-values '{":newval": {"S": "Updated Album Title"}}' \
	--return-values ALL_NEW \
	--query 'Attributes.[AlbumTitle.S,Awards.N]' --output text)
expect "update-item ALL_NEW" "$(printf 'Updated Album Title\t10')" "$got"
expect "updated item" "Updated Album Title" "$(ddb get-item --consistent-read --table-name Music \
	--key '{"Artist": {"S": "Acme Band"}, "SongTitle": {"S": "Happy Day"}}' --query 'Item.AlbumTitle.S' --output text)"

echo "== Step 5: query data"
got=$(ddb query --table-name Music \
	--key-condition-expression "Artist = :name" \
	--expression-attribute-values '{":name": {"S": "Acme Band"}}' \
	--query 'Items[].SongTitle.S' --output text)
expect "query" "$(printf 'Happy Day\tPartiQL Rocks')" "$got"
expect "query count" 2 "$(ddb query --table-name Music --key-condition-expression "Artist = :name" \
	--expression-attribute-values '{":name": {"S": "Acme Band"}}' --query 'Count' --output text)"

echo "== Step 7: delete the table"
expect "delete-table" DELETING "$(ddb delete-table --table-name Music --query 'TableDescription.TableStatus' --output text)"
ddb wait table-not-exists --table-name Music
if err=$(ddb describe-table --table-name Music 2>&1); then
	fail "describe-table after delete succeeded: $err"
fi
[[ "$err" == *ResourceNotFoundException* ]] || fail "describe-table after delete: want ResourceNotFoundException, got: $err"
echo "ok: table gone"
expect "tables left" "" "$(ddb list-tables --query 'TableNames' --output text)"
echo "tutorial (AWS CLI): all steps passed"
