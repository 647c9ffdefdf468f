package console

import (
	"net/http"
	"strings"
)

// partiqlView is the PartiQL console's result.
type partiqlView struct {
	Ran       bool
	Grid      itemGrid
	NextToken string
}

// servePartiQL runs one ExecuteStatement (a POST: statements may write)
// and shows its items, with the next page when NextToken comes back.
func (c *Console) servePartiQL(w http.ResponseWriter, r *http.Request, s *session) {
	p := page{Title: "PartiQL", Form: map[string]string{"pformat": formatPlain}}
	v := &partiqlView{}
	p.Data = v
	if r.Method != http.MethodPost {
		c.render(w, r, s, http.StatusOK, "partiql", p)
		return
	}
	for _, k := range []string{"statement", "params", "pformat", "next", "consistent"} {
		if val := r.PostFormValue(k); val != "" {
			p.Form[k] = val
		}
	}
	in := map[string]any{"Statement": p.Form["statement"]}
	if strings.TrimSpace(p.Form["params"]) != "" {
		params, err := parseList(p.Form["params"], p.Form["pformat"])
		if err != nil {
			p.Error = "Parameters: " + err.Error()
			c.render(w, r, s, http.StatusOK, "partiql", p)
			return
		}
		in["Parameters"] = params
	}
	if p.Form["next"] != "" {
		in["NextToken"] = p.Form["next"]
	}
	if p.Form["consistent"] != "" {
		in["ConsistentRead"] = true
	}
	var out struct {
		Items     []map[string]any
		NextToken string
	}
	if err := c.call(r.Context(), s, "ExecuteStatement", in, &out); err != nil {
		c.renderError(w, r, s, "partiql", p, err)
		return
	}
	v.Ran, v.NextToken = true, out.NextToken
	v.Grid = newGrid(out.Items, nil)
	c.render(w, r, s, http.StatusOK, "partiql", p)
}
