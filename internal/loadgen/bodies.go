package loadgen

import (
	"slices"
	"strconv"
	"strings"
)

// Key digits are fixed-width so that a pre-built body can take a new key by
// overwriting digits in place.
const (
	pkDigits  = 9
	skDigits  = 3
	putDigits = 12
)

// PartitionKey is the pk of preloaded partition p.
func PartitionKey(p int) string { return "p" + pad(p, pkDigits) }

// SortKey is the sk of the j-th item of a preloaded partition.
func SortKey(j int) string { return "s" + pad(j, skDigits) }

func pad(n, width int) string {
	s := strconv.Itoa(n)
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	return s
}

// template is a request body with numbered fixed-width digit fields.
type template struct {
	buf    []byte
	fields []field
}

type field struct{ off, width int }

// newTemplate builds a body from parts separated by digit fields:
// parts[0] field0 parts[1] field1 ... parts[n].
func newTemplate(widths []int, parts ...string) template {
	var t template
	for i, p := range parts {
		t.buf = append(t.buf, p...)
		if i < len(widths) {
			t.fields = append(t.fields, field{off: len(t.buf), width: widths[i]})
			t.buf = append(t.buf, strings.Repeat("0", widths[i])...)
		}
	}
	return t
}

func (t template) clone() template {
	return template{buf: slices.Clone(t.buf), fields: t.fields}
}

// set writes n (mod 10^width) into field i.
func (t template) set(i, n int) {
	f := t.fields[i]
	for k := f.off + f.width - 1; k >= f.off; k-- {
		t.buf[k] = byte('0' + n%10)
		n /= 10
	}
}

// bodies holds one template per operation.
type bodies struct {
	put, get, query, update, scan template
	// batchWrite, batchGet and transact carry BatchSize, BatchSize and
	// TransactSize items; their fields are described at newBodies.
	batchWrite, batchGet, transact template
}

// BatchSize is the number of items of a BatchWriteItem or BatchGetItem
// request (25, the most DynamoDB takes in a BatchWriteItem); TransactSize
// is the number of Put actions of a TransactWriteItems request; ScanLimit
// is the Limit of a Scan page.
const (
	BatchSize    = 25
	TransactSize = 4
	ScanLimit    = 100
)

// payload is the non-key part of a written item: about 200 bytes in a string,
// numbers, a boolean and a string set, a typical small record.
var payload = `"data":{"S":"` + strings.Repeat("x", 200) + `"},"count":{"N":"12345.678"},"active":{"BOOL":true},` +
	`"labels":{"SS":["alpha","beta","gamma"]},"version":{"N":"1"}`

// newBodies builds the templates for table. run distinguishes the fresh keys
// of PutItem between runs; "" writes preloaded keys (pk p..., sk s...).
func newBodies(table, run string) bodies {
	t := strconv.Quote(table)
	var b bodies
	if run == "" {
		b.put = newTemplate([]int{pkDigits, skDigits},
			`{"TableName":`+t+`,"Item":{"pk":{"S":"p`, `"},"sk":{"S":"s`, `"},`+payload+`}}`)
	} else {
		// Field 0: worker, field 1: sequence number.
		b.put = newTemplate([]int{4, putDigits},
			`{"TableName":`+t+`,"Item":{"pk":{"S":"w`+run+`-`, `-`, `"},"sk":{"S":"s000"},`+payload+`}}`)
	}
	b.get = newTemplate([]int{pkDigits, skDigits},
		`{"TableName":`+t+`,"Key":{"pk":{"S":"p`, `"},"sk":{"S":"s`, `"}}}`)
	b.query = newTemplate([]int{pkDigits},
		`{"TableName":`+t+`,"KeyConditionExpression":"pk = :pk","ExpressionAttributeValues":{":pk":{"S":"p`, `"}}}`)
	b.scan = newTemplate([]int{pkDigits, skDigits},
		`{"TableName":`+t+`,"Limit":`+strconv.Itoa(ScanLimit)+`,"ExclusiveStartKey":{"pk":{"S":"p`, `"},"sk":{"S":"s`, `"}}}`)
	b.batchWrite = freshItems(`{"RequestItems":{`+t+`:[`, `]}}`, run, BatchSize,
		func(item string) string { return `{"PutRequest":{"Item":` + item + `}}` })
	b.transact = freshItems(`{"TransactItems":[`, `]}`, run, TransactSize,
		func(item string) string { return `{"Put":{"TableName":` + t + `,"Item":` + item + `}}` })
	b.batchGet = keyList(`{"RequestItems":{`+t+`:{"Keys":[`, `]}}}`, BatchSize)
	b.update = newTemplate([]int{pkDigits, skDigits},
		`{"TableName":`+t+`,"Key":{"pk":{"S":"p`, `"},"sk":{"S":"s`, `"}},`+
			`"UpdateExpression":"SET #c = :c ADD hits :one",`+
			`"ExpressionAttributeNames":{"#c":"count"},`+
			`"ExpressionAttributeValues":{":c":{"N":"42.5"},":one":{"N":"1"}}}`)
	return b
}

// freshItems builds a request of n items with fresh keys: item k has pk
// w<run>-<worker>-<sequence> (fields 2k and 2k+1) and sk s<k>, so the items
// of one request share a partition and differ in their sort key. wrap turns
// an item's JSON into its element of the request's list.
func freshItems(head, tail, run string, n int, wrap func(item string) string) template {
	widths := make([]int, 0, 2*n)
	parts := []string{head}
	for k := range n {
		if k > 0 {
			parts[len(parts)-1] += ","
		}
		elem := wrap(`{"pk":{"S":"w` + run + `-#-#"},"sk":{"S":"` + SortKey(k) + `"},` + payload + `}`)
		pre, rest, _ := strings.Cut(elem, `#`)
		mid, post, _ := strings.Cut(rest, `#`)
		parts[len(parts)-1] += pre
		parts = append(parts, mid, post)
		widths = append(widths, 4, putDigits)
	}
	parts[len(parts)-1] += tail
	return newTemplate(widths, parts...)
}

// keyList builds a request of n preloaded keys: key k's pk and sk digits
// are fields 2k and 2k+1.
func keyList(head, tail string, n int) template {
	widths := make([]int, 0, 2*n)
	parts := []string{head}
	for k := range n {
		if k > 0 {
			parts[len(parts)-1] += ","
		}
		parts[len(parts)-1] += `{"pk":{"S":"p`
		parts = append(parts, `"},"sk":{"S":"s`, `"}}`)
		widths = append(widths, pkDigits, skDigits)
	}
	parts[len(parts)-1] += tail
	return newTemplate(widths, parts...)
}

// setFresh gives the n fresh items of a freshItems template worker w's
// sequence number seq.
func (t template) setFresh(w, seq int) {
	for k := 0; k < len(t.fields); k += 2 {
		t.set(k, w)
		t.set(k+1, seq)
	}
}

// setKeys gives the keys of a keyList template the preloaded items first,
// first+1, ... (modulo items), all distinct when items >= the template's
// keys.
func (t template) setKeys(first, items int) {
	for k := 0; k < len(t.fields); k += 2 {
		i := (first + k/2) % items
		t.set(k, i/ItemsPerPartition)
		t.set(k+1, i%ItemsPerPartition)
	}
}
