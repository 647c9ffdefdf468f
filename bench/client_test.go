package bench

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/extenddb/extenddb/internal/loadgen"
	"github.com/extenddb/extenddb/internal/server"
)

// Environment variables that steer the benchmarks:
//
//	EXTENDDB_BENCH_ENDPOINT    benchmark this DynamoDB endpoint (e.g. a separate
//	                           extenddb process, dynalite) instead of starting an
//	                           in-process extenddb
//	EXTENDDB_BENCH_INMEMORY    with no endpoint: start the in-process server with
//	                           in-memory storage (default: SQLite in a temp dir)
//	EXTENDDB_BENCH_PARALLELISM goroutines per GOMAXPROCS in the parallel variants
//	                           (default 8, i.e. 16 concurrent clients on 2 cores)
//	EXTENDDB_BENCH_SERVER_PID  process id of the server behind the endpoint (Linux):
//	                           also report its CPU time per operation, a figure
//	                           that other load on the machine barely moves
const (
	envEndpoint    = "EXTENDDB_BENCH_ENDPOINT"
	envInMemory    = "EXTENDDB_BENCH_INMEMORY"
	envParallelism = "EXTENDDB_BENCH_PARALLELISM"
	envServerPID   = "EXTENDDB_BENCH_SERVER_PID"
)

// target returns a client for the endpoint under test. Without
// EXTENDDB_BENCH_ENDPOINT it starts an in-process extenddb that lives until b
// (the top-level benchmark) ends.
func target(b *testing.B) *dynamodb.Client {
	b.Helper()
	endpoint := os.Getenv(envEndpoint)
	if endpoint == "" {
		cfg := server.Config{Listen: "127.0.0.1:0"}
		if on, _ := strconv.ParseBool(os.Getenv(envInMemory)); on {
			cfg.InMemory = true
		} else {
			cfg.DataDir = b.TempDir()
		}
		srv, err := server.Start(cfg)
		if err != nil {
			b.Fatalf("start extenddb: %v", err)
		}
		b.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := srv.Shutdown(ctx); err != nil {
				b.Errorf("shutdown extenddb: %v", err)
			}
		})
		endpoint = srv.Endpoint()
	}
	return newClient(endpoint)
}

// newClient builds an SDK client for endpoint with static credentials, no
// retries (an error fails the benchmark instead of hiding in its timings) and
// enough idle connections for every parallel goroutine.
func newClient(endpoint string) *dynamodb.Client {
	httpClient := awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
		tr.MaxIdleConns = 512
		tr.MaxIdleConnsPerHost = 512
	})
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("bench", "bench", ""),
		HTTPClient:   httpClient,
		Retryer:      aws.NopRetryer{},
	})
}

func parallelism() int { return envInt(envParallelism, 8) }

// createTable creates a uniquely named table with a string partition key "pk"
// and string sort key "sk", waits until it is ACTIVE, and deletes it when b
// ends (so a long-lived endpoint does not accumulate tables).
func createTable(b *testing.B, c *dynamodb.Client, purpose string) string {
	b.Helper()
	ctx := context.Background()
	name := fmt.Sprintf("bench-%s-%d", purpose, time.Now().UnixNano())
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		b.Fatalf("CreateTable %s: %v", name, err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			b.Fatalf("DescribeTable %s: %v", name, err)
		}
		if out.Table.TableStatus == types.TableStatusActive {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("table %s still %s after 60s", name, out.Table.TableStatus)
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.Cleanup(func() {
		if _, err := c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
			b.Logf("DeleteTable %s: %v", name, err)
		}
	})
	return name
}

// payload is the non-key part of every benchmark item: about 200 bytes in a
// string, a number, a boolean and a string set, a typical small record.
var payload = map[string]types.AttributeValue{
	"data":    &types.AttributeValueMemberS{Value: string(make200())},
	"count":   &types.AttributeValueMemberN{Value: "12345.678"},
	"active":  &types.AttributeValueMemberBOOL{Value: true},
	"labels":  &types.AttributeValueMemberSS{Value: []string{"alpha", "beta", "gamma"}},
	"version": &types.AttributeValueMemberN{Value: "1"},
}

func make200() []byte {
	p := make([]byte, 200)
	for i := range p {
		p[i] = 'a' + byte(i%26)
	}
	return p
}

func item(pk, sk string) map[string]types.AttributeValue {
	m := make(map[string]types.AttributeValue, len(payload)+2)
	for k, v := range payload {
		m[k] = v
	}
	m["pk"] = &types.AttributeValueMemberS{Value: pk}
	m["sk"] = &types.AttributeValueMemberS{Value: sk}
	return m
}

func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk},
		"sk": &types.AttributeValueMemberS{Value: sk},
	}
}

// load writes partitions×perPartition items (pk "p<i>", sk "s<j>") with
// BatchWriteItem, retrying unprocessed items.
func load(b *testing.B, c *dynamodb.Client, table string, partitions, perPartition int) {
	b.Helper()
	ctx := context.Background()
	var batch []types.WriteRequest
	flush := func() {
		pending := map[string][]types.WriteRequest{table: batch}
		for attempt := 0; len(pending[table]) > 0; attempt++ {
			if attempt > 20 {
				b.Fatalf("BatchWriteItem: %d items still unprocessed", len(pending[table]))
			}
			out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
			if err != nil {
				b.Fatalf("BatchWriteItem: %v", err)
			}
			pending = out.UnprocessedItems
			if len(pending[table]) > 0 {
				time.Sleep(time.Duration(attempt+1) * 10 * time.Millisecond)
			}
		}
		batch = batch[:0]
	}
	for p := range partitions {
		for s := range perPartition {
			batch = append(batch, types.WriteRequest{PutRequest: &types.PutRequest{
				Item: item(fmt.Sprintf("p%d", p), fmt.Sprintf("s%d", s)),
			}})
			if len(batch) == 25 {
				flush()
			}
		}
	}
	if len(batch) > 0 {
		flush()
	}
}

// reportOpsPerSec adds an ops/s metric computed from the timed part of b.
func reportOpsPerSec(b *testing.B) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(b.N)/s, "ops/s")
	}
}

// serverCPU returns the CPU time (user + system) the server process named by
// EXTENDDB_BENCH_SERVER_PID has used so far, from /proc/PID/stat.
func serverCPU() (time.Duration, bool) {
	pid, err := strconv.Atoi(os.Getenv(envServerPID))
	if err != nil {
		return 0, false
	}
	return loadgen.ProcessCPU(pid)
}

// measureServerCPU starts measuring; the returned func reports the server's
// CPU time per operation of b as "server-cpu-us/op".
func measureServerCPU(b *testing.B) func() {
	start, ok := serverCPU()
	return func() {
		end, ok2 := serverCPU()
		if ok && ok2 && b.N > 0 {
			b.ReportMetric(float64((end-start).Microseconds())/float64(b.N), "server-cpu-us/op")
		}
	}
}
