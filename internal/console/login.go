package console

import (
	"net/http"
	"strings"

	"github.com/extenddb/extenddb/internal/protocol"
)

// serveLogin shows the sign-in form (GET) or checks an access key pair
// (POST) by authenticating a ListTables request signed with it, the way
// the API would. In local mode signing in is optional: it names the access
// key, and so the namespace of --per-access-key, and the region.
func (c *Console) serveLogin(w http.ResponseWriter, r *http.Request, s *session) {
	p := page{Title: "Sign in", Form: map[string]string{"region": c.cfg.Region}}
	if r.Method != http.MethodPost {
		c.render(w, r, s, http.StatusOK, "login", p)
		return
	}
	id := identity{
		keyID:  strings.TrimSpace(r.PostFormValue("access_key_id")),
		secret: r.PostFormValue("secret_access_key"),
		token:  strings.TrimSpace(r.PostFormValue("session_token")),
		region: strings.TrimSpace(r.PostFormValue("region")),
	}
	p.Form["access_key_id"], p.Form["region"] = id.keyID, id.region
	if id.keyID == "" || (c.verifies() && id.secret == "") {
		p.Error = "Enter an access key ID and its secret access key."
		c.render(w, r, s, http.StatusOK, "login", p)
		return
	}
	if c.cfg.Auth != nil {
		region := id.region
		if region == "" {
			region = c.cfg.Region
		}
		req, sum, err := c.signed(r.Context(), id, region, "DynamoDB", "ListTables", []byte("{}"))
		if err == nil {
			var caller protocol.Caller
			caller, err = c.cfg.Auth.Authenticate(req, sum)
			id.principal = caller.Principal
		}
		if err != nil {
			p.Error = asAPIError(err).Error()
			c.render(w, r, s, http.StatusOK, "login", p)
			return
		}
	}
	c.sessions.signIn(w, s, id, c.cfg.Secure)
	c.redirect(w, r, s, "/", "Signed in as "+id.keyID+".")
}
