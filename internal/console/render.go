package console

import (
	"bytes"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
)

// page is what every template gets.
type page struct {
	Title     string
	Error     string            // an error to show (DynamoDB's name and message)
	Flash     string            // the result of the previous action
	CSRF      string            // the session's token, for forms
	NeedLogin bool              // the server verifies signatures
	SignedIn  string            // the access key id signed in with, if any
	Region    string            // the region the console acts in
	Table     string            // the table the page is about, if any
	Form      map[string]string // the values of the page's form
	Data      any               // the page's own data
}

// pageNames are the templates under templates/, each defining "content".
var pageNames = []string{"tables", "create", "table", "items", "item", "partiql", "stream", "metrics", "login", "error"}

var funcs = template.FuncMap{
	"bytes":    humanBytes,
	"pathpart": url.PathEscape,
	"query":    func(v url.Values) template.URL { return template.URL(v.Encode()) },
	"seq": func(n int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = i
		}
		return s
	},
	"field":   func(prefix string, i int, name string) string { return prefix + strconv.Itoa(i) + name },
	"get":     func(m map[string]string, k string) string { return m[k] },
	"list":    func(s ...string) []string { return s },
	"keytext": KeyText,
}

func parsePages() map[string]*template.Template {
	out := make(map[string]*template.Template, len(pageNames))
	for _, name := range pageNames {
		out[name] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html"))
	}
	return out
}

// renderError renders page name of p with err as its error, with status
// 200: the console shows a failed call on the page that made it.
func (c *Console) renderError(w http.ResponseWriter, r *http.Request, s *session, name string, p page, err error) {
	p.Error = err.Error()
	c.render(w, r, s, http.StatusOK, name, p)
}

// render writes the page name with status.
func (c *Console) render(w http.ResponseWriter, r *http.Request, s *session, status int, name string, p page) {
	id := s.identity()
	p.CSRF = s.csrfToken()
	p.NeedLogin = c.verifies()
	p.SignedIn = id.keyID
	p.Region = id.region
	if p.Region == "" {
		p.Region = c.cfg.Region
	}
	if f, e := s.takeFlash(); p.Flash == "" && p.Error == "" {
		p.Flash, p.Error = f, e
	}
	if p.Form == nil {
		p.Form = map[string]string{}
	}
	var b bytes.Buffer
	if err := c.pages[name].ExecuteTemplate(&b, "layout", p); err != nil {
		c.cfg.Log.Error("console template", "page", name, "error", err)
		http.Error(w, "console page failed to render", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b.Bytes())
	}
}

// redirect sends the browser to a console path after an action, leaving
// flash for the next page.
func (c *Console) redirect(w http.ResponseWriter, r *http.Request, s *session, path, flash string) {
	if flash != "" {
		s.setFlash(flash, false)
	}
	http.Redirect(w, r, Prefix+path, http.StatusSeeOther)
}

// redirectError is redirect with an error for the next page.
func (c *Console) redirectError(w http.ResponseWriter, r *http.Request, s *session, path, msg string) {
	s.setFlash(msg, true)
	http.Redirect(w, r, Prefix+path, http.StatusSeeOther)
}

// humanBytes shows a size in bytes with a binary unit.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return strconv.FormatFloat(float64(n)/float64(div), 'f', 1, 64) + " " + string("KMGTPE"[exp]) + "iB"
}
