package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// defaultLimit is the browser's page size when the form names none.
const defaultLimit = 25

// itemsView is the item browser's result.
type itemsView struct {
	Table    *tableDesc
	Indexes  []string
	Grid     itemGrid
	Count    int
	Scanned  int
	NextPage url.Values // the query string of the next page; nil on the last
	Ran      bool
}

// serveItems runs the item browser's Query or Scan (a GET: reading
// changes nothing) and shows one page of items.
func (c *Console) serveItems(w http.ResponseWriter, r *http.Request, s *session, name string) {
	q := r.URL.Query()
	form := map[string]string{"mode": "scan", "vformat": formatPlain, "limit": strconv.Itoa(defaultLimit)}
	for _, k := range []string{"mode", "index", "kc", "filter", "names", "values", "vformat", "limit", "start"} {
		if v := q.Get(k); v != "" {
			form[k] = v
		}
	}
	p := page{Title: name + " items", Table: name, Form: form}
	t, err := c.describe(r, s, name)
	if err != nil {
		c.renderError(w, r, s, "items", p, err)
		return
	}
	v := itemsView{Table: t}
	for _, ix := range append(append([]indexDesc{}, t.GlobalSecondaryIndexes...), t.LocalSecondaryIndexes...) {
		v.Indexes = append(v.Indexes, ix.IndexName)
	}
	p.Data = &v
	in, err := browseInput(name, form)
	if err != nil {
		c.renderError(w, r, s, "items", p, err)
		return
	}
	op := "Scan"
	if form["mode"] == "query" {
		op = "Query"
	}
	var out struct {
		Items            []map[string]any
		Count            int
		ScannedCount     int
		LastEvaluatedKey map[string]any
	}
	if err := c.call(r.Context(), s, op, in, &out); err != nil {
		c.renderError(w, r, s, "items", p, err)
		return
	}
	v.Ran, v.Count, v.Scanned = true, out.Count, out.ScannedCount
	v.Grid = newGrid(out.Items, keyNames(t.KeySchema))
	if len(out.LastEvaluatedKey) > 0 {
		next := url.Values{}
		for k, val := range form {
			next.Set(k, val)
		}
		next.Set("start", encodeKey(out.LastEvaluatedKey))
		v.NextPage = next
	}
	c.render(w, r, s, http.StatusOK, "items", p)
}

// browseInput is the Query or Scan input of the browser's form.
func browseInput(table string, f map[string]string) (map[string]any, error) {
	in := map[string]any{"TableName": table}
	if f["index"] != "" {
		in["IndexName"] = f["index"]
	}
	if f["mode"] == "query" {
		in["KeyConditionExpression"] = f["kc"]
	}
	if f["filter"] != "" {
		in["FilterExpression"] = f["filter"]
	}
	if f["limit"] != "" {
		n, err := strconv.Atoi(f["limit"])
		if err != nil {
			return nil, &apiError{Name: "ValidationException", Message: "1 validation error detected: Value '" + f["limit"] + "' at 'limit' failed to satisfy constraint: Member must be a number"}
		}
		in["Limit"] = n
	}
	if strings.TrimSpace(f["names"]) != "" {
		names, err := decodeJSON(f["names"])
		if err != nil {
			return nil, &apiError{Name: "Expression attribute names", Message: err.Error()}
		}
		in["ExpressionAttributeNames"] = names
	}
	if strings.TrimSpace(f["values"]) != "" {
		vals, err := parseObject(f["values"], f["vformat"])
		if err != nil {
			return nil, &apiError{Name: "Expression attribute values", Message: err.Error()}
		}
		in["ExpressionAttributeValues"] = vals
	}
	start, err := decodeKey(f["start"])
	if err != nil {
		return nil, &apiError{Name: "Page", Message: err.Error()}
	}
	if start != nil {
		in["ExclusiveStartKey"] = start
	}
	return in, nil
}

// itemView is the editor's state.
type itemView struct {
	Key    string // encodeKey of the item being edited; "" for a new item
	Exists bool
	Lossy  bool // shown as plain JSON, the item's sets or binary values would change type on saving
}

