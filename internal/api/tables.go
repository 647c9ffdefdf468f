package api

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/storage"
)

// Limits DynamoDB applies to table definitions.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html
const (
	maxLSIs             = 5
	maxGSIs             = 20
	maxProjectedAttrs   = 100
	maxThroughputUnits  = 1000000000000 // larger values are "out of bounds"
	maxTablesPerAccount = 2500
)

type createTableInput struct {
	TableName                 *string
	AttributeDefinitions      []attributeDefinition
	KeySchema                 []keySchemaElement
	LocalSecondaryIndexes     []secondaryIndexInput
	GlobalSecondaryIndexes    []secondaryIndexInput
	BillingMode               *string
	ProvisionedThroughput     *provisionedThroughput
	StreamSpecification       *streamSpecification
	Tags                      []tag
	TableClass                *string
	DeletionProtectionEnabled *bool
	SSESpecification          *struct{ Enabled *bool }
	OnDemandThroughput        *onDemandThroughput // throughput_settings.go
	WarmThroughput            *warmThroughput
	ResourcePolicy            *string // resource_policy.go
}

type secondaryIndexInput struct {
	IndexName             *string
	KeySchema             []keySchemaElement
	Projection            *projection
	ProvisionedThroughput *provisionedThroughput
	OnDemandThroughput    *onDemandThroughput
	WarmThroughput        *warmThroughput
}

type tableDescriptionOutput struct {
	TableDescription *tableDescription
}

// createTableOp is CreateTable. Its checks build the table's entry as
// they go (validateCreateTable), so they run in its execution.
var createTableOp = &controlOp[createTableInput]{execute: (*Engine).createTable}

func (e *Engine) createTable(ctx context.Context, c caller, in *createTableInput, _ *storage.Table) (any, error) {
	t, err := e.validateCreateTable(in)
	if err != nil {
		return nil, err
	}
	if err := tableThroughputSettings(t, in); err != nil {
		return nil, err
	}
	if in.ResourcePolicy != nil {
		if err := checkResourcePolicy(*in.ResourcePolicy); err != nil {
			return nil, err
		}
		t.ResourcePolicies = map[string]storage.ResourcePolicy{"": {Document: *in.ResourcePolicy, RevisionID: e.nextRevision("")}}
	}
	t.Account = c.account
	if err := e.checkTableLimit(ctx, t.Account); err != nil {
		return nil, err
	}
	if err := e.store.CreateTable(ctx, t); err != nil {
		if err == storage.ErrTableExists {
			return nil, ddberr.ResourceInUse("Table already exists: %s", t.Name)
		}
		return nil, err
	}
	e.remember(t)
	d, err := e.describe(ctx, c.region, t, false)
	if err != nil {
		return nil, err
	}
	if e.statusDelay(t) > 0 {
		d.TableStatus = storage.StatusCreating
	}
	return tableDescriptionOutput{d}, nil
}

// validateCreateTable checks a CreateTable request in DynamoDB's order:
// member constraints first (reported together), then the schema rules one at
// a time, and returns the table to create.
func (e *Engine) validateCreateTable(in *createTableInput) (*storage.Table, error) {
	if err := createTableConstraints(in); err != nil {
		return nil, err
	}
	t := e.newTableEntry(in)
	if err := checkCreateBilling(in, t); err != nil {
		return nil, err
	}
	defs, defNames, err := checkCreateDefinitions(in, t)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for _, k := range t.KeySchema {
		used[k.AttributeName] = true
	}
	seen := map[string]bool{}
	if err := checkCreateLSIs(in, t, defs, defNames, seen, used); err != nil {
		return nil, err
	}
	if err := checkCreateGSIs(in, t, defs, defNames, seen, used); err != nil {
		return nil, err
	}
	if len(used) != len(defs) {
		return nil, invalid("Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions")
	}
	if err := checkProjectedAttributeTotal(t.Indexes); err != nil {
		return nil, err
	}
	if err := checkCreateStreamAndTags(in, t); err != nil {
		return nil, err
	}
	t.TTL.Status = "DISABLED"
	if delay := e.statusDelay(t); delay > 0 {
		// After the tags, which may set the table's own delay.
		t.Status = storage.StatusCreating
		t.ActiveAt = t.CreatedAt.Add(delay)
	}
	return t, nil
}

