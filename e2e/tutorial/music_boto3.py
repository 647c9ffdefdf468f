#!/usr/bin/env python3
"""DynamoDB's getting-started tutorial, run with boto3 against $ENDPOINT.

https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/getting-started-step-1.html
(and steps 2, 3, 4, 5 and 7 that follow it). Each step checks what the
tutorial says it shows; any difference raises and exits non-zero.

    ENDPOINT=http://127.0.0.1:8000 AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x \
        AWS_DEFAULT_REGION=us-east-1 python3 e2e/tutorial/music_boto3.py
"""
import os
import sys
from decimal import Decimal

import boto3
from boto3.dynamodb.conditions import Key
from botocore.exceptions import ClientError


def expect(name, want, got):
    if want != got:
        sys.exit(f"FAIL: {name}: want {want!r}, got {got!r}")
    print(f"ok: {name}")


def main():
    endpoint = os.environ["ENDPOINT"]
    dynamodb = boto3.resource("dynamodb", endpoint_url=endpoint)
    client = dynamodb.meta.client

    print("== Step 1: create a table")
    table = dynamodb.create_table(
        TableName="Music",
        KeySchema=[
            {"AttributeName": "Artist", "KeyType": "HASH"},
            {"AttributeName": "SongTitle", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": "Artist", "AttributeType": "S"},
            {"AttributeName": "SongTitle", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
        TableClass="STANDARD",
    )
    table.wait_until_exists()
    table.reload()
    expect("table status", "ACTIVE", table.table_status)
    expect("key schema", [
        {"AttributeName": "Artist", "KeyType": "HASH"},
        {"AttributeName": "SongTitle", "KeyType": "RANGE"},
    ], table.key_schema)
    expect("table arn", "arn:aws:dynamodb:us-east-1:000000000000:table/Music", table.table_arn)

    print("== Step 2: write data")
    songs = [
        {"Artist": "No One You Know", "SongTitle": "Call Me Today", "AlbumTitle": "Somewhat Famous", "Awards": 1},
        {"Artist": "No One You Know", "SongTitle": "Howdy", "AlbumTitle": "Somewhat Famous", "Awards": 2},
        {"Artist": "Acme Band", "SongTitle": "Happy Day", "AlbumTitle": "Songs About Life", "Awards": 10},
        {"Artist": "Acme Band", "SongTitle": "PartiQL Rocks", "AlbumTitle": "Another Album Title", "Awards": 8},
    ]
    for song in songs:
        table.put_item(Item=song)
    expect("item count", 4, table.scan(Select="COUNT")["Count"])

    print("== Step 3: read data")
    item = table.get_item(Key={"Artist": "Acme Band", "SongTitle": "Happy Day"}, ConsistentRead=True)["Item"]
    expect("get_item", {"Artist": "Acme Band", "SongTitle": "Happy Day",
                        "AlbumTitle": "Songs About Life", "Awards": Decimal(10)}, item)

    print("== Step 4: update data")
    resp = table.update_item(
        Key={"Artist": "Acme Band", "SongTitle": "Happy Day"},
        UpdateExpression="SET AlbumTitle = :newval",
        ExpressionAttributeValues={":newval": "Updated Album Title"},
        ReturnValues="ALL_NEW",
    )
    expect("update_item ALL_NEW", {"Artist": "Acme Band", "SongTitle": "Happy Day",
                                    "AlbumTitle": "Updated Album Title", "Awards": Decimal(10)}, resp["Attributes"])

    print("== Step 5: query data")
    resp = table.query(KeyConditionExpression=Key("Artist").eq("Acme Band"))
    expect("query", ["Happy Day", "PartiQL Rocks"], [i["SongTitle"] for i in resp["Items"]])
    expect("query count", 2, resp["Count"])
    resp = table.query(KeyConditionExpression=Key("Artist").eq("No One You Know") & Key("SongTitle").begins_with("C"))
    expect("query begins_with", ["Call Me Today"], [i["SongTitle"] for i in resp["Items"]])

    print("== Step 7: delete the table")
    resp = table.delete()
    expect("delete status", "DELETING", resp["TableDescription"]["TableStatus"])
    table.wait_until_not_exists()
    try:
        client.describe_table(TableName="Music")
        sys.exit("FAIL: describe_table after delete succeeded")
    except ClientError as e:
        expect("describe after delete", "ResourceNotFoundException", e.response["Error"]["Code"])
    expect("tables left", [], client.list_tables()["TableNames"])
    print("tutorial (boto3): all steps passed")


if __name__ == "__main__":
    main()
