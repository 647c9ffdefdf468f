package seed

import (
	"errors"
	"fmt"
	"strconv"
)

// Table is one table to create: CreateTable's input, and the settings
// applied after the create.
type Table struct {
	Name        string
	CreateTable map[string]any
	// TTLAttribute, when set, is enabled with UpdateTimeToLive.
	TTLAttribute string
	// PointInTimeRecovery enables continuous backups.
	PointInTimeRecovery bool
	// Source names the file (and resource) the table comes from.
	Source string
}

// copyKeys copies the named members of src that are present into dst.
func copyKeys(dst, src map[string]any, names ...string) {
	for _, n := range names {
		if v, ok := src[n]; ok {
			dst[n] = v
		}
	}
}

// cfnTable converts the properties of an AWS::DynamoDB::Table; a table
// without TableName is named by its logical ID.
func cfnTable(id string, p map[string]any) (*Table, error) {
	in := map[string]any{}
	copyKeys(in, p, "TableName", "KeySchema", "AttributeDefinitions", "BillingMode", "LocalSecondaryIndexes",
		"Tags", "TableClass", "DeletionProtectionEnabled", "OnDemandThroughput", "WarmThroughput", "SSESpecification")
	if tp, ok := p["ProvisionedThroughput"].(map[string]any); ok {
		in["ProvisionedThroughput"] = numbers(tp)
	}
	if gsis, ok := p["GlobalSecondaryIndexes"].([]any); ok {
		out := make([]any, 0, len(gsis))
		for _, g := range gsis {
			gm, _ := g.(map[string]any)
			c := map[string]any{}
			for k, v := range gm {
				c[k] = v
			}
			if tp, ok := gm["ProvisionedThroughput"].(map[string]any); ok {
				c["ProvisionedThroughput"] = numbers(tp)
			}
			delete(c, "ContributorInsightsSpecification")
			out = append(out, c)
		}
		in["GlobalSecondaryIndexes"] = out
	}
	if sse, ok := in["SSESpecification"].(map[string]any); ok {
		c := map[string]any{}
		copyKeys(c, sse, "SSEType", "KMSMasterKeyId")
		if v, ok := sse["SSEEnabled"]; ok {
			c["Enabled"] = truthy(v)
		}
		in["SSESpecification"] = c
	}
	if ss, ok := p["StreamSpecification"].(map[string]any); ok {
		in["StreamSpecification"] = map[string]any{"StreamEnabled": true, "StreamViewType": ss["StreamViewType"]}
	}
	if _, ok := in["TableName"]; !ok {
		in["TableName"] = id
	}
	t := &Table{CreateTable: in}
	t.Name, _ = in["TableName"].(string)
	if ttl, ok := p["TimeToLiveSpecification"].(map[string]any); ok && truthy(ttl["Enabled"]) {
		t.TTLAttribute, _ = ttl["AttributeName"].(string)
	}
	if pitr, ok := p["PointInTimeRecoverySpecification"].(map[string]any); ok {
		t.PointInTimeRecovery = truthy(pitr["PointInTimeRecoveryEnabled"])
	}
	if t.Name == "" {
		return nil, errors.New("TableName must be a string")
	}
	return t, nil
}

// simpleTable converts SAM's AWS::Serverless::SimpleTable: a partition
// key (PrimaryKey, default a string named "id") and on-demand billing
// unless ProvisionedThroughput is given.
func simpleTable(id string, p map[string]any) (*Table, error) {
	name, typ := "id", "S"
	if pk, ok := p["PrimaryKey"].(map[string]any); ok {
		if n, ok := pk["Name"].(string); ok {
			name = n
		}
		switch pk["Type"] {
		case "Number":
			typ = "N"
		case "Binary":
			typ = "B"
		}
	}
	in := map[string]any{
		"KeySchema":            []any{map[string]any{"AttributeName": name, "KeyType": "HASH"}},
		"AttributeDefinitions": []any{map[string]any{"AttributeName": name, "AttributeType": typ}},
		"BillingMode":          "PAY_PER_REQUEST",
	}
	copyKeys(in, p, "TableName")
	if sse, ok := p["SSESpecification"].(map[string]any); ok {
		in["SSESpecification"] = map[string]any{"Enabled": truthy(sse["SSEEnabled"])}
	}
	if tp, ok := p["ProvisionedThroughput"].(map[string]any); ok {
		in["BillingMode"], in["ProvisionedThroughput"] = "PROVISIONED", numbers(tp)
	}
	if tags, ok := p["Tags"].(map[string]any); ok {
		in["Tags"] = tagList(tags)
	}
	if _, ok := in["TableName"]; !ok {
		in["TableName"] = id
	}
	t := &Table{CreateTable: in}
	t.Name, _ = in["TableName"].(string)
	return t, nil
}

// numbers turns the string numbers a template may hold ("5") into numbers.
func numbers(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				out[k] = n
				continue
			}
		}
		out[k] = v
	}
	return out
}

func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		b, _ := strconv.ParseBool(x)
		return b
	}
	return false
}

func tagList(tags map[string]any) []any {
	out := make([]any, 0, len(tags))
	for k, v := range tags {
		out = append(out, map[string]any{"Key": k, "Value": fmt.Sprint(v)})
	}
	return out
}
