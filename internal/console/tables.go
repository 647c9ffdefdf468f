package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The parts of DescribeTable's output the console shows.
type tableDesc struct {
	TableName              string
	TableStatus            string
	TableArn               string
	ItemCount              int64
	TableSizeBytes         int64
	CreationDateTime       float64
	KeySchema              []keyElement
	AttributeDefinitions   []struct{ AttributeName, AttributeType string }
	BillingModeSummary     *struct{ BillingMode string }
	ProvisionedThroughput  *struct{ ReadCapacityUnits, WriteCapacityUnits int64 }
	GlobalSecondaryIndexes []indexDesc
	LocalSecondaryIndexes  []indexDesc
	StreamSpecification    *struct {
		StreamEnabled  bool
		StreamViewType string
	}
	LatestStreamArn           string
	DeletionProtectionEnabled bool
}

type keyElement struct{ AttributeName, KeyType string }

type indexDesc struct {
	IndexName      string
	IndexStatus    string
	KeySchema      []keyElement
	Projection     struct{ ProjectionType string }
	ItemCount      int64
	IndexSizeBytes int64
}

// Billing is the table's billing mode (PROVISIONED when DescribeTable
// names none, as DynamoDB does for tables created without one).
func (t *tableDesc) Billing() string {
	if t.BillingModeSummary != nil && t.BillingModeSummary.BillingMode != "" {
		return t.BillingModeSummary.BillingMode
	}
	return "PROVISIONED"
}

// keyNames are the partition and sort key attribute names ("" if none).
func keyNames(ks []keyElement) []string {
	out := []string{"", ""}
	for _, k := range ks {
		if k.KeyType == "HASH" {
			out[0] = k.AttributeName
		} else {
			out[1] = k.AttributeName
		}
	}
	return out
}

// KeyText shows a key schema as "pk (HASH), sk (RANGE)".
func KeyText(ks []keyElement) string {
	var parts []string
	for _, k := range ks {
		parts = append(parts, k.AttributeName+" ("+k.KeyType+")")
	}
	return strings.Join(parts, ", ")
}

// tablesPage is the table list: one page of ListTables, described.
type tablesPage struct {
	Tables []tableDesc
	Errors []string
	Next   string // ExclusiveStartTableName of the next page
}

// tablesPerPage is the Limit of the table list's ListTables.
const tablesPerPage = 100

func (c *Console) serveTables(w http.ResponseWriter, r *http.Request, s *session) {
	in := map[string]any{"Limit": tablesPerPage}
	if start := r.URL.Query().Get("start"); start != "" {
		in["ExclusiveStartTableName"] = start
	}
	var out struct {
		TableNames             []string
		LastEvaluatedTableName string
	}
	p := page{Title: "Tables"}
	if err := c.call(r.Context(), s, "ListTables", in, &out); err != nil {
		c.renderError(w, r, s, "tables", p, err)
		return
	}
	data := tablesPage{Next: out.LastEvaluatedTableName}
	for _, name := range out.TableNames {
		t, err := c.describe(r, s, name)
		if err != nil {
			data.Errors = append(data.Errors, name+": "+err.Error())
			continue
		}
		data.Tables = append(data.Tables, *t)
	}
	p.Data = data
	c.render(w, r, s, http.StatusOK, "tables", p)
}

func (c *Console) describe(r *http.Request, s *session, name string) (*tableDesc, error) {
	var out struct{ Table tableDesc }
	if err := c.call(r.Context(), s, "DescribeTable", map[string]any{"TableName": name}, &out); err != nil {
		return nil, err
	}
	return &out.Table, nil
}

func (c *Console) serveDeleteTable(w http.ResponseWriter, r *http.Request, s *session, name string) {
	if r.PostFormValue("confirm") != name {
		c.redirectError(w, r, s, "/tables/"+url.PathEscape(name), "Type the table's name to delete it.")
		return
	}
	if err := c.call(r.Context(), s, "DeleteTable", map[string]any{"TableName": name}, nil); err != nil {
		c.redirectError(w, r, s, "/tables/"+url.PathEscape(name), err.Error())
		return
	}
	c.redirect(w, r, s, "/", "Table "+name+" is being deleted.")
}

// tableView is the table page: its description and the state of Time to
// Live, point-in-time recovery and backups.
type tableView struct {
	Table   *tableDesc
	TTL     map[string]any // DescribeTimeToLive's TimeToLiveDescription
	TTLErr  string
	PITR    map[string]any // DescribeContinuousBackups' ContinuousBackupsDescription
	PITRErr string
	Backups []map[string]any // ListBackups' BackupSummaries
	BackErr string
}

