package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/chromedp/chromedp"
)

// consoleBrowser starts a headless Chromium for the console's tests. In CI
// (CI=true) a missing Chromium fails the test; elsewhere it skips it.
func consoleBrowser(t *testing.T) context.Context {
	t.Helper()
	path := os.Getenv("CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := os.Stat(path); err != nil {
		msg := "Chromium (" + path + ") is missing: install Debian's chromium (scripts/test.sh does) or set CHROMIUM"
		if os.Getenv("CI") != "" || os.Getenv("EXTENDDB_REQUIRE_BACKENDS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 900), chromedp.Flag("disable-dev-shm-usage", true))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	ctx, cancelT := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(cancelT)
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("starting Chromium: %v", err)
	}
	return ctx
}

// page drives one browser tab on a console.
type page struct {
	t    *testing.T
	ctx  context.Context
	base string // e.g. http://127.0.0.1:1234/console
	dir  string // screenshots
}

func (p *page) do(steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, steps...); err != nil {
		p.t.Fatalf("browser: %v", err)
	}
}

// open loads a console path and waits for its heading.
func (p *page) open(path string) {
	p.t.Helper()
	p.do(chromedp.Navigate(p.base+path), chromedp.WaitVisible(chromedp.CSS("h1")))
}

// submit clicks sel and waits until the next page has loaded.
func (p *page) submit(sel string) {
	p.t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`window.__before = true`)); err != nil {
		p.t.Fatalf("browser: %v", err)
	}
	p.do(chromedp.Click(chromedp.CSS(sel)))
	deadline := time.Now().Add(30 * time.Second)
	for {
		// Evaluating fails while the old document goes away; try again.
		loaded, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`!window.__before && document.readyState === "complete"`))
		if err == nil && loaded {
			return
		}
		if time.Now().After(deadline) {
			p.shot("failure")
			p.t.Fatalf("no new page after clicking %s (%v)", sel, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// set types value into the form field sel.
func (p *page) set(sel, value string) {
	p.t.Helper()
	p.do(chromedp.WaitVisible(chromedp.CSS(sel)))
	ok, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`(function(){const e=document.querySelector(`+jsString(sel)+`);if(!e)return false;e.value=`+jsString(value)+`;e.dispatchEvent(new Event("change"));return true})()`))
	if err != nil || !ok {
		p.t.Fatalf("setting %s: %v", sel, err)
	}
}

// text is the text of the first element matching sel ("" when none).
func (p *page) text(sel string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`(function(){const e=document.querySelector(`+jsString(sel)+`);if(!e)return "";if(e.tagName==="TEXTAREA"||e.tagName==="INPUT")return e.value;return e.innerText.trim()})()`))
	if err != nil {
		p.t.Fatalf("browser: %v", err)
	}
	return s
}

