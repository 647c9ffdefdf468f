package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	sectionIndex = "by-section"
	batchSize    = 25 // BatchWriteItem's limit
)

// createTable creates the table (Package HASH, Version RANGE; optionally a
// GSI Section HASH, Package RANGE) and waits until it is ACTIVE.
func createTable(ctx context.Context, c *dynamodb.Client, name string, gsi bool) error {
	in := &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("Package"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("Version"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("Package"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("Version"), KeyType: types.KeyTypeRange},
		},
		BillingMode: types.BillingModePayPerRequest,
	}
	if gsi {
		in.AttributeDefinitions = append(in.AttributeDefinitions,
			types.AttributeDefinition{AttributeName: aws.String("Section"), AttributeType: types.ScalarAttributeTypeS})
		in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{
			IndexName: aws.String(sectionIndex),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("Section"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("Package"), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{
				ProjectionType:   types.ProjectionTypeInclude,
				NonKeyAttributes: []string{"Priority", "Architecture"},
			},
		}}
	}
	if _, err := c.CreateTable(ctx, in); err != nil {
		return fmt.Errorf("CreateTable %s: %w", name, err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			return fmt.Errorf("DescribeTable %s: %w", name, err)
		}
		active := out.Table.TableStatus == types.TableStatusActive
		for _, ix := range out.Table.GlobalSecondaryIndexes {
			active = active && ix.IndexStatus == types.IndexStatusActive
		}
		if active {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("table %s still %s after 2 minutes", name, out.Table.TableStatus)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func deleteTable(ctx context.Context, c *dynamodb.Client, name string) error {
	_, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	return err
}

// toItem is a record as a DynamoDB item. Empty strings are left out (an
// empty Section would also be rejected as a GSI key).
func toItem(r *Record) map[string]types.AttributeValue {
	m := map[string]types.AttributeValue{}
	str := func(name, v string) {
		if v != "" {
			m[name] = &types.AttributeValueMemberS{Value: v}
		}
	}
	str("Package", r.Package)
	str("Version", r.Version)
	str("Architecture", r.Architecture)
	str("Section", r.Section)
	str("Priority", r.Priority)
	str("Maintainer", r.Maintainer)
	str("Description", r.Description)
	str("Source", r.Source)
	str("Homepage", r.Homepage)
	str("Filename", r.Filename)
	str("SHA256", r.SHA256)
	str("Depends", r.Depends)
	str("MultiArch", r.MultiArch)
	str("List", r.List)
	if r.InstalledSize >= 0 {
		m["InstalledSize"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(r.InstalledSize, 10)}
	}
	m["Size"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(r.Size, 10)}
	if len(r.Tags) > 0 {
		m["Tags"] = &types.AttributeValueMemberSS{Value: r.Tags}
	}
	return m
}

// load writes every record with BatchWriteItem, batchSize items per call,
// from cfg.Workers goroutines. Items the service hands back in
// UnprocessedItems are resent with exponential backoff and jitter.
func load(ctx context.Context, c *dynamodb.Client, cfg Config, data *Dataset, rep *Report) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	batches := make(chan []types.WriteRequest)
	var calls, retried atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range cfg.Workers {
		wg.Go(func() {
			for batch := range batches {
				n, r, err := writeBatch(ctx, c, cfg.Table, batch)
				calls.Add(int64(n))
				retried.Add(int64(r))
				if err != nil {
					cancel(err)
				}
			}
		})
	}
	batch := make([]types.WriteRequest, 0, batchSize)
feed:
	for _, r := range data.Records {
		batch = append(batch, types.WriteRequest{PutRequest: &types.PutRequest{Item: toItem(r)}})
		if len(batch) == batchSize {
			select {
			case batches <- batch:
			case <-ctx.Done():
				break feed
			}
			batch = make([]types.WriteRequest, 0, batchSize)
		}
	}
	if len(batch) > 0 && ctx.Err() == nil {
		select {
		case batches <- batch:
		case <-ctx.Done():
		}
	}
	close(batches)
	wg.Wait()
	rep.LoadTime = time.Since(start)
	rep.Batches = int(calls.Load())
	rep.Retried = int(retried.Load())
	rep.RecordsPerSec = float64(len(data.Records)) / rep.LoadTime.Seconds()
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return nil
}

// writeBatch sends one batch until nothing is left unprocessed. It returns the
// number of calls made and of items resent.
func writeBatch(ctx context.Context, c *dynamodb.Client, table string, batch []types.WriteRequest) (calls, resent int, err error) {
	pending := map[string][]types.WriteRequest{table: batch}
	backoff := 20 * time.Millisecond
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return calls, resent, err
		}
		out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
		calls++
		if err != nil {
			return calls, resent, fmt.Errorf("BatchWriteItem: %w", err)
		}
		left := out.UnprocessedItems[table]
		if len(left) == 0 {
			return calls, resent, nil
		}
		if attempt == 15 {
			return calls, resent, fmt.Errorf("BatchWriteItem: %d items still unprocessed after %d attempts", len(left), attempt)
		}
		resent += len(left)
		pending = out.UnprocessedItems
		sleep := backoff/2 + rand.N(backoff/2+1)
		select {
		case <-time.After(sleep):
		case <-ctx.Done():
			return calls, resent, ctx.Err()
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}