// serveItem is the item editor: GET loads the item named by ?key= (or an
// empty one), POST saves (PutItem) or deletes (DeleteItem) it.
func (c *Console) serveItem(w http.ResponseWriter, r *http.Request, s *session, name string) {
	p := page{Title: name + " item", Table: name, Form: map[string]string{"format": formatDynamoDB}}
	if r.Method == http.MethodPost {
		c.saveItem(w, r, s, name, p)
		return
	}
	q := r.URL.Query()
	if f := q.Get("format"); f == formatPlain {
		p.Form["format"] = f
	}
	v := itemView{Key: q.Get("key")}
	p.Data = &v
	if v.Key == "" {
		p.Form["item"] = "{\n}"
		c.render(w, r, s, http.StatusOK, "item", p)
		return
	}
	key, err := decodeKey(v.Key)
	if err != nil {
		c.renderError(w, r, s, "item", p, err)
		return
	}
	var out struct{ Item map[string]any }
	if err := c.call(r.Context(), s, "GetItem", map[string]any{"TableName": name, "Key": key, "ConsistentRead": true}, &out); err != nil {
		p.Error = err.Error()
	} else if out.Item == nil {
		p.Error = "No item has this key (it may have been deleted)."
	}
	v.Exists = out.Item != nil
	v.Lossy = p.Form["format"] == formatPlain && !plainSafe(map[string]any{"M": out.Item})
	p.Form["item"] = itemText(out.Item, p.Form["format"])
	c.render(w, r, s, http.StatusOK, "item", p)
}

func itemText(item map[string]any, format string) string {
	if item == nil {
		return "{\n}"
	}
	if format == formatPlain {
		return pretty(plainItem(item))
	}
	return pretty(item)
}

// saveItem puts or deletes the posted item and shows the result.
func (c *Console) saveItem(w http.ResponseWriter, r *http.Request, s *session, name string, p page) {
	format := r.PostFormValue("format")
	if format != formatPlain {
		format = formatDynamoDB
	}
	p.Form = map[string]string{"format": format, "item": r.PostFormValue("item")}
	v := itemView{Key: r.PostFormValue("key"), Exists: r.PostFormValue("key") != ""}
	p.Data = &v
	if r.PostFormValue("action") == "delete" {
		key, err := decodeKey(v.Key)
		if err == nil {
			err = c.call(r.Context(), s, "DeleteItem", map[string]any{"TableName": name, "Key": key}, nil)
		}
		if err != nil {
			c.renderError(w, r, s, "item", p, err)
			return
		}
		c.redirect(w, r, s, "/tables/"+url.PathEscape(name)+"/items", "Item deleted.")
		return
	}
	item, err := parseObject(p.Form["item"], format)
	if err != nil {
		p.Error = "The item is not valid: " + err.Error()
		c.render(w, r, s, http.StatusOK, "item", p)
		return
	}
	if err := c.call(r.Context(), s, "PutItem", map[string]any{"TableName": name, "Item": item}, nil); err != nil {
		c.renderError(w, r, s, "item", p, err)
		return
	}
	key := ""
	if t, err := c.describe(r, s, name); err == nil {
		key = encodeKey(keyOf(item, keyNames(t.KeySchema)))
	}
	c.redirect(w, r, s, "/tables/"+url.PathEscape(name)+"/item?format="+format+"&key="+key, "Item saved.")
}

// plainSafe reports whether an attribute value survives a round trip
// through plain JSON: no sets and no binary values, at any depth.
func plainSafe(av any) bool {
	m, _ := av.(map[string]any)
	for t, v := range m {
		switch t {
		case "B", "SS", "NS", "BS":
			return false
		case "L":
			l, _ := v.([]any)
			for _, e := range l {
				if !plainSafe(e) {
					return false
				}
			}
		case "M":
			mm, _ := v.(map[string]any)
			for _, e := range mm {
				if !plainSafe(e) {
					return false
				}
			}
		}
	}
	return true
}