// texts are the texts of every element matching sel.
func (p *page) texts(sel string) []string {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll(`+jsString(sel)+`), e => (e.innerText ?? e.textContent).trim())`))
	if err != nil {
		p.t.Fatalf("browser: %v", err)
	}
	return s
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// shot saves a screenshot of the whole page as name.png.
func (p *page) shot(name string) {
	p.t.Helper()
	buf, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join(p.dir, name+".png"), buf, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

func (p *page) want(sel, want string) {
	p.t.Helper()
	if got := p.text(sel); got != want {
		p.shot("failure")
		p.t.Fatalf("%s shows %q, want %q (screenshots in %s)", sel, got, want, p.dir)
	}
}

// TestConsoleInChromium drives the console of a real `extenddb serve
// --console` in headless Chromium: create a table with an index and a
// stream, write items through the editor, query and page through them,
// run PartiQL, tail the stream, read the table's TTL, PITR and backups,
// look at the charts, then delete the item and the table, checking each
// step against the API.
func TestConsoleInChromium(t *testing.T) {
	// Backups in the test's own directory: on PostgreSQL and Cassandra the
	// default is shared by every server of the machine.
	srv, c := startClient(t, "--console", "--backup-root", t.TempDir())
	ctx := ctxT(t)
	p := &page{t: t, ctx: consoleBrowser(t), base: srv.Endpoint + "/console", dir: t.TempDir()}
	if keep := os.Getenv("EXTENDDB_CONSOLE_SCREENSHOTS"); keep != "" { // to look at them after the test
		p.dir = keep
	}
	t.Logf("screenshots in %s", p.dir)

	p.open("/")
	p.want("#no-tables", "No tables yet. Create one.")
	p.shot("01-no-tables")

	p.open("/create")
	p.set("#name", "Orders")
	p.set("#pk", "customer")
	p.set("#sk", "order")
	p.set("#stream", "NEW_AND_OLD_IMAGES")
	p.set("#g0name", "ByStatus")
	p.set("#g0pk", "status")
	p.set("#l0name", "ByTotal")
	p.set("#l0sk", "total")
	p.set("#l0sktype", "N")
	p.shot("02-create-form")
	p.submit("#create")
	p.want("#flash", "Table Orders created.")
	p.want("#status", "ACTIVE")
	p.want("#key", "customer (HASH), order (RANGE)")
	p.want("#ttl", "DISABLED")
	p.want("#pitr", "DISABLED")
	p.want("#no-backups", "No backups.")
	desc, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Orders")})
	if err != nil {
		t.Fatal(err)
	}
	if len(desc.Table.GlobalSecondaryIndexes) != 1 || *desc.Table.GlobalSecondaryIndexes[0].IndexName != "ByStatus" ||
		len(desc.Table.LocalSecondaryIndexes) != 1 || *desc.Table.LocalSecondaryIndexes[0].IndexName != "ByTotal" ||
		desc.Table.StreamSpecification == nil || desc.Table.StreamSpecification.StreamViewType != types.StreamViewTypeNewAndOldImages {
		t.Fatalf("CreateTable from the console made %+v", desc.Table)
	}
	p.shot("03-table")

	p.putItem(c, ctx)
	p.queryPages(c, ctx)
	p.partiQL(c, ctx)
	p.tailStream(c, ctx)
	p.backupsAndCharts(c, ctx)
	p.deleteItemAndTable(c, ctx)
}

// putItem saves items through the editor, in plain and DynamoDB JSON, and
// shows a refused item with DynamoDB's own error.
func (p *page) putItem(c *dynamodb.Client, ctx context.Context) {
	t := p.t
	p.open("/tables/Orders/item?format=plain")
	p.set("#item", `{"customer": "c1", "order": "o1", "status": "NEW", "total": 12.5, "tags": ["a", "b"]}`)
	p.submit("#save")
	p.want("#flash", "Item saved.")
	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Orders"), Key: orderKey("c1", "o1")})
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := got.Item["total"].(*types.AttributeValueMemberN); !ok || n.Value != "12.5" {
		t.Fatalf("the editor saved %#v", got.Item)
	}
	if l, ok := got.Item["tags"].(*types.AttributeValueMemberL); !ok || len(l.Value) != 2 {
		t.Fatalf("the editor saved tags %#v", got.Item["tags"])
	}
	p.shot("04-item-saved")

	// An item without its sort key: the page shows what PutItem answers.
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html
	// (the key attributes are required); the message is DynamoDB's, as the
	// API tests assert.
	_, apiErr := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: map[string]types.AttributeValue{
		"customer": &types.AttributeValueMemberS{Value: "c1"}}})
	wantAPIError(t, apiErr, "ValidationException", "One or more parameter values were invalid: Missing the key order in the item")
	p.open("/tables/Orders/item")
	p.set("#item", `{"customer": {"S": "c1"}}`)
	p.submit("#save")
	p.want("#error", "ValidationException: One or more parameter values were invalid: Missing the key order in the item")
	p.shot("05-item-error")

	p.open("/tables/Orders/item")
	p.set("#item", `{"customer": {"S": "c1"}, "order": {"S": "o2"}, "status": {"S": "NEW"}, "codes": {"SS": ["x", "y"]}}`)
	p.submit("#save")
	p.want("#flash", "Item saved.")
	p.submit("#format-plain")
	if p.text("#lossy") == "" || !strings.Contains(p.text("#item"), `"codes": [`) {
		t.Fatalf("an item with a string set opened as plain JSON shows no warning: %q", p.text("#item"))
	}
	p.submit("#format-dynamodb")
	if p.text("#lossy") != "" || !strings.Contains(p.text("#item"), `"SS": [`) {
		t.Fatalf("the item as DynamoDB JSON: %q", p.text("#item"))
	}
	for _, o := range []string{"o3", "o4", "o5", "o6"} {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: map[string]types.AttributeValue{
			"customer": &types.AttributeValueMemberS{Value: "c1"}, "order": &types.AttributeValueMemberS{Value: o},
			"status": &types.AttributeValueMemberS{Value: "SHIPPED"}}}); err != nil {
			t.Fatal(err)
		}
	}
}

