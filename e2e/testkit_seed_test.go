package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// seedDir is the seed directory of internal/seed's tests: CreateTable
// input, a SAM template in YAML, a Terraform plan, JSON lines and CSV.
var seedDir = filepath.Join("..", "internal", "seed", "testdata", "full")

func seededItems(t *testing.T, c *dynamodb.Client, name string) int {
	t.Helper()
	items, _ := scanAll(t, c, dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true)})
	return len(items)
}

// TestSeed: --seed creates the tables of every file with their indexes,
// stream, TTL and point in time recovery, and loads the items before the
// first request; a second start on the same data neither fails nor
// duplicates anything.
func TestSeed(t *testing.T) {
	dir := t.TempDir()
	for round := range 2 {
		s, c := startClient(t, "--data-dir", dir, "--seed", seedDir)
		ctx := ctxT(t)
		lt, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
		if err != nil || strings.Join(lt.TableNames, ",") != "Cache,Events,Orders,Sessions,test-users" {
			t.Fatalf("round %d: ListTables = %v, %v", round, lt, err)
		}
		d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("test-users")})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Table.GlobalSecondaryIndexes) != 1 || d.Table.StreamSpecification == nil || d.Table.StreamSpecification.StreamViewType != types.StreamViewTypeNewImage ||
			aws.ToInt64(d.Table.ProvisionedThroughput.ReadCapacityUnits) != 5 {
			t.Fatalf("test-users: %+v", d.Table)
		}
		if st, attr := ttlStatus(t, c, "test-users"); st != types.TimeToLiveStatusEnabled || attr != "expiresAt" {
			t.Fatalf("test-users TTL %s %s", st, attr)
		}
		cb, err := c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("test-users")})
		if err != nil || cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusEnabled {
			t.Fatalf("test-users PITR %+v, %v", cb, err)
		}
		if n := seededItems(t, c, "Orders"); n != 3 {
			t.Fatalf("round %d: Orders has %d items", round, n)
		}
		if n := seededItems(t, c, "test-users"); n != 2 {
			t.Fatalf("round %d: test-users has %d items", round, n)
		}
		it := getItem(t, c, "test-users", item{"id": avN("2")})
		wantItem(t, it, item{"id": avN("2"), "email": avS("ben@example.com"), "name": avS("Ben, Jr."), "expiresAt": avS("4102444800")})
		s.stop()
	}
}

// TestSeedRefusesWhatItCannotRead: a template with a function seeding does
// not evaluate stops the start with the file and the place.
func TestSeedRefusesWhatItCannotRead(t *testing.T) {
	out, err := exec.Command(binPath, "serve", "--in-memory", "--listen", "127.0.0.1:0",
		"--seed", filepath.Join("..", "internal", "seed", "testdata", "getatt-yaml")).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "t.yml: Resources.T.Properties.TableName: !GetAtt is not supported in a seed template") {
		t.Fatalf("serve with a bad seed: %v\n%s", err, out)
	}
}
