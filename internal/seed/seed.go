// Package seed creates tables and loads items from the files of a
// directory before a server accepts its first request (`extenddb serve
// --seed DIR`, docs/testing-with-extenddb.md, docs/adr/0016). It reads:
//
//   - *.json: CreateTable's input (the AWS CLI's --cli-input-json shape), a
//     CloudFormation or SAM template in JSON (it has "Resources"), or a
//     Terraform plan in JSON (it has "planned_values");
//   - *.yaml, *.yml: a CloudFormation or SAM template;
//   - TABLE.jsonl (or .ndjson): items of table TABLE in DynamoDB JSON, one
//     {"Item": {...}} a line (the shape of DynamoDB's S3 exports);
//   - TABLE.csv: items of table TABLE, a header line of attribute names
//     and one item a line; key attributes take their type from the table's
//     AttributeDefinitions and the others are strings.
//
// Items files are read by ImportTable's readers (internal/dataformat).
//
// Seeding is idempotent: a table that exists already is left as it is, and
// items are put (a second seeding rewrites the same items by key).
package seed

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Plan is what a seed directory holds.
type Plan struct {
	Tables []*Table
	Items  []ItemsFile
}

// ItemsFile is a file of items for one table.
type ItemsFile struct {
	Table  string
	Path   string
	Format string // "jsonl" or "csv"
}

// Load reads the seed directory dir. region and account resolve the pseudo
// parameters of templates (AWS::Region, AWS::AccountId); AWS::StackName is
// the template file's name without its extension.
func Load(dir, region, account string) (*Plan, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	p := &Plan{}
	seen := map[string]string{}
	for _, n := range names {
		path := filepath.Join(dir, n)
		ext := strings.ToLower(filepath.Ext(n))
		base := strings.TrimSuffix(n, filepath.Ext(n))
		var tables []*Table
		switch ext {
		case ".json", ".yaml", ".yml":
			if tables, err = tablesOf(path, ext, region, account); err != nil {
				return nil, fmt.Errorf("seed: %w", err)
			}
		case ".jsonl", ".ndjson":
			p.Items = append(p.Items, ItemsFile{Table: base, Path: path, Format: "jsonl"})
		case ".csv":
			p.Items = append(p.Items, ItemsFile{Table: base, Path: path, Format: "csv"})
		}
		for _, t := range tables {
			if prev, dup := seen[t.Name]; dup {
				return nil, fmt.Errorf("seed: table %s is defined twice (%s and %s)", t.Name, prev, t.Source)
			}
			seen[t.Name] = t.Source
			p.Tables = append(p.Tables, t)
		}
	}
	return p, nil
}

// tablesOf reads the tables of one definition file.
func tablesOf(path, ext, region, account string) ([]*Table, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc any
	if ext == ".json" {
		err = json.Unmarshal(raw, &doc)
	} else {
		doc, err = parseYAML(raw)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: not a JSON or YAML object", path)
	}
	switch {
	case m["Resources"] != nil:
		return cfnTables(path, m, region, account)
	case m["planned_values"] != nil:
		return terraformTables(path, m)
	case m["TableName"] != nil:
		name, _ := m["TableName"].(string)
		return []*Table{{Name: name, CreateTable: m, Source: path}}, nil
	}
	return nil, fmt.Errorf("%s: neither CreateTable input (TableName), a CloudFormation template (Resources) nor a Terraform plan (planned_values)", path)
}