func orderKey(customer, order string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"customer": &types.AttributeValueMemberS{Value: customer}, "order": &types.AttributeValueMemberS{Value: order}}
}

// queryPages queries with Limit 2 and follows LastEvaluatedKey to the end.
func (p *page) queryPages(c *dynamodb.Client, ctx context.Context) {
	t := p.t
	p.open("/tables/Orders/items")
	p.do(chromedp.Click(chromedp.CSS("#mode-query")))
	p.set("#kc", "customer = :c")
	p.set("#values", `{":c": "c1"}`)
	p.set("#limit", "2")
	p.submit("#run")
	var orders []string
	for pages := 1; ; pages++ {
		if pages > 5 {
			t.Fatalf("more pages than 6 items in pages of 2 need")
		}
		rows := p.texts("#items tbody tr td:nth-child(2)")
		orders = append(orders, rows...)
		if pages == 1 {
			p.want("#counts", "Count 2, scanned 2.")
			p.shot("06-query-page-1")
		}
		if p.text("#last-page") != "" {
			break
		}
		p.submit("#next-page")
	}
	if strings.Join(orders, ",") != "o1,o2,o3,o4,o5,o6" {
		t.Fatalf("query pages showed sort keys %q, want o1..o6 in order", orders)
	}

	// A Scan with a filter: Count is what passed it, ScannedCount what was read.
	p.open("/tables/Orders/items?mode=scan&filter=" + url.QueryEscape("#s = :s") + "&names=" + url.QueryEscape(`{"#s":"status"}`) +
		"&values=" + url.QueryEscape(`{":s":{"S":"SHIPPED"}}`) + "&vformat=dynamodb")
	p.want("#counts", "Count 4, scanned 6.")
	// An index: the GSI holds the four SHIPPED orders.
	p.open("/tables/Orders/items?mode=query&index=ByStatus&kc=%23s+%3D+%3As&names=%7B%22%23s%22%3A%22status%22%7D&values=%7B%22%3As%22%3A%22SHIPPED%22%7D&limit=10")
	p.want("#counts", "Count 4, scanned 4.")
	// A bad key condition: Query's own error.
	p.open("/tables/Orders/items?mode=query&kc=" + url.QueryEscape("status = :s") + "&values=" + url.QueryEscape(`{":s":"NEW"}`))
	_, apiErr := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Orders"), KeyConditionExpression: aws.String("status = :s"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":s": &types.AttributeValueMemberS{Value: "NEW"}}})
	var ae interface{ ErrorCode() string }
	if !errors.As(apiErr, &ae) {
		t.Fatalf("Query with a non-key condition: %v", apiErr)
	}
	if got := p.text("#error"); !strings.HasPrefix(got, ae.ErrorCode()+": ") || !strings.Contains(apiErr.Error(), strings.TrimPrefix(got, ae.ErrorCode()+": ")) {
		t.Fatalf("the page shows %q, the API answers %v", got, apiErr)
	}
}