// createTableConstraints checks CreateTable's member constraints.
func createTableConstraints(in *createTableInput) error {
	var c constraints
	c.notNull(in.AttributeDefinitions != nil, "attributeDefinitions")
	if c.notNull(in.TableName != nil, "tableName") {
		// CreateTable takes a name, not an ARN.
		c.name(in.TableName, "tableName")
	}
	if c.notNull(in.KeySchema != nil, "keySchema") {
		c.listLen(len(in.KeySchema), true, "keySchema", 1, 2, func() string { return renderKeySchema(in.KeySchema) })
	}
	attributeDefinitionConstraints(&c, in.AttributeDefinitions)
	keySchemaConstraints(&c, in.KeySchema, "keySchema")
	if in.ProvisionedThroughput != nil {
		throughputConstraints(&c, in.ProvisionedThroughput, "provisionedThroughput")
	}
	c.enum(in.BillingMode, "billingMode", "PROVISIONED", "PAY_PER_REQUEST")
	c.enum(in.TableClass, "tableClass", "STANDARD", "STANDARD_INFREQUENT_ACCESS")
	if in.StreamSpecification != nil {
		c.notNull(in.StreamSpecification.StreamEnabled != nil, "streamSpecification.streamEnabled")
		c.enum(in.StreamSpecification.StreamViewType, "streamSpecification.streamViewType", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES", "KEYS_ONLY")
	}
	for i, ix := range in.LocalSecondaryIndexes {
		indexConstraints(&c, &ix, "localSecondaryIndexes."+itoa(i+1)+".member.", 2)
	}
	for i, ix := range in.GlobalSecondaryIndexes {
		indexConstraints(&c, &ix, "globalSecondaryIndexes."+itoa(i+1)+".member.", maxGSIKeySchemaSize)
	}
	for i, tg := range in.Tags {
		tagConstraints(&c, tg, "tags."+itoa(i+1)+".member.")
	}
	return c.err()
}

// newTableEntry is the catalog entry of a table to create, before its
// schema is checked.
func (e *Engine) newTableEntry(in *createTableInput) *storage.Table {
	billing := "PROVISIONED"
	if in.BillingMode != nil {
		billing = *in.BillingMode
	}
	t := &storage.Table{
		Name:        *in.TableName,
		ID:          uuid.NewString(),
		BillingMode: billing,
		TableClass:  "STANDARD",
		Status:      storage.StatusActive,
		CreatedAt:   e.now(),
	}
	if in.TableClass != nil {
		t.TableClass = *in.TableClass
	}
	if in.DeletionProtectionEnabled != nil {
		t.DeletionProtection = *in.DeletionProtectionEnabled
	}
	return t
}

// checkCreateBilling checks the billing mode against the throughput.
func checkCreateBilling(in *createTableInput, t *storage.Table) error {
	if t.BillingMode == "PAY_PER_REQUEST" {
		if in.ProvisionedThroughput != nil {
			return invalid("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}
		t.BillingModeUpdated = t.CreatedAt
		return nil
	}
	if in.ProvisionedThroughput == nil {
		return invalid("ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")
	}
	if err := throughputBounds(in.ProvisionedThroughput); err != nil {
		return err
	}
	t.Throughput = storage.Throughput{ReadCapacityUnits: *in.ProvisionedThroughput.ReadCapacityUnits, WriteCapacityUnits: *in.ProvisionedThroughput.WriteCapacityUnits}
	return nil
}

// checkCreateDefinitions checks the attribute definitions and the table key
// schema, and returns the definitions by name and in order.
func checkCreateDefinitions(in *createTableInput, t *storage.Table) (map[string]string, []string, error) {
	defs := map[string]string{}
	var defNames []string
	for _, a := range in.AttributeDefinitions {
		if _, dup := defs[*a.AttributeName]; dup {
			return nil, nil, invalid("Duplicate AttributeName in AttributeDefinitions: %s", *a.AttributeName)
		}
		defs[*a.AttributeName] = *a.AttributeType
		defNames = append(defNames, *a.AttributeName)
		t.AttributeDefinitions = append(t.AttributeDefinitions, storage.AttributeDefinition{AttributeName: *a.AttributeName, AttributeType: *a.AttributeType})
	}
	// More key elements than definitions is refused before the names are
	// compared (architect/dynalite test/createTable.js, recorded from
	// DynamoDB: "missing key attribute definitions if BillingMode is
	// PAY_PER_REQUEST", "missing key attr definition when double and same").
	if len(in.KeySchema) > len(in.AttributeDefinitions) {
		return nil, nil, ddberr.Validation("Invalid KeySchema: Some index key attribute have no definition")
	}
	ks, err := checkKeySchema(in.KeySchema, defs, defNames)
	if err != nil {
		return nil, nil, err
	}
	t.KeySchema = ks
	return defs, defNames, nil
}

// checkCreateLSIs checks the local secondary indexes, recording the
// attributes their keys use in used and their names in seen.
func checkCreateLSIs(in *createTableInput, t *storage.Table, defs map[string]string, defNames []string, seen, used map[string]bool) error {
	if in.LocalSecondaryIndexes == nil {
		return nil
	}
	if len(in.LocalSecondaryIndexes) == 0 {
		return invalid("List of LocalSecondaryIndexes is empty")
	}
	if len(t.KeySchema) != 2 {
		return invalid("Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex")
	}
	for _, ix := range in.LocalSecondaryIndexes {
		idx, err := checkIndex(&ix, t.KeySchema[0].AttributeName, defs, defNames, seen)
		if err != nil {
			return err
		}
		addIndex(t, idx, used)
	}
	if len(in.LocalSecondaryIndexes) > maxLSIs {
		return invalid("Number of LocalSecondaryIndexes exceeds per-table limit of %d", maxLSIs)
	}
	return nil
}

// checkCreateGSIs checks the global secondary indexes and their
// throughput, recording the attributes their keys use in used.
func checkCreateGSIs(in *createTableInput, t *storage.Table, defs map[string]string, defNames []string, seen, used map[string]bool) error {
	if in.GlobalSecondaryIndexes == nil {
		return nil
	}
	if len(in.GlobalSecondaryIndexes) == 0 {
		return invalid("List of GlobalSecondaryIndexes is empty")
	}
	billing := t.BillingMode
	for _, ix := range in.GlobalSecondaryIndexes {
		idx, err := checkIndex(&ix, "", defs, defNames, seen)
		if err != nil {
			return err
		}
		if billing == "PAY_PER_REQUEST" && ix.ProvisionedThroughput != nil {
			return invalid("ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST", idx.IndexName)
		}
		if billing == "PROVISIONED" {
			if ix.ProvisionedThroughput == nil {
				return invalid("ProvisionedThroughput is not specified for index: %s", idx.IndexName)
			}
			if err := throughputBounds(ix.ProvisionedThroughput); err != nil {
				return err
			}
			idx.Throughput = &storage.Throughput{ReadCapacityUnits: *ix.ProvisionedThroughput.ReadCapacityUnits, WriteCapacityUnits: *ix.ProvisionedThroughput.WriteCapacityUnits}
		}
		idx.Status = storage.StatusActive
		addIndex(t, idx, used)
	}
	if len(in.GlobalSecondaryIndexes) > maxGSIs {
		return invalid("GlobalSecondaryIndex count exceeds the per-table limit of %d", maxGSIs)
	}
	return nil
}

// addIndex adds a checked index to t, recording the attributes its key
// uses in used.
func addIndex(t *storage.Table, idx storage.Index, used map[string]bool) {
	for _, k := range idx.KeySchema {
		used[k.AttributeName] = true
	}
	t.Indexes = append(t.Indexes, idx)
}

// checkCreateStreamAndTags checks the stream specification and the tags.
func checkCreateStreamAndTags(in *createTableInput, t *storage.Table) error {
	if s := in.StreamSpecification; s != nil && *s.StreamEnabled {
		if s.StreamViewType == nil {
			return invalid("StreamViewType must be specified when StreamEnabled is true") // verified wording unknown; see docs/differences-from-dynamodb.md
		}
		t.Stream = storage.StreamSpecification{StreamEnabled: true, StreamViewType: *s.StreamViewType}
		t.LatestStreamLabel = streamLabel(t.CreatedAt)
	}
	for _, tg := range in.Tags {
		t.Tags = append(t.Tags, storage.Tag{Key: *tg.Key, Value: *tg.Value})
	}
	if err := checkTagKeysUnique(t.Tags); err != nil {
		return err
	}
	return checkReservedTagKeys(tagKeys(in.Tags))
}

func streamLabel(at interface{ Format(string) string }) string {
	return at.Format("2006-01-02T15:04:05.000")
}

func keySchemaConstraints(c *constraints, ks []keySchemaElement, path string) {
	for i, k := range ks {
		p := path + "." + itoa(i+1) + ".member."
		if c.notNull(k.AttributeName != nil, p+"attributeName") {
			c.lenRange(k.AttributeName, p+"attributeName", 1, 255)
		}
		if c.notNull(k.KeyType != nil, p+"keyType") {
			c.enum(k.KeyType, p+"keyType", "HASH", "RANGE")
		}
	}
}

func throughputConstraints(c *constraints, tp *provisionedThroughput, path string) {
	if c.notNull(tp.WriteCapacityUnits != nil, path+".writeCapacityUnits") {
		c.minInt(tp.WriteCapacityUnits, path+".writeCapacityUnits", 1)
	}
	if c.notNull(tp.ReadCapacityUnits != nil, path+".readCapacityUnits") {
		c.minInt(tp.ReadCapacityUnits, path+".readCapacityUnits", 1)
	}
}

func throughputBounds(tp *provisionedThroughput) error {
	if *tp.ReadCapacityUnits > maxThroughputUnits {
		return ddberr.Validation("Given value %d for ReadCapacityUnits is out of bounds", *tp.ReadCapacityUnits)
	}
	if *tp.WriteCapacityUnits > maxThroughputUnits {
		return ddberr.Validation("Given value %d for WriteCapacityUnits is out of bounds", *tp.WriteCapacityUnits)
	}
	return nil
}

// attributeDefinitionConstraints checks the members of AttributeDefinitions
// (CreateTable, UpdateTable): a name of 1 to 255 characters and a type. The
// lengths are member constraints, reported before any check of the
// definitions against the key schemas.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_AttributeDefinition.html
func attributeDefinitionConstraints(c *constraints, defs []attributeDefinition) {
	for i, a := range defs {
		p := "attributeDefinitions." + itoa(i+1) + ".member."
		if c.notNull(a.AttributeName != nil, p+"attributeName") {
			c.lenRange(a.AttributeName, p+"attributeName", 1, 255)
		}
		if c.notNull(a.AttributeType != nil, p+"attributeType") {
			c.enum(a.AttributeType, p+"attributeType", "B", "N", "S")
		}
	}
}

// indexConstraints checks the members of an index definition; maxKeys is
// the longest KeySchema allowed (2, or 8 for a global secondary index with
// multi-attribute keys).
func indexConstraints(c *constraints, ix *secondaryIndexInput, p string, maxKeys int) {
	if c.notNull(ix.IndexName != nil, p+"indexName") {
		c.name(ix.IndexName, p+"indexName")
	}
	if c.notNull(ix.KeySchema != nil, p+"keySchema") {
		c.listLen(len(ix.KeySchema), true, p+"keySchema", 1, maxKeys, func() string { return renderKeySchema(ix.KeySchema) })
		keySchemaConstraints(c, ix.KeySchema, p+"keySchema")
	}
	if c.notNull(ix.Projection != nil, p+"projection") {
		c.enum(ix.Projection.ProjectionType, p+"projection.projectionType", "ALL", "INCLUDE", "KEYS_ONLY")
		if ix.Projection.NonKeyAttributes != nil {
			c.listLen(len(ix.Projection.NonKeyAttributes), true, p+"projection.nonKeyAttributes", 1, 20, func() string { return "[" + strings.Join(ix.Projection.NonKeyAttributes, ", ") + "]" })
			// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Projection.html
			for i := range ix.Projection.NonKeyAttributes {
				c.lenRange(&ix.Projection.NonKeyAttributes[i], p+"projection.nonKeyAttributes."+itoa(i+1)+".member", 1, 255)
			}
		}
	}
	if ix.ProvisionedThroughput != nil {
		throughputConstraints(c, ix.ProvisionedThroughput, p+"provisionedThroughput")
	}
}

func renderKeySchema(ks []keySchemaElement) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = "KeySchemaElement(attributeName=" + deref(k.AttributeName) + ", keyType=" + deref(k.KeyType) + ")"
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func deref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// checkKeySchema applies the key-schema rules shared by tables and indexes.
func checkKeySchema(in []keySchemaElement, defs map[string]string, defNames []string) ([]storage.KeyElement, error) {
	names := make([]string, len(in))
	for i, k := range in {
		names[i] = *k.AttributeName
	}
	for _, n := range names {
		if _, ok := defs[n]; !ok {
			if len(in) == 2 {
				return nil, ddberr.Validation("Invalid KeySchema: Some index key attribute have no definition")
			}
			return nil, invalid("Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]", strings.Join(names, ", "), strings.Join(defNames, ", "))
		}
	}
	if len(in) == 2 && names[0] == names[1] {
		return nil, ddberr.Validation("Both the Hash Key and the Range Key element in the KeySchema have the same name")
	}
	if *in[0].KeyType != "HASH" {
		return nil, ddberr.Validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	if len(in) == 2 && *in[1].KeyType != "RANGE" {
		return nil, ddberr.Validation("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
	}
	out := make([]storage.KeyElement, len(in))
	for i, k := range in {
		out[i] = storage.KeyElement{AttributeName: *k.AttributeName, KeyType: *k.KeyType}
	}
	return out, nil
}

// checkIndex validates one index definition. lsiHash is the table's hash key
// for a local secondary index and "" for a global one.
func checkIndex(ix *secondaryIndexInput, lsiHash string, defs map[string]string, defNames []string, seen map[string]bool) (storage.Index, error) {
	global := lsiHash == ""
	name := *ix.IndexName
	names := make([]string, len(ix.KeySchema))
	for i, k := range ix.KeySchema {
		names[i] = *k.AttributeName
	}
	for _, n := range names {
		if _, ok := defs[n]; !ok {
			return storage.Index{}, invalid("Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]", strings.Join(names, ", "), strings.Join(defNames, ", "))
		}
	}
	check := checkKeySchema
	if global {
		check = checkGSIKeySchema // multi-attribute keys
	}
	ks, err := check(ix.KeySchema, defs, defNames)
	if err != nil {
		return storage.Index{}, err
	}
	if !global {
		if len(ks) != 2 {
			return storage.Index{}, invalid("Index KeySchema does not have a range key for index: %s", name)
		}
		if ks[0].AttributeName != lsiHash {
			return storage.Index{}, invalid("Index KeySchema does not have the same leading hash key as table KeySchema for index: %s. index hash key: %s, table hash key: %s", name, ks[0].AttributeName, lsiHash)
		}
	}
	if ix.Projection.ProjectionType == nil {
		return storage.Index{}, invalid("Unknown ProjectionType: null")
	}
	pt := *ix.Projection.ProjectionType
	if ix.Projection.NonKeyAttributes != nil && pt != "INCLUDE" {
		return storage.Index{}, invalid("ProjectionType is %s, but NonKeyAttributes is specified", pt)
	}
	if pt == "INCLUDE" && len(ix.Projection.NonKeyAttributes) == 0 {
		return storage.Index{}, invalid("ProjectionType is INCLUDE, but NonKeyAttributes is not specified")
	}
	if seen[name] {
		return storage.Index{}, invalid("Duplicate index name: %s", name)
	}
	seen[name] = true
	return storage.Index{
		IndexName:  name,
		Global:     global,
		KeySchema:  ks,
		Projection: storage.Projection{ProjectionType: pt, NonKeyAttributes: ix.Projection.NonKeyAttributes},
		ID:         uuid.NewString(),
	}, nil
}

// checkProjectedAttributeTotal enforces DynamoDB's limit of 100 attributes
// projected into all of a table's indexes together.
func checkProjectedAttributeTotal(ixs []storage.Index) error {
	n := 0
	for _, ix := range ixs {
		n += len(ix.Projection.NonKeyAttributes)
	}
	if n > maxProjectedAttrs {
		return invalid("The number of projected attributes in all indexes of this table exceeds the limit of %d", maxProjectedAttrs)
	}
	return nil
}

type describeTableOutput struct {
	Table *tableDescription
}

var describeTableOp = namedTableOp((*Engine).describeTable)

func (e *Engine) describeTable(ctx context.Context, c caller, _ *tableNameInput, t *storage.Table) (any, error) {
	d, err := e.describe(ctx, c.region, t, true)
	if err != nil {
		return nil, err
	}
	return describeTableOutput{d}, nil
}

type listTablesInput struct {
	ExclusiveStartTableName *string
	Limit                   *int64
}

type listTablesOutput struct {
	TableNames             []string
	LastEvaluatedTableName string `json:"LastEvaluatedTableName,omitempty"`
}

// listTablesRules are ListTables' member constraints, in DynamoDB's order.
// https://github.com/mhart/dynalite/blob/master/test/listTables.js ("in order")
var listTablesRules = rules[listTablesInput]{
	minRule("limit", func(in *listTablesInput) *int64 { return in.Limit }, 1),
	maxRule("limit", func(in *listTablesInput) *int64 { return in.Limit }, 100),
	func(in *listTablesInput, c *constraints) {
		c.name(in.ExclusiveStartTableName, "exclusiveStartTableName")
	},
}

var listTablesOp = &controlOp[listTablesInput]{rules: listTablesRules, execute: (*Engine).listTables}

// listTables lists an account's tables in name order.
func (e *Engine) listTables(ctx context.Context, c caller, in *listTablesInput, _ *storage.Table) (any, error) {
	names, err := e.store.ListTables(ctx, c.account)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	start := 0
	if in.ExclusiveStartTableName != nil {
		start = sort.SearchStrings(names, *in.ExclusiveStartTableName)
		if start < len(names) && names[start] == *in.ExclusiveStartTableName {
			start++
		}
	}
	limit := int64(100)
	if in.Limit != nil {
		limit = *in.Limit
	}
	out := listTablesOutput{TableNames: []string{}}
	for i := start; i < len(names); i++ {
		if int64(len(out.TableNames)) == limit {
			out.LastEvaluatedTableName = out.TableNames[len(out.TableNames)-1]
			break
		}
		out.TableNames = append(out.TableNames, names[i])
	}
	return out, nil
}

// errTableInUse is the answer to a change of a table whose status st is
// CREATING, UPDATING or DELETING.
func errTableInUse(st, name string) error {
	return ddberr.ResourceInUse("Attempt to change a resource which is still in use: Table is being %s: %s", statusVerb(st), name)
}

// statusVerb is what a table in status st (CREATING, UPDATING or DELETING)
// is being: created, updated or deleted.
func statusVerb(st string) string {
	return strings.ToLower(strings.TrimSuffix(st, "ING")) + "ed"
}

var deleteTableOp = namedTableOp((*Engine).deleteTable)

func (e *Engine) deleteTable(ctx context.Context, c caller, _ *tableNameInput, t *storage.Table) (any, error) {
	account := c.account
	if st := e.status(t); st != storage.StatusActive {
		return nil, errTableInUse(st, t.Name)
	}
	if t.DeletionProtection {
		return nil, ddberr.Validation("Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
	}
	if indexBusy(t, e.now()) {
		// Verified against DynamoDB by dynoxide's conformance notes
		// (docs/compatibility.md, "Cannot delete table while indexes are being created").
		return nil, ddberr.ResourceInUse("Attempt to change a resource which is still in use: Cannot delete table while indexes are being created, updated, or deleted.")
	}
	d, err := e.describe(ctx, c.region, t, true)
	if err != nil {
		return nil, err
	}
	d.TableStatus = storage.StatusDeleting
	if delay := e.statusDelay(t); delay > 0 {
		if _, err := e.store.UpdateTable(ctx, account, t.Name, func(t *storage.Table) error {
			t.Status = storage.StatusDeleting
			return nil
		}); err != nil && err != storage.ErrTableNotFound {
			return nil, err
		}
		e.forget(account, t.Name)
		go e.finishDelete(account, t.Name, delay)
		return tableDescriptionOutput{d}, nil
	}
	if err := e.store.DeleteTable(ctx, account, t.Name); err != nil {
		if err == storage.ErrTableNotFound {
			return nil, errTableNotFound(t.Name)
		}
		return nil, err
	}
	e.forget(account, t.Name)
	e.tableDeleted(t.Name)
	return tableDescriptionOutput{d}, nil
}

// tableDeleted reports a table DeleteTable removed to Config.OnTableDeleted.
func (e *Engine) tableDeleted(name string) {
	if e.cfg.OnTableDeleted != nil {
		e.cfg.OnTableDeleted(name)
	}
}

// finishDelete removes a DELETING table once its status delay has passed.
func (e *Engine) finishDelete(account, name string, delay time.Duration) {
	e.sleep(delay)
	if err := e.store.DeleteTable(context.Background(), account, name); err != nil && err != storage.ErrTableNotFound {
		e.cfg.Log.Error("deleting table", "table", name, "error", err)
	} else {
		e.tableDeleted(name)
	}
	e.forget(account, name)
}
