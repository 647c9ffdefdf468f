package main

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// verify reads the table back in several ways and compares each answer with
// the source records.
func verify(ctx context.Context, c *dynamodb.Client, cfg Config, data *Dataset, rep *Report) error {
	steps := []struct {
		name string
		fn   func() error
	}{
		{"scan count", func() error { return checkScanCount(ctx, c, cfg, data, rep) }},
		{"parallel scan of keys", func() error { return checkParallelScan(ctx, c, cfg, data, rep) }},
		{"filtered scan", func() error { return checkFilteredScan(ctx, c, cfg, data, rep) }},
		{"queries", func() error { return checkQueries(ctx, c, cfg, data, rep) }},
		{"get and batch get", func() error { return checkGets(ctx, c, cfg, data, rep) }},
	}
	if cfg.GSI {
		steps = append(steps, struct {
			name string
			fn   func() error
		}{"section index", func() error { return checkSectionIndex(ctx, c, cfg, data, rep) }})
	}
	for _, s := range steps {
		if err := s.fn(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

func sv(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

// names are the expression attribute names used throughout (Package and
// other words may be reserved).
var names = map[string]string{"#p": "Package", "#v": "Version", "#s": "Section", "#prio": "Priority", "#a": "Architecture"}

func pick(keys ...string) map[string]string {
	m := map[string]string{}
	for _, k := range keys {
		m[k] = names[k]
	}
	return m
}

// countScan runs a Select=COUNT Scan to its last page, following
// LastEvaluatedKey, and totals Count and ScannedCount over its pages.
func countScan(ctx context.Context, c *dynamodb.Client, in *dynamodb.ScanInput) (count, scanned, pages int, err error) {
	p := dynamodb.NewScanPaginator(c, in)
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return 0, 0, 0, err
		}
		count += int(out.Count)
		scanned += int(out.ScannedCount)
		pages++
	}
	return count, scanned, pages, nil
}

// checkScanCount: Scan Select=COUNT, following LastEvaluatedKey, totals the
// number of distinct (Package, Version) pairs.
func checkScanCount(ctx context.Context, c *dynamodb.Client, cfg Config, data *Dataset, rep *Report) error {
	total, scanned, pages, err := countScan(ctx, c, &dynamodb.ScanInput{TableName: aws.String(cfg.Table), Select: types.SelectCount})
	if err != nil {
		return err
	}
	rep.ScanPages += pages
	rep.ScanCount = total
	if total != len(data.Records) || scanned != total {
		return checkf("Scan Select=COUNT: Count %d, ScannedCount %d, want %d distinct (Package, Version)", total, scanned, len(data.Records))
	}
	rep.Checks++
	return nil
}

// checkParallelScan: a 4-segment parallel Scan projecting the key returns
// every pair exactly once.
func checkParallelScan(ctx context.Context, c *dynamodb.Client, cfg Config, data *Dataset, rep *Report) error {
	const segments = 4
	seen := make(map[string]int, len(data.Records))
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, segments)
	for seg := range segments {
		wg.Go(func() {
			p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{
				TableName:                aws.String(cfg.Table),
				Segment:                  aws.Int32(int32(seg)),
				TotalSegments:            aws.Int32(segments),
				ProjectionExpression:     aws.String("#p, #v"),
				ExpressionAttributeNames: pick("#p", "#v"),
			})
			for p.HasMorePages() {
				out, err := p.NextPage(ctx)
				if err != nil {
					errs[seg] = fmt.Errorf("segment %d: %w", seg, err)
					return
				}
				mu.Lock()
				for _, it := range out.Items {
					if len(it) != 2 {
						errs[seg] = checkf("segment %d: projected item has %d attributes, want 2", seg, len(it))
					}
					seen[str(it["Package"])+"\x00"+str(it["Version"])]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	for k, n := range seen {
		if n != 1 {
			return checkf("key %q returned %d times", k, n)
		}
		if data.ByKey[k] == nil {
			return checkf("key %q is not in the source", k)
		}
	}
	if len(seen) != len(data.Records) {
		return checkf("parallel scan returned %d keys, want %d", len(seen), len(data.Records))
	}
	rep.Checks++
	return nil
}

// checkFilteredScan: a FilterExpression counts the Priority "required"
// packages; ScannedCount still covers the whole table.
func checkFilteredScan(ctx context.Context, c *dynamodb.Client, cfg Config, data *Dataset, rep *Report) error {
	want := 0
	for _, r := range data.Records {
		if r.Priority == "required" {
			want++
		}
	}
	count, scanned, _, err := countScan(ctx, c, &dynamodb.ScanInput{
		TableName:                 aws.String(cfg.Table),
		Select:                    types.SelectCount,
		FilterExpression:          aws.String("#prio = :req"),
		ExpressionAttributeNames:  pick("#prio"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":req": sv("required")},
	})
	if err != nil {
		return err
	}
	if count != want || scanned != len(data.Records) {
		return checkf("Priority=required: Count %d (want %d), ScannedCount %d (want %d)", count, want, scanned, len(data.Records))
	}
	rep.Checks++
	return nil
}

// samplePackages picks a handful of packages to query: the three with the
// most versions, a few well-known ones when present, and a spread across the
// alphabet.
func samplePackages(data *Dataset) []string {
	versions := map[string]int{}
	for _, r := range data.Records {
		versions[r.Package]++
	}
	all := make([]string, 0, len(versions))
	for p := range versions {
		all = append(all, p)
	}
	sort.Strings(all)
	byCount := slices.Clone(all)
	sort.SliceStable(byCount, func(i, j int) bool { return versions[byCount[i]] > versions[byCount[j]] })
	var out []string
	add := func(p string) {
		if versions[p] > 0 && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, p := range byCount[:min(3, len(byCount))] {
		add(p)
	}
	for _, p := range []string{"bash", "coreutils", "dpkg", "apt", "libc6"} {
		add(p)
	}
	for i := range 5 {
		add(all[i*(len(all)-1)/4])
	}
	return out
}

// versionsOf returns the source's versions of pkg in DynamoDB's sort-key
// order for strings (UTF-8 bytes, which is Go's string order).
func versionsOf(data *Dataset, pkg string) []string {
	var vs []string
	for _, r := range data.Records {
		if r.Package == pkg {
			vs = append(vs, r.Version)
		}
	}
	sort.Strings(vs)
	return vs
}

// checkQueries runs, for each sampled package, a full Query, the same Query
// one item per page, a descending Limit=1 Query, a range condition and a
// Select=COUNT, and compares each with the source.
func checkQueries(ctx context.Context, c *dynamodb.Client, cfg Config, data *Dataset, rep *Report) error {
	for _, pkg := range samplePackages(data) {
		want := versionsOf(data, pkg)
		base := func() *dynamodb.QueryInput {
			return &dynamodb.QueryInput{
				TableName:                 aws.String(cfg.Table),
				KeyConditionExpression:    aws.String("#p = :p"),
				ExpressionAttributeNames:  pick("#p"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": sv(pkg)},
			}
		}
		// Every version, in ascending order.
		got, err := queryVersions(ctx, c, base())
		if err != nil {
			return err
		}
		if !slices.Equal(got, want) {
			return checkf("Query %s: versions %q, want %q", pkg, got, want)
		}
		// One item per page, following LastEvaluatedKey.
		in := base()
		in.Limit = aws.Int32(1)
		got, err = queryVersions(ctx, c, in)
		if err != nil {
			return err
		}
		if !slices.Equal(got, want) {
			return checkf("Query %s Limit=1 paginated: versions %q, want %q", pkg, got, want)
		}
		// Highest version first.
		in = base()
		in.ScanIndexForward = aws.Bool(false)
		in.Limit = aws.Int32(1)
		out, err := c.Query(ctx, in)
		if err != nil {
			return err
		}
		if len(out.Items) != 1 || str(out.Items[0]["Version"]) != want[len(want)-1] {
			return checkf("Query %s descending Limit=1: %d items, want version %q", pkg, len(out.Items), want[len(want)-1])
		}
		// A range condition on the sort key.
		mid := want[len(want)/2]
		in = base()
		in.KeyConditionExpression = aws.String("#p = :p AND #v >= :v")
		in.ExpressionAttributeNames = pick("#p", "#v")
		in.ExpressionAttributeValues[":v"] = sv(mid)
		got, err = queryVersions(ctx, c, in)
		if err != nil {
			return err
		}
		if !slices.Equal(got, want[len(want)/2:]) {
			return checkf("Query %s Version >= %q: %q, want %q", pkg, mid, got, want[len(want)/2:])
		}
		// Select=COUNT.
		in = base()
		in.Select = types.SelectCount
		out, err = c.Query(ctx, in)
		if err != nil {
			return err
		}
		if int(out.Count) != len(want) || len(out.Items) != 0 {
			return checkf("Query %s Select=COUNT: Count %d with %d items, want %d and none", pkg, out.Count, len(out.Items), len(want))
		}
		rep.Checks += 5
	}
	return nil
}

func queryVersions(ctx context.Context, c *dynamodb.Client, in *dynamodb.QueryInput) ([]string, error) {
	var vs []string
	p := dynamodb.NewQueryPaginator(c, in)
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, it := range out.Items {
			vs = append(vs, str(it["Version"]))
		}
	}
	return vs, nil
}

// checkGets compares whole items read with GetItem (strongly consistent) and
// BatchGetItem with the source records.
func checkGets(ctx context.Context, c *dynamodb.Client, cfg Config, data *Dataset, rep *Report) error {
	var sample []*Record
	for _, pkg := range samplePackages(data) {
		for _, v := range versionsOf(data, pkg) {
			sample = append(sample, data.ByKey[pkg+"\x00"+v])
		}
	}
	for i := 0; len(sample) < 100 && i < len(data.Records); i += max(1, len(data.Records)/100) {
		if !slices.Contains(sample, data.Records[i]) {
			sample = append(sample, data.Records[i])
		}
	}
	sample = sample[:min(len(sample), 100)] // BatchGetItem's limit
	keyOf := func(r *Record) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"Package": sv(r.Package), "Version": sv(r.Version)}
	}
	for _, r := range sample[:min(len(sample), 20)] {
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(cfg.Table), Key: keyOf(r), ConsistentRead: aws.Bool(true)})
		if err != nil {
			return err
		}
		if err := sameItem(out.Item, toItem(r)); err != nil {
			return checkf("GetItem %s %s: %v", r.Package, r.Version, err)
		}
		rep.Checks++
	}
	keys := make([]map[string]types.AttributeValue, len(sample))
	for i, r := range sample {
		keys[i] = keyOf(r)
	}
	got := map[string]map[string]types.AttributeValue{}
	pending := map[string]types.KeysAndAttributes{cfg.Table: {Keys: keys}}
	for attempt := 0; len(pending) > 0; attempt++ {
		if attempt == 15 {
			return checkf("BatchGetItem: keys still unprocessed after %d attempts", attempt)
		}
		out, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: pending})
		if err != nil {
			return err
		}
		for _, it := range out.Responses[cfg.Table] {
			got[str(it["Package"])+"\x00"+str(it["Version"])] = it
		}
		pending = out.UnprocessedKeys
	}
	if len(got) != len(sample) {
		return checkf("BatchGetItem: %d items, want %d", len(got), len(sample))
	}
	for _, r := range sample {
		if err := sameItem(got[r.key()], toItem(r)); err != nil {
			return checkf("BatchGetItem %s %s: %v", r.Package, r.Version, err)
		}
	}
	rep.Checks++
	return nil
}