// partiQL runs a SELECT with a parameter and an INSERT.
func (p *page) partiQL(c *dynamodb.Client, ctx context.Context) {
	t := p.t
	p.open("/partiql")
	p.set("#statement", `SELECT * FROM "Orders" WHERE customer = ?`)
	p.set("#params", `["c1"]`)
	p.submit("#execute")
	if rows := p.texts("#results tbody tr"); len(rows) != 6 {
		t.Fatalf("SELECT showed %d rows, want 6: %q", len(rows), rows)
	}
	p.shot("07-partiql")
	p.set("#statement", `INSERT INTO "Orders" VALUE {'customer': 'c2', 'order': 'p1', 'status': 'NEW'}`)
	p.set("#params", "")
	p.submit("#execute")
	p.want("#no-results", "The statement returned no items.")
	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Orders"), Key: orderKey("c2", "p1")})
	if err != nil || got.Item == nil {
		t.Fatalf("the PartiQL INSERT wrote nothing: %v", err)
	}
	p.set("#statement", `SELEC * FROM "Orders"`)
	p.submit("#execute")
	_, apiErr := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELEC * FROM "Orders"`)})
	if got := p.text("#error"); apiErr == nil || !strings.Contains(apiErr.Error(), strings.SplitN(got, ": ", 2)[1]) {
		t.Fatalf("the page shows %q, the API answers %v", got, apiErr)
	}
}

// tailStream reads the stream from its oldest record, then sees a new
// write arrive.
func (p *page) tailStream(c *dynamodb.Client, ctx context.Context) {
	t := p.t
	p.open("/tables/Orders/stream?from=oldest")
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](`document.querySelectorAll("#tail tr.record").length >= 7`)); err != nil {
		t.Fatalf("the tail shows %q: %v", p.texts("#tail tr.record"), err)
	}
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Orders"), Key: orderKey("c1", "o3"),
		UpdateExpression:          aws.String("SET #s = :s"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":s": &types.AttributeValueMemberS{Value: "LIVE-TAIL"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](`document.querySelector("#tail tbody").innerText.includes("LIVE-TAIL")`)); err != nil {
		t.Fatalf("the update did not reach the tail: %v", err)
	}
	first := p.texts("#tail tr.record")[0]
	if !strings.HasPrefix(first, "MODIFY") || !strings.Contains(first, `"order":"o3"`) {
		t.Fatalf("the newest record shows %q", first)
	}
	p.shot("08-stream-tail")
}

// backupsAndCharts checks a backup appears on the table page and the
// metrics page draws its charts.
func (p *page) backupsAndCharts(c *dynamodb.Client, ctx context.Context) {
	t := p.t
	if _, err := c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("Orders"), BackupName: aws.String("nightly")}); err != nil {
		t.Fatal(err)
	}
	p.open("/tables/Orders")
	if rows := p.texts("#backups tbody tr td:first-child"); len(rows) != 1 || rows[0] != "nightly" {
		t.Fatalf("backups show %q", rows)
	}
	p.open("/")
	p.want("tr[data-table=Orders] .status", "ACTIVE")
	p.open("/metrics")
	if n := len(p.texts("svg.chart")); n != 3 {
		t.Fatalf("the metrics page draws %d charts, want 3", n)
	}
	if !regexp.MustCompile(`\(([1-9][0-9]*) requests\)`).MatchString(p.text("p.hint")) {
		t.Fatalf("the metrics page counts no requests: %q", p.text("p.hint"))
	}
	p.shot("09-metrics")
}

func (p *page) deleteItemAndTable(c *dynamodb.Client, ctx context.Context) {
	t := p.t
	p.open("/tables/Orders/items")
	p.submit("#items tbody tr:first-child a.edit")
	p.submit("#delete-item")
	p.want("#flash", "Item deleted.")
	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Orders"), Select: types.SelectCount})
	if err != nil || out.Count != 6 {
		t.Fatalf("after deleting one of 7 items, Scan counts %d (%v)", out.Count, err)
	}
	p.open("/tables/Orders")
	p.set("#confirm-name", "Order")
	p.submit("#delete-table")
	p.want("#error", "Type the table's name to delete it.")
	// A protected table: the page shows DeleteTable's refusal.
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Orders"), DeletionProtectionEnabled: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	_, apiErr := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("Orders")})
	var ae interface {
		ErrorCode() string
		ErrorMessage() string
	}
	if !errors.As(apiErr, &ae) {
		t.Fatalf("DeleteTable of a protected table: %v", apiErr)
	}
	p.set("#confirm-name", "Orders")
	p.submit("#delete-table")
	p.want("#error", ae.ErrorCode()+": "+ae.ErrorMessage())
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Orders"), DeletionProtectionEnabled: aws.Bool(false)}); err != nil {
		t.Fatal(err)
	}
	p.set("#confirm-name", "Orders")
	p.submit("#delete-table")
	p.want("#flash", "Table Orders is being deleted.")
	p.shot("10-deleted")
	_, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Orders")})
	var nf *types.ResourceNotFoundException
	if !errors.As(err, &nf) {
		t.Fatalf("DescribeTable after the console's delete: %v", err)
	}
}

// consoleClient is a browser-less visitor of a console: a cookie jar and
// the session's CSRF token.
type consoleClient struct {
	t    *testing.T
	hc   *http.Client
	base string
	csrf string
}

func newConsoleClient(t *testing.T, endpoint string) *consoleClient {
	jar, _ := cookiejar.New(nil)
	return &consoleClient{t: t, hc: &http.Client{Jar: jar, Timeout: 30 * time.Second}, base: endpoint + "/console"}
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// do sends a GET (form nil) or a POST, adding the session's token to the
// form unless it names its own, and returns the final response and body.
func (cc *consoleClient) do(path string, form url.Values) (*http.Response, string) {
	cc.t.Helper()
	var resp *http.Response
	var err error
	if form == nil {
		resp, err = cc.hc.Get(cc.base + path)
	} else {
		if !form.Has("csrf") {
			form.Set("csrf", cc.csrf)
		}
		resp, err = cc.hc.PostForm(cc.base+path, form)
	}
	if err != nil {
		cc.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if m := csrfRE.FindSubmatch(b); m != nil {
		cc.csrf = string(m[1])
	}
	return resp, string(b)
}

// shown is the error or flash message of a console page.
func shown(body string) string {
	m := regexp.MustCompile(`<p class="(?:error|flash)" id="(?:error|flash)">([^<]*)</p>`).FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// TestConsoleRequiresCredentials: with authentication on, every page
// sends to the sign-in form, a wrong key is refused with DynamoDB's error,
// a right one acts as that principal, with that principal's permissions
// (a user allowed only to list and describe tables is refused CreateTable
// with the API's own AccessDeniedException), and a form without the
// session's CSRF token changes nothing.
func TestConsoleRequiresCredentials(t *testing.T) {
	dir := t.TempDir()
	adminCLI(t, dir, nil, "account", "create", "--id", testAccount)
	adminCLI(t, dir, nil, "user", "create", "--account", testAccount, "erin")
	adminCLI(t, dir, nil, "policy", "put", "--account", testAccount, "--user", "erin", "look", "--document",
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["dynamodb:ListTables","dynamodb:DescribeTable"],"Resource":"*"}]}`)
	var key struct{ AccessKeyId, SecretAccessKey string }
	adminCLI(t, dir, &key, "key", "create", "--account", testAccount, "--user", "erin")
	srv, admin := startClient(t, authArgs("--data-dir", dir, "--account-id", testAccount, "--console")...)

	cc := newConsoleClient(t, srv.Endpoint)
	resp, body := cc.do("/", nil)
	if resp.Request.URL.Path != "/console/login" || !strings.Contains(body, `id="login-form"`) {
		t.Fatalf("an anonymous visit ends at %s", resp.Request.URL)
	}
	// The unknown key's error is DynamoDB's
	// (https://github.com/edasque/DynamoDBtoCSV/issues/36 quotes it).
	_, body = cc.do("/login", url.Values{"access_key_id": {"AKIAUNKNOWNKEY000000"}, "secret_access_key": {"x"}})
	if got := shown(body); got != "UnrecognizedClientException: The security token included in the request is invalid." {
		t.Fatalf("an unknown key: %q", got)
	}
	_, sigErr := clientAs(admin, testAccessKey, "not-the-secret", testRegion).ListTables(ctxT(t), &dynamodb.ListTablesInput{})
	_, body = cc.do("/login", url.Values{"access_key_id": {testAccessKey}, "secret_access_key": {"not-the-secret"}})
	if got := shown(body); got == "" || !strings.Contains(sigErr.Error(), strings.SplitN(got, ": ", 2)[1]) {
		t.Fatalf("a wrong secret: the page shows %q, the API answers %v", got, sigErr)
	}
	create := func(name string) url.Values {
		return url.Values{"name": {name}, "pk": {"pk"}, "pktype": {"S"}, "billing": {"PAY_PER_REQUEST"}}
	}
	if resp, _ = cc.do("/create", create("Tab")); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("creating a table before signing in: %s", resp.Status)
	}
	before := cc.csrf
	resp, body = cc.do("/login", url.Values{"access_key_id": {testAccessKey}, "secret_access_key": {testSecretKey}})
	if resp.Request.URL.Path != "/console/" || !strings.Contains(body, `<span id="signed-in">`+testAccessKey+`</span>`) {
		t.Fatalf("signing in ends at %s: %q", resp.Request.URL, shown(body))
	}
	for _, tok := range []string{"forged", before} { // signing in renews the session and its token
		forged := create("Tab")
		forged.Set("csrf", tok)
		if resp, _ = cc.do("/create", forged); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("CSRF token %q: %s", tok, resp.Status)
		}
	}
	if _, body = cc.do("/create", create("Tab")); shown(body) != "Table Tab created." {
		t.Fatalf("creating a table signed in: %q", shown(body))
	}

	// erin may look but not create.
	erin := newConsoleClient(t, srv.Endpoint)
	erin.do("/login", nil)
	if _, body = erin.do("/login", url.Values{"access_key_id": {key.AccessKeyId}, "secret_access_key": {key.SecretAccessKey}}); !strings.Contains(body, `data-table="Tab"`) {
		t.Fatalf("erin's table list: %q", shown(body))
	}
	_, apiErr := clientAs(admin, key.AccessKeyId, key.SecretAccessKey, testRegion).CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName: aws.String("Nope"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}})
	var ae interface {
		ErrorCode() string
		ErrorMessage() string
	}
	if !errors.As(apiErr, &ae) || ae.ErrorCode() != "AccessDeniedException" {
		t.Fatalf("erin's CreateTable through the API: %v", apiErr)
	}
	if _, body = erin.do("/create", create("Nope")); shown(body) != ae.ErrorCode()+": "+ae.ErrorMessage() {
		t.Fatalf("erin's CreateTable: the page shows %q, the API answers %v", shown(body), apiErr)
	}
	if _, body = erin.do("/logout", url.Values{}); !strings.Contains(body, `id="login-form"`) {
		t.Fatal("signing out does not end at the sign-in form")
	}
}