func (c *Console) serveTable(w http.ResponseWriter, r *http.Request, s *session, name string) {
	p := page{Title: name, Table: name}
	t, err := c.describe(r, s, name)
	if err != nil {
		c.renderError(w, r, s, "table", p, err)
		return
	}
	v := tableView{Table: t}
	ctx, arg := r.Context(), map[string]any{"TableName": name}
	var ttl struct{ TimeToLiveDescription map[string]any }
	if err := c.call(ctx, s, "DescribeTimeToLive", arg, &ttl); err != nil {
		v.TTLErr = err.Error()
	}
	v.TTL = ttl.TimeToLiveDescription
	var pitr struct{ ContinuousBackupsDescription map[string]any }
	if err := c.call(ctx, s, "DescribeContinuousBackups", arg, &pitr); err != nil {
		v.PITRErr = err.Error()
	}
	v.PITR = pitr.ContinuousBackupsDescription
	var backups struct{ BackupSummaries []map[string]any }
	if err := c.call(ctx, s, "ListBackups", arg, &backups); err != nil {
		v.BackErr = err.Error()
	}
	v.Backups = backups.BackupSummaries
	p.Data = v
	c.render(w, r, s, http.StatusOK, "table", p)
}

// createForm lists the fields of the create form; indexes are rows
// g0..g2 (global) and l0..l1 (local).
const (
	gsiRows = 3
	lsiRows = 2
)

func createDefaults() map[string]string {
	f := map[string]string{"pktype": "S", "sktype": "S", "billing": "PAY_PER_REQUEST", "rcu": "5", "wcu": "5"}
	for i := range gsiRows {
		f["g"+strconv.Itoa(i)+"pktype"], f["g"+strconv.Itoa(i)+"sktype"], f["g"+strconv.Itoa(i)+"proj"] = "S", "S", "ALL"
	}
	for i := range lsiRows {
		f["l"+strconv.Itoa(i)+"sktype"], f["l"+strconv.Itoa(i)+"proj"] = "S", "ALL"
	}
	return f
}

func (c *Console) serveCreate(w http.ResponseWriter, r *http.Request, s *session) {
	form := map[string]string{}
	for k, v := range r.PostForm {
		if k != "csrf" && len(v) > 0 {
			form[k] = strings.TrimSpace(v[0])
		}
	}
	in := createInput(form)
	if err := c.call(r.Context(), s, "CreateTable", in, nil); err != nil {
		c.render(w, r, s, http.StatusOK, "create", page{Title: "Create table", Error: err.Error(), Form: form})
		return
	}
	c.redirect(w, r, s, "/tables/"+url.PathEscape(form["name"]), "Table "+form["name"]+" created.")
}

// createInput builds CreateTable's input from the form; what is wrong in
// it is left for CreateTable to report in DynamoDB's words.
func createInput(f map[string]string) map[string]any {
	attrs := map[string]string{}
	var attrOrder []string
	addAttr := func(name, typ string) {
		if name == "" {
			return
		}
		if _, ok := attrs[name]; !ok {
			attrOrder = append(attrOrder, name)
			attrs[name] = typ
		}
	}
	keys := func(pk, pkType, sk, skType string) []map[string]string {
		ks := []map[string]string{{"AttributeName": pk, "KeyType": "HASH"}}
		addAttr(pk, pkType)
		if sk != "" {
			ks = append(ks, map[string]string{"AttributeName": sk, "KeyType": "RANGE"})
			addAttr(sk, skType)
		}
		return ks
	}
	in := map[string]any{"TableName": f["name"], "KeySchema": keys(f["pk"], f["pktype"], f["sk"], f["sktype"]), "BillingMode": f["billing"]}
	provisioned := f["billing"] == "PROVISIONED"
	throughput := func() map[string]any {
		rcu, _ := strconv.ParseInt(f["rcu"], 10, 64)
		wcu, _ := strconv.ParseInt(f["wcu"], 10, 64)
		return map[string]any{"ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu}
	}
	if provisioned {
		in["ProvisionedThroughput"] = throughput()
	}
	var gsis, lsis []map[string]any
	for i := range gsiRows {
		p := "g" + strconv.Itoa(i)
		if f[p+"name"] == "" {
			continue
		}
		g := map[string]any{"IndexName": f[p+"name"], "KeySchema": keys(f[p+"pk"], f[p+"pktype"], f[p+"sk"], f[p+"sktype"]),
			"Projection": map[string]any{"ProjectionType": f[p+"proj"]}}
		if provisioned {
			g["ProvisionedThroughput"] = throughput()
		}
		gsis = append(gsis, g)
	}
	for i := range lsiRows {
		p := "l" + strconv.Itoa(i)
		if f[p+"name"] == "" {
			continue
		}
		lsis = append(lsis, map[string]any{"IndexName": f[p+"name"], "KeySchema": keys(f["pk"], f["pktype"], f[p+"sk"], f[p+"sktype"]),
			"Projection": map[string]any{"ProjectionType": f[p+"proj"]}})
	}
	if gsis != nil {
		in["GlobalSecondaryIndexes"] = gsis
	}
	if lsis != nil {
		in["LocalSecondaryIndexes"] = lsis
	}
	if v := f["stream"]; v != "" {
		in["StreamSpecification"] = map[string]any{"StreamEnabled": true, "StreamViewType": v}
	}
	defs := make([]map[string]string, 0, len(attrOrder))
	for _, n := range attrOrder {
		defs = append(defs, map[string]string{"AttributeName": n, "AttributeType": attrs[n]})
	}
	in["AttributeDefinitions"] = defs
	return in
}