// checkSectionIndex: for every Section, a Select=COUNT Query on the index
// matches the source; one section's items come back in Package order with
// the projected attributes.
func checkSectionIndex(ctx context.Context, c *dynamodb.Client, cfg Config, data *Dataset, rep *Report) error {
	want := map[string]int{}
	for _, r := range data.Records {
		if r.Section != "" {
			want[r.Section]++
		}
	}
	largest := ""
	for s, n := range want {
		if largest == "" || n > want[largest] || (n == want[largest] && s < largest) {
			largest = s
		}
	}
	for section, n := range want {
		p := dynamodb.NewQueryPaginator(c, &dynamodb.QueryInput{
			TableName:                 aws.String(cfg.Table),
			IndexName:                 aws.String(sectionIndex),
			Select:                    types.SelectCount,
			KeyConditionExpression:    aws.String("#s = :s"),
			ExpressionAttributeNames:  pick("#s"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":s": sv(section)},
		})
		got := 0
		for p.HasMorePages() {
			out, err := p.NextPage(ctx)
			if err != nil {
				return err
			}
			got += int(out.Count)
		}
		if got != n {
			return checkf("index Query Section=%q: Count %d, want %d", section, got, n)
		}
		rep.Checks++
	}
	// Items of the largest section, in Package order, with the projection.
	p := dynamodb.NewQueryPaginator(c, &dynamodb.QueryInput{
		TableName:                 aws.String(cfg.Table),
		IndexName:                 aws.String(sectionIndex),
		KeyConditionExpression:    aws.String("#s = :s"),
		ExpressionAttributeNames:  pick("#s"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":s": sv(largest)},
	})
	prev, got := "", 0
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, it := range out.Items {
			got++
			pkg := str(it["Package"])
			if pkg < prev {
				return checkf("index Query Section=%q: %q after %q", largest, pkg, prev)
			}
			prev = pkg
			r := data.ByKey[pkg+"\x00"+str(it["Version"])]
			if r == nil {
				return checkf("index Query Section=%q: unknown item %q %q", largest, pkg, str(it["Version"]))
			}
			if _, ok := it["Description"]; ok {
				return checkf("index Query Section=%q: Description is not projected into the index", largest)
			}
			if str(it["Architecture"]) != r.Architecture || str(it["Priority"]) != r.Priority {
				return checkf("index Query Section=%q: %s %s projected attributes differ", largest, pkg, r.Version)
			}
		}
	}
	if got != want[largest] {
		return checkf("index Query Section=%q: %d items, want %d", largest, got, want[largest])
	}
	rep.Checks++
	return nil
}

