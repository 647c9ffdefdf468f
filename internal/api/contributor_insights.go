package api

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/storage"
)

// DescribeContributorInsights, UpdateContributorInsights and
// ListContributorInsights. The setting is stored in the table's catalog
// entry (per table and per global secondary index) and described as
// DynamoDB does; no CloudWatch rules exist behind it (docs/adr/0014).
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeContributorInsights.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateContributorInsights.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListContributorInsights.html

type contributorInsightsInput struct {
	TableName                 *string
	IndexName                 *string
	ContributorInsightsAction *string
	ContributorInsightsMode   *string
}

type contributorInsightsDescription struct {
	TableName                   string
	IndexName                   string   `json:"IndexName,omitempty"`
	ContributorInsightsRuleList []string `json:"ContributorInsightsRuleList,omitempty"`
	ContributorInsightsStatus   string
	ContributorInsightsMode     string        `json:"ContributorInsightsMode,omitempty"`
	LastUpdateDateTime          *epochSeconds `json:"LastUpdateDateTime,omitempty"`
}

var contributorInsightsModes = []string{"ACCESSED_AND_THROTTLED_KEYS", "THROTTLED_KEYS"}

// The contributor insights operations' member rules, in DynamoDB's order
// (validation_control_test.go lists the sources).
var (
	describeContributorInsightsRules = rules[contributorInsightsInput]{
		tableNameRule(func(in *contributorInsightsInput) *string { return in.TableName }),
		nameRule("indexName", func(in *contributorInsightsInput) *string { return in.IndexName }),
	}
	updateContributorInsightsRules = append(rules[contributorInsightsInput]{
		required("contributorInsightsAction", func(in *contributorInsightsInput) bool { return in.ContributorInsightsAction != nil }),
		enumRule("contributorInsightsAction", func(in *contributorInsightsInput) *string { return in.ContributorInsightsAction }, []string{"ENABLE", "DISABLE"}),
		enumRule("contributorInsightsMode", func(in *contributorInsightsInput) *string { return in.ContributorInsightsMode }, contributorInsightsModes),
	}, describeContributorInsightsRules...)
	describeContributorInsightsOp = &controlOp[contributorInsightsInput]{
		rules:   describeContributorInsightsRules,
		table:   insightsTable,
		execute: (*Engine).describeContributorInsights,
	}
	updateContributorInsightsOp = &controlOp[contributorInsightsInput]{
		rules:   updateContributorInsightsRules,
		table:   insightsTable,
		execute: (*Engine).updateContributorInsights,
	}
)

// insightsTable resolves the table of a contributor insights request,
// refusing an index the table does not have as DynamoDB does.
func insightsTable(e *Engine, ctx context.Context, c caller, in *contributorInsightsInput) (*storage.Table, error) {
	t, err := e.lookup(ctx, c.account, *in.TableName, lookupControl)
	if err != nil {
		return nil, err
	}
	if in.IndexName != nil && globalIndex(t, *in.IndexName) == nil {
		return nil, ddberr.ResourceNotFound("Requested resource not found: Index: %s not found", *in.IndexName)
	}
	return t, nil
}

func globalIndex(t *storage.Table, name string) *storage.Index {
	for i := range t.Indexes {
		if t.Indexes[i].Global && t.Indexes[i].IndexName == name {
			return &t.Indexes[i]
		}
	}
	return nil
}

func (e *Engine) describeContributorInsights(_ context.Context, _ caller, in *contributorInsightsInput, t *storage.Table) (any, error) {
	return insightsOut(t, valueOrZero(in.IndexName)), nil
}

// insightsOut describes the stored setting of t (index "" for the table).
func insightsOut(t *storage.Table, index string) contributorInsightsDescription {
	d := contributorInsightsDescription{TableName: t.Name, IndexName: index, ContributorInsightsStatus: "DISABLED"}
	ci, ok := t.ContributorInsights[index]
	if !ok {
		return d
	}
	d.ContributorInsightsStatus = ci.Status
	at := epochSeconds(ci.UpdatedAt)
	d.LastUpdateDateTime = &at
	if ci.Status == "ENABLED" {
		d.ContributorInsightsMode = ci.Mode
		d.ContributorInsightsRuleList = insightsRules(t, index, ci)
	}
	return d
}

// insightsRules names the CloudWatch Contributor Insights rules DynamoDB
// creates for an enabled table or index: partition key (PK) and, with a
// sort key, sort key (SK) rules, for most accessed (C) and most throttled
// (T) keys; THROTTLED_KEYS mode has only the throttled ones.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/contributorinsights_HowItWorks.html
func insightsRules(t *storage.Table, index string, ci storage.ContributorInsights) []string {
	keys := t.KeySchema
	if ix := globalIndex(t, index); ix != nil {
		keys = ix.KeySchema
	}
	kinds := []string{"PKC", "PKT"}
	if len(keys) > 1 {
		kinds = append(kinds, "SKC", "SKT")
	}
	target := t.Name
	if index != "" {
		target += "-" + index
	}
	var out []string
	for _, k := range kinds {
		if ci.Mode == "THROTTLED_KEYS" && k[2] == 'C' {
			continue
		}
		out = append(out, fmt.Sprintf("DynamoDBContributorInsights-%s-%s-%d", k, target, ci.UpdatedAt.UnixMilli()))
	}
	return out
}

