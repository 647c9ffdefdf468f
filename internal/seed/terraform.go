package seed

import (
	"fmt"
)

// The aws_dynamodb_table resources of a Terraform plan in JSON
// (`terraform show -json PLANFILE`): planned_values.root_module.resources
// and those of its child_modules, each with its planned values in the
// provider's argument names.
// https://developer.hashicorp.com/terraform/internals/json-format
// https://registry.terraform.io/providers/hashicorp/aws/latest/docs/resources/dynamodb_table

// terraformTables returns the tables of a plan.
func terraformTables(file string, plan map[string]any) ([]*Table, error) {
	pv, _ := plan["planned_values"].(map[string]any)
	root, _ := pv["root_module"].(map[string]any)
	var out []*Table
	err := eachModule(root, func(r map[string]any) error {
		if r["type"] != "aws_dynamodb_table" || (r["mode"] != nil && r["mode"] != "managed") {
			return nil
		}
		addr, _ := r["address"].(string)
		v, _ := r["values"].(map[string]any)
		t, err := terraformTable(v)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", file, addr, err)
		}
		t.Source = file + ": " + addr
		out = append(out, t)
		return nil
	})
	return out, err
}

func eachModule(m map[string]any, visit func(map[string]any) error) error {
	if m == nil {
		return nil
	}
	rs, _ := m["resources"].([]any)
	for _, r := range rs {
		if rm, ok := r.(map[string]any); ok {
			if err := visit(rm); err != nil {
				return err
			}
		}
	}
	children, _ := m["child_modules"].([]any)
	for _, c := range children {
		cm, _ := c.(map[string]any)
		if err := eachModule(cm, visit); err != nil {
			return err
		}
	}
	return nil
}

func keySchema(hash, rng any) []any {
	ks := []any{map[string]any{"AttributeName": hash, "KeyType": "HASH"}}
	if s, ok := rng.(string); ok && s != "" {
		ks = append(ks, map[string]any{"AttributeName": s, "KeyType": "RANGE"})
	}
	return ks
}

func projection(ix map[string]any) map[string]any {
	p := map[string]any{"ProjectionType": ix["projection_type"]}
	if nk, ok := ix["non_key_attributes"].([]any); ok && len(nk) > 0 {
		p["NonKeyAttributes"] = nk
	}
	return p
}

func throughput(m map[string]any) map[string]any {
	return map[string]any{"ReadCapacityUnits": m["read_capacity"], "WriteCapacityUnits": m["write_capacity"]}
}

// terraformTable converts the planned values of one aws_dynamodb_table.
func terraformTable(v map[string]any) (*Table, error) {
	name, _ := v["name"].(string)
	if name == "" {
		return nil, fmt.Errorf("the table's name is not known before apply; write it in the configuration")
	}
	billing, _ := v["billing_mode"].(string)
	if billing == "" {
		billing = "PROVISIONED"
	}
	in := map[string]any{"TableName": name, "KeySchema": keySchema(v["hash_key"], v["range_key"]), "BillingMode": billing}
	if billing == "PROVISIONED" {
		in["ProvisionedThroughput"] = throughput(v)
	}
	var defs []any
	for _, a := range list(v["attribute"]) {
		defs = append(defs, map[string]any{"AttributeName": a["name"], "AttributeType": a["type"]})
	}
	in["AttributeDefinitions"] = defs
	var gsis, lsis []any
	for _, g := range list(v["global_secondary_index"]) {
		ix := map[string]any{"IndexName": g["name"], "KeySchema": keySchema(g["hash_key"], g["range_key"]), "Projection": projection(g)}
		if billing == "PROVISIONED" {
			ix["ProvisionedThroughput"] = throughput(g)
		}
		gsis = append(gsis, ix)
	}
	for _, l := range list(v["local_secondary_index"]) {
		lsis = append(lsis, map[string]any{"IndexName": l["name"], "KeySchema": keySchema(v["hash_key"], l["range_key"]), "Projection": projection(l)})
	}
	if gsis != nil {
		in["GlobalSecondaryIndexes"] = gsis
	}
	if lsis != nil {
		in["LocalSecondaryIndexes"] = lsis
	}
	if truthy(v["stream_enabled"]) {
		in["StreamSpecification"] = map[string]any{"StreamEnabled": true, "StreamViewType": v["stream_view_type"]}
	}
	if tags, ok := v["tags"].(map[string]any); ok && len(tags) > 0 {
		in["Tags"] = tagList(tags)
	}
	if truthy(v["deletion_protection_enabled"]) {
		in["DeletionProtectionEnabled"] = true
	}
	if tc, ok := v["table_class"].(string); ok && tc != "" {
		in["TableClass"] = tc
	}
	t := &Table{Name: name, CreateTable: in}
	for _, ttl := range list(v["ttl"]) {
		if truthy(ttl["enabled"]) {
			t.TTLAttribute, _ = ttl["attribute_name"].(string)
		}
	}
	for _, p := range list(v["point_in_time_recovery"]) {
		t.PointInTimeRecovery = truthy(p["enabled"])
	}
	return t, nil
}

// list returns the objects of a Terraform block list.
func list(v any) []map[string]any {
	l, _ := v.([]any)
	out := make([]map[string]any, 0, len(l))
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}
