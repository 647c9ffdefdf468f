package api

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/protocol"
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
	TableName                 *string `json:"TableName"`
	IndexName                 *string `json:"IndexName"`
	ContributorInsightsAction *string `json:"ContributorInsightsAction"`
	ContributorInsightsMode   *string `json:"ContributorInsightsMode"`
}

type contributorInsightsDescription struct {
	TableName                   string        `json:"TableName"`
	IndexName                   string        `json:"IndexName,omitempty"`
	ContributorInsightsRuleList []string      `json:"ContributorInsightsRuleList,omitempty"`
	ContributorInsightsStatus   string        `json:"ContributorInsightsStatus"`
	ContributorInsightsMode     string        `json:"ContributorInsightsMode,omitempty"`
	LastUpdateDateTime          *epochSeconds `json:"LastUpdateDateTime,omitempty"`
}

var contributorInsightsModes = []string{"ACCESSED_AND_THROTTLED_KEYS", "THROTTLED_KEYS"}

// insightsTarget validates TableName and IndexName and returns the
// table, refusing an index the table does not have as DynamoDB does.
func (e *Engine) insightsTarget(ctx context.Context, r *protocol.Request, c *constraints, in *contributorInsightsInput) (*storage.Table, error) {
	c.tableName(in.TableName)
	c.name(in.IndexName, "indexName")
	if err := c.err(); err != nil {
		return nil, err
	}
	t, err := e.lookup(ctx, e.account(r), *in.TableName, lookupControl)
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

func (e *Engine) describeContributorInsights(ctx context.Context, r *protocol.Request) (any, error) {
	var in contributorInsightsInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraints
	t, err := e.insightsTarget(ctx, r, &c, &in)
	if err != nil {
		return nil, err
	}
	return insightsOut(t, orEmpty(in.IndexName)), nil
}

// orEmpty returns *s, or "" for nil.
func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
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

func (e *Engine) updateContributorInsights(ctx context.Context, r *protocol.Request) (any, error) {
	var in contributorInsightsInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraints
	if c.notNull(in.ContributorInsightsAction != nil, "contributorInsightsAction") {
		c.enum(in.ContributorInsightsAction, "contributorInsightsAction", "ENABLE", "DISABLE")
	}
	c.enum(in.ContributorInsightsMode, "contributorInsightsMode", contributorInsightsModes...)
	cur, err := e.insightsTarget(ctx, r, &c, &in)
	if err != nil {
		return nil, err
	}
	index, enable := orEmpty(in.IndexName), *in.ContributorInsightsAction == "ENABLE"
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
	TableName  *string `json:"TableName"`
	NextToken  *string `json:"NextToken"`
	MaxResults *int64  `json:"MaxResults"`
}

// contributorInsightsSummary is an element of ListContributorInsights'
// output, and UpdateContributorInsights' output.
type contributorInsightsSummary struct {
	TableName                 string `json:"TableName"`
	IndexName                 string `json:"IndexName,omitempty"`
	ContributorInsightsStatus string `json:"ContributorInsightsStatus"`
	ContributorInsightsMode   string `json:"ContributorInsightsMode,omitempty"`
}

type listContributorInsightsOutput struct {
	ContributorInsightsSummaries []contributorInsightsSummary `json:"ContributorInsightsSummaries"`
	NextToken                    string                       `json:"NextToken,omitempty"`
}

// listContributorInsights lists the tables and indexes whose setting was
// ever changed (never-touched ones are DISABLED and not listed), ordered by
// table then index, MaxResults (at most 100, default 100) at a time; the
// NextToken is the position of the next summary.
func (e *Engine) listContributorInsights(ctx context.Context, r *protocol.Request) (any, error) {
	var in listContributorInsightsInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraints
	if in.TableName != nil {
		c.tableRef(in.TableName, "tableName")
	}
	c.maxInt(in.MaxResults, "maxResults", 100)
	if err := c.err(); err != nil {
		return nil, err
	}
	start := 0
	if in.NextToken != nil {
		n, err := strconv.Atoi(*in.NextToken)
		if err != nil || n < 0 {
			return nil, ddberr.Validation("Invalid NextToken")
		}
		start = n
	}
	all, err := e.insightsSummaries(ctx, r, in.TableName)
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

func (e *Engine) insightsSummaries(ctx context.Context, r *protocol.Request, table *string) ([]contributorInsightsSummary, error) {
	account := e.account(r)
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