func (e *Engine) updateContributorInsights(ctx context.Context, _ caller, in *contributorInsightsInput, cur *storage.Table) (any, error) {
	index, enable := valueOrZero(in.IndexName), *in.ContributorInsightsAction == "ENABLE"
	mode := ""
	if enable {
		mode = "ACCESSED_AND_THROTTLED_KEYS"
		if in.ContributorInsightsMode != nil {
			mode = *in.ContributorInsightsMode
		}
	}
	t, err := e.updateCatalog(ctx, cur, func(t *storage.Table) error {
		if t.ContributorInsights == nil {
			t.ContributorInsights = map[string]storage.ContributorInsights{}
		}
		ci := storage.ContributorInsights{Status: "DISABLED", UpdatedAt: e.now()}
		if enable {
			ci = storage.ContributorInsights{Status: "ENABLED", Mode: mode, UpdatedAt: e.now()}
		}
		t.ContributorInsights[index] = ci
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := contributorInsightsSummary{TableName: t.Name, IndexName: index, ContributorInsightsStatus: "DISABLING"}
	if enable {
		out.ContributorInsightsStatus, out.ContributorInsightsMode = "ENABLING", mode
	}
	return out, nil
}

type listContributorInsightsInput struct {
	TableName  *string
	NextToken  *string
	MaxResults *int64
	start      int // the position NextToken names
}

// contributorInsightsSummary is an element of ListContributorInsights'
// output, and UpdateContributorInsights' output.
type contributorInsightsSummary struct {
	TableName                 string
	IndexName                 string `json:"IndexName,omitempty"`
	ContributorInsightsStatus string
	ContributorInsightsMode   string `json:"ContributorInsightsMode,omitempty"`
}

type listContributorInsightsOutput struct {
	ContributorInsightsSummaries []contributorInsightsSummary
	NextToken                    string `json:"NextToken,omitempty"`
}

// listContributorInsights lists the tables and indexes whose setting was
// ever changed (never-touched ones are DISABLED and not listed), ordered by
// table then index, MaxResults (at most 100, default 100) at a time; the
// NextToken is the position of the next summary.
var listContributorInsightsOp = &controlOp[listContributorInsightsInput]{
	rules: rules[listContributorInsightsInput]{
		func(in *listContributorInsightsInput, c *constraints) {
			if in.TableName != nil {
				c.tableRef(in.TableName, "tableName")
			}
		},
		maxRule("maxResults", func(in *listContributorInsightsInput) *int64 { return in.MaxResults }, 100),
	},
	check: func(_ *Engine, _ caller, in *listContributorInsightsInput) error {
		start, err := positionToken(in.NextToken)
		in.start = start
		return err
	},
	execute: (*Engine).listContributorInsights,
}

// positionToken reads a NextToken that is a position in a list: absent,
// the start; anything but a whole number is "Invalid NextToken".
func positionToken(token *string) (int, error) {
	if token == nil {
		return 0, nil
	}
	n, err := strconv.Atoi(*token)
	if err != nil || n < 0 {
		return 0, ddberr.Validation("Invalid NextToken")
	}
	return n, nil
}

func (e *Engine) listContributorInsights(ctx context.Context, c caller, in *listContributorInsightsInput, _ *storage.Table) (any, error) {
	start := in.start
	all, err := e.insightsSummaries(ctx, c.account, in.TableName)
	if err != nil {
		return nil, err
	}
	limit := 100
	if in.MaxResults != nil && *in.MaxResults > 0 {
		limit = int(*in.MaxResults)
	}
	out := listContributorInsightsOutput{ContributorInsightsSummaries: []contributorInsightsSummary{}}
	if start < len(all) {
		end := min(start+limit, len(all))
		out.ContributorInsightsSummaries = all[start:end]
		if end < len(all) {
			out.NextToken = strconv.Itoa(end)
		}
	}
	return out, nil
}

func (e *Engine) insightsSummaries(ctx context.Context, account string, table *string) ([]contributorInsightsSummary, error) {
	var names []string
	if table != nil {
		names = []string{*table}
	} else {
		var err error
		if names, err = e.store.ListTables(ctx, account); err != nil {
			return nil, err
		}
	}
	var out []contributorInsightsSummary
	for _, name := range names {
		t, err := e.lookup(ctx, account, name, lookupControl)
		if err != nil {
			if table == nil && ddberr.Is(err, "ResourceNotFoundException") {
				continue // deleted meanwhile
			}
			return nil, err
		}
		indexes := make([]string, 0, len(t.ContributorInsights))
		for ix := range t.ContributorInsights {
			indexes = append(indexes, ix)
		}
		sort.Strings(indexes)
		for _, ix := range indexes {
			ci := t.ContributorInsights[ix]
			s := contributorInsightsSummary{TableName: t.Name, IndexName: ix, ContributorInsightsStatus: ci.Status}
			if ci.Status == "ENABLED" {
				s.ContributorInsightsMode = ci.Mode
			}
			out = append(out, s)
		}
	}
	return out, nil
}
