// The Vitest recipe of docs/testing-with-extenddb.md.
import { beforeEach, expect, test } from "vitest";
import {
  CreateTableCommand, DynamoDBClient, PutItemCommand, ScanCommand, UpdateTimeToLiveCommand,
} from "@aws-sdk/client-dynamodb";
import { admin } from "./global-setup.js";

const db = new DynamoDBClient({
  endpoint: process.env.EXTENDDB_ENDPOINT,
  region: "us-east-1",
  credentials: { accessKeyId: "test", secretAccessKey: "test" },
});

beforeEach(async () => {
  await admin("POST", "snapshots/baseline/restore");
  await db.send(new CreateTableCommand({
    TableName: "sessions", BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
    KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
  }));
  await db.send(new UpdateTimeToLiveCommand({
    TableName: "sessions", TimeToLiveSpecification: { Enabled: true, AttributeName: "expires" },
  }));
});

const count = async () => (await db.send(new ScanCommand({ TableName: "sessions" }))).Count;

test("a session expires a day later", async () => {
  const { Now } = await admin("GET", "clock");
  const expires = Math.floor(Date.parse(Now) / 1000) + 3600;
  await db.send(new PutItemCommand({ TableName: "sessions", Item: { id: { S: "a" }, expires: { N: `${expires}` } } }));
  expect(await count()).toBe(1);
  await admin("POST", "clock", { Advance: "1d" });
  expect(await count()).toBe(0);
});

test("every test starts from the baseline", async () => {
  expect(await count()).toBe(0);
  await db.send(new PutItemCommand({ TableName: "sessions", Item: { id: { S: "b" } } }));
  await admin("POST", "tables/sessions/truncate");
  expect(await count()).toBe(0);
});