// TestConsoleLocalModeGuards: in local mode on loopback the console, like
// the API, answers only loopback Host names (no DNS rebinding), refuses
// posts without the session's token or from another origin, and is not
// served at all without --console.
func TestConsoleLocalModeGuards(t *testing.T) {
	srv := startServer(t, "--console")
	cc := newConsoleClient(t, srv.Endpoint)
	resp, body := cc.do("/", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `<span class="mode">local mode</span>`) {
		t.Fatalf("GET /console/: %s", resp.Status)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.Endpoint+"/console/", nil)
	req.Host = "rebound.example.com"
	r, err := cc.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusForbidden {
		t.Fatalf("a foreign Host: %s", r.Status)
	}
	form := url.Values{"name": {"Tab"}, "pk": {"pk"}, "pktype": {"S"}, "billing": {"PAY_PER_REQUEST"}}
	form.Set("csrf", "")
	if resp, _ = cc.do("/create", form); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a post without the token: %s", resp.Status)
	}
	req, _ = http.NewRequest(http.MethodPost, srv.Endpoint+"/console/create", strings.NewReader(url.Values{"csrf": {cc.csrf}, "name": {"Tab"}, "pk": {"pk"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://evil.example.com")
	if r, err = cc.hc.Do(req); err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusForbidden {
		t.Fatalf("a post from another origin: %s", r.Status)
	}
	tables, err := newClient(t, srv.Endpoint).ListTables(ctxT(t), &dynamodb.ListTablesInput{})
	if err != nil || len(tables.TableNames) != 0 {
		t.Fatalf("refused posts created tables: %v %v", tables.TableNames, err)
	}

	off := startServer(t)
	r, err = http.Get(off.Endpoint + "/console/")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusNotFound { // the API's answer to a GET it does not serve
		t.Fatalf("GET /console/ without --console: %s", r.Status)
	}
}
