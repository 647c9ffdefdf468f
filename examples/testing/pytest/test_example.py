"""The pytest recipe of docs/testing-with-extenddb.md."""
import datetime


def create_sessions(db):
    db.create_table(TableName="sessions", BillingMode="PAY_PER_REQUEST",
                    AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                    KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}])
    db.update_time_to_live(TableName="sessions",
                           TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})


def test_session_expires_after_a_day(extenddb, dynamodb):
    create_sessions(dynamodb)
    now = datetime.datetime.fromisoformat(extenddb.now().replace("Z", "+00:00"))
    expires = int(now.timestamp()) + 3600
    dynamodb.put_item(TableName="sessions", Item={"id": {"S": "a"}, "expires": {"N": str(expires)}})
    assert dynamodb.scan(TableName="sessions")["Count"] == 1
    extenddb.advance("1d")
    assert dynamodb.scan(TableName="sessions")["Count"] == 0


def test_each_test_starts_from_the_baseline(dynamodb):
    # The table the previous test created is gone: the baseline had none.
    assert dynamodb.list_tables()["TableNames"] == []
    create_sessions(dynamodb)
    dynamodb.put_item(TableName="sessions", Item={"id": {"S": "b"}})


def test_truncate_keeps_the_table(extenddb, dynamodb):
    create_sessions(dynamodb)
    dynamodb.put_item(TableName="sessions", Item={"id": {"S": "c"}})
    extenddb.truncate("sessions")
    assert dynamodb.scan(TableName="sessions")["Count"] == 0
    ttl = dynamodb.describe_time_to_live(TableName="sessions")["TimeToLiveDescription"]
    assert ttl["TimeToLiveStatus"] == "ENABLED"