func str(v types.AttributeValue) string {
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// sameItem compares two items of the shapes toItem produces (S, N, SS).
func sameItem(got, want map[string]types.AttributeValue) error {
	if got == nil {
		return fmt.Errorf("no item")
	}
	if len(got) != len(want) {
		return fmt.Errorf("%d attributes, want %d", len(got), len(want))
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			return fmt.Errorf("attribute %s missing", name)
		}
		switch w := w.(type) {
		case *types.AttributeValueMemberS:
			if g, ok := g.(*types.AttributeValueMemberS); !ok || g.Value != w.Value {
				return fmt.Errorf("attribute %s = %#v, want S %q", name, g, w.Value)
			}
		case *types.AttributeValueMemberN:
			if g, ok := g.(*types.AttributeValueMemberN); !ok || g.Value != w.Value {
				return fmt.Errorf("attribute %s = %#v, want N %s", name, g, w.Value)
			}
		case *types.AttributeValueMemberSS:
			g, ok := g.(*types.AttributeValueMemberSS)
			if !ok {
				return fmt.Errorf("attribute %s is %T, want SS", name, g)
			}
			gs := slices.Sorted(slices.Values(g.Value))
			if !slices.Equal(gs, w.Value) {
				return fmt.Errorf("attribute %s = %q, want %q", name, gs, w.Value)
			}
		default:
			return fmt.Errorf("attribute %s: unexpected type %T", name, w)
		}
	}
	return nil
}
