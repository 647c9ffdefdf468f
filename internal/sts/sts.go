// Package sts serves the part of AWS Security Token Service that hands out
// temporary DynamoDB credentials: GetSessionToken and AssumeRole (and
// GetCallerIdentity, to check which credentials are in use), in STS's
// query protocol (form-encoded POST, XML responses), on the same port as
// the DynamoDB API. See
// https://docs.aws.amazon.com/STS/latest/APIReference/API_GetSessionToken.html
// and https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html.
package sts

import (
	"bytes"
	"crypto/sha256"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/auth"
	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/protocol"
)

const (
	xmlns = "https://sts.amazonaws.com/doc/2011-06-15/"
	// maxBody bounds a request body; STS requests are small.
	maxBody = 64 << 10
)

// Handler serves STS requests.
type Handler struct {
	Auth  *auth.Authenticator
	Store *auth.Store
	Now   func() time.Time
}

// IsQueryRequest reports whether r is in STS's query protocol (a
// form-encoded POST), not DynamoDB's JSON protocol.
func IsQueryRequest(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	return strings.EqualFold(strings.TrimSpace(ct), "application/x-www-form-urlencoded")
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reqID := uuid.NewString()
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		writeError(w, reqID, http.StatusBadRequest, "ValidationError", "Request body too large or unreadable")
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	sum := sha256.Sum256(body)
	caller, err := h.Auth.AuthenticateService(r, sum[:], "sts")
	if err != nil {
		writeAuthError(w, reqID, err)
		return
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		writeError(w, reqID, http.StatusBadRequest, "MalformedInput", "Request body is not form-encoded")
		return
	}
	var resp any
	switch form.Get("Action") {
	case "GetSessionToken":
		resp, err = h.getSessionToken(r, caller, form)
	case "AssumeRole":
		resp, err = h.assumeRole(r, caller, form)
	case "GetCallerIdentity":
		resp = callerIdentity(caller)
	default:
		writeError(w, reqID, http.StatusBadRequest, "InvalidAction", fmt.Sprintf("Could not find operation %s for version %s", form.Get("Action"), form.Get("Version")))
		return
	}
	if err != nil {
		var se *stsError
		if errors.As(err, &se) {
			writeError(w, reqID, se.status, se.code, se.msg)
			return
		}
		writeError(w, reqID, http.StatusInternalServerError, "InternalFailure", "Internal failure")
		return
	}
	writeXML(w, http.StatusOK, resp, reqID)
}

type stsError struct {
	status    int
	code, msg string
}

func (e *stsError) Error() string { return e.code + ": " + e.msg }

func validation(format string, args ...any) error {
	return &stsError{http.StatusBadRequest, "ValidationError", fmt.Sprintf(format, args...)}
}

func accessDenied(format string, args ...any) error {
	return &stsError{http.StatusForbidden, "AccessDenied", fmt.Sprintf(format, args...)}
}

// duration reads DurationSeconds within [min, max], def when absent.
func duration(form url.Values, min, max, def int) (time.Duration, error) {
	v := form.Get("DurationSeconds")
	if v == "" {
		return time.Duration(def) * time.Second, nil
	}
	n, err := strconv.Atoi(v)
	switch {
	case err != nil:
		return 0, validation("1 validation error detected: Value '%s' at 'durationSeconds' failed to satisfy constraint: Member must be a number", v)
	case n < min:
		return 0, validation("1 validation error detected: Value '%d' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to %d", n, min)
	case n > max:
		return 0, validation("1 validation error detected: Value '%d' at 'durationSeconds' failed to satisfy constraint: Member must have value less than or equal to %d", n, max)
	}
	return time.Duration(n) * time.Second, nil
}

func (h *Handler) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// credentials is the Credentials element of both responses.
type credentials struct {
	AccessKeyId     string
	SecretAccessKey string
	SessionToken    string
	Expiration      string
}

func credentialsOf(c auth.SessionCredentials) credentials {
	return credentials{c.AccessKeyID, c.SecretAccessKey, c.SessionToken, c.Expiration.Format("2006-01-02T15:04:05Z")}
}

type getSessionTokenResponse struct {
	XMLName     xml.Name    `xml:"GetSessionTokenResponse"`
	Xmlns       string      `xml:"xmlns,attr"`
	Credentials credentials `xml:"GetSessionTokenResult>Credentials"`
	RequestID   string      `xml:"ResponseMetadata>RequestId"`
}

func (h *Handler) getSessionToken(r *http.Request, c protocol.Caller, form url.Values) (any, error) {
	ttl, err := duration(form, 900, 129600, 43200)
	if err != nil {
		return nil, err
	}
	key, _, err := h.Auth.AuthorizeAction(r.Context(), c, "sts:GetSessionToken", "*")
	if err != nil {
		return nil, err
	}
	if key.TokenHash != nil {
		return nil, accessDenied("Cannot call GetSessionToken with session credentials")
	}
	creds, err := h.Store.CreateSessionKey(r.Context(), key, "", "", h.now(), ttl)
	if err != nil {
		return nil, err
	}
	return &getSessionTokenResponse{Xmlns: xmlns, Credentials: credentialsOf(creds)}, nil
}

type assumeRoleResponse struct {
	XMLName       xml.Name    `xml:"AssumeRoleResponse"`
	Xmlns         string      `xml:"xmlns,attr"`
	AssumedRoleId string      `xml:"AssumeRoleResult>AssumedRoleUser>AssumedRoleId"`
	Arn           string      `xml:"AssumeRoleResult>AssumedRoleUser>Arn"`
	Credentials   credentials `xml:"AssumeRoleResult>Credentials"`
	RequestID     string      `xml:"ResponseMetadata>RequestId"`
}

var (
	roleArnRE     = regexp.MustCompile(`^arn:aws:iam::([0-9]{12}):role/([\w+=,.@-]{1,64})$`)
	sessionNameRE = regexp.MustCompile(`^[\w+=,.@-]{2,64}$`)
)

func (h *Handler) assumeRole(r *http.Request, c protocol.Caller, form url.Values) (any, error) {
	arn, session := form.Get("RoleArn"), form.Get("RoleSessionName")
	var msgs []string
	if len(arn) < 20 {
		msgs = append(msgs, fmt.Sprintf("Value '%s' at 'roleArn' failed to satisfy constraint: Member must have length greater than or equal to 20", arn))
	}
	if !sessionNameRE.MatchString(session) {
		msgs = append(msgs, fmt.Sprintf("Value '%s' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*", session))
	}
	if len(msgs) > 0 {
		return nil, validation("%d validation error%s detected: %s", len(msgs), map[bool]string{true: "s"}[len(msgs) > 1], strings.Join(msgs, "; "))
	}
	if err := refuseSessionPolicies(form); err != nil {
		return nil, err
	}
	ttl, err := duration(form, 900, 43200, 3600)
	if err != nil {
		return nil, err
	}
	if ttl > time.Hour {
		return nil, validation("The requested DurationSeconds exceeds the MaxSessionDuration set for this role.")
	}
	denied := func() error {
		return accessDenied("User: %s is not authorized to perform: sts:AssumeRole on resource: %s", c.Principal, arn)
	}
	m := roleArnRE.FindStringSubmatch(arn)
	if m == nil {
		return nil, denied()
	}
	role, err := h.Store.GetRole(r.Context(), m[1], m[2])
	if errors.Is(err, auth.ErrNotFound) {
		return nil, denied()
	}
	if err != nil {
		return nil, err
	}
	key, refused, err := h.Auth.AuthorizeAction(r.Context(), c, "sts:AssumeRole", arn)
	if err != nil {
		return nil, err
	}
	if refused || !role.Trusts(c.Account) {
		return nil, denied()
	}
	base := key
	base.Account = role.Account
	creds, err := h.Store.CreateSessionKey(r.Context(), base, role.Name, session, h.now(), ttl)
	if err != nil {
		return nil, err
	}
	return &assumeRoleResponse{
		Xmlns:         xmlns,
		AssumedRoleId: uniqueID("AROA", arn) + ":" + session,
		Arn:           "arn:aws:sts::" + role.Account + ":assumed-role/" + role.Name + "/" + session,
		Credentials:   credentialsOf(creds),
	}, nil
}

type errorResponse struct {
	XMLName   xml.Name `xml:"ErrorResponse"`
	Xmlns     string   `xml:"xmlns,attr"`
	Type      string   `xml:"Error>Type"`
	Code      string   `xml:"Error>Code"`
	Message   string   `xml:"Error>Message"`
	RequestID string   `xml:"RequestId"`
}

func writeError(w http.ResponseWriter, reqID string, status int, code, msg string) {
	typ := "Sender"
	if status >= 500 {
		typ = "Receiver"
	}
	writeXML(w, status, &errorResponse{Xmlns: xmlns, Type: typ, Code: code, Message: msg, RequestID: reqID}, reqID)
}

// writeAuthError words an authentication failure as STS does: its codes
// differ from DynamoDB's (InvalidClientTokenId, SignatureDoesNotMatch).
func writeAuthError(w http.ResponseWriter, reqID string, err error) {
	e := ddberr.As(err)
	code := map[string]string{
		"UnrecognizedClientException":         "InvalidClientTokenId",
		"InvalidSignatureException":           "SignatureDoesNotMatch",
		"MissingAuthenticationTokenException": "MissingAuthenticationToken",
		"IncompleteSignatureException":        "IncompleteSignature",
		"ExpiredTokenException":               "ExpiredToken",
	}[e.Name()]
	if code == "" {
		writeError(w, reqID, http.StatusInternalServerError, "InternalFailure", "Internal failure")
		return
	}
	writeError(w, reqID, http.StatusForbidden, code, e.Message)
}

func writeXML(w http.ResponseWriter, status int, v any, reqID string) {
	switch r := v.(type) {
	case *getSessionTokenResponse:
		r.RequestID = reqID
	case *assumeRoleResponse:
		r.RequestID = reqID
	case *getCallerIdentityResponse:
		r.RequestID = reqID
	}
	out, err := xml.Marshal(v)
	if err != nil {
		status, out = http.StatusInternalServerError, []byte("<ErrorResponse/>")
	}
	w.Header().Set("Content-Type", "text/xml")
	w.Header().Set("x-amzn-RequestId", reqID)
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(status)
	_, _ = w.Write(out)
}

// refuseSessionPolicies refuses AssumeRole's session policies (Policy,
// PolicyArns.member.N.arn), which extenddb does not evaluate: a session
// that ignored them would hold all of its role's permissions rather than
// the intersection the caller asked for
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies.html#policies_session).
func refuseSessionPolicies(form url.Values) error {
	for name := range form {
		if name == "Policy" || strings.HasPrefix(name, "PolicyArns.") {
			return validation("Session policies (Policy and PolicyArns) are not supported: the session would hold all of the role's permissions. Assume the role without them, or give the role only the permissions the session needs.")
		}
	}
	return nil
}

// uniqueID is the stable unique ID of the user or role arn, in IAM's form:
// a prefix (AIDA for users, AROA for roles) and 17 characters.
func uniqueID(prefix, arn string) string {
	return prefix + strings.ToUpper(strings.ReplaceAll(uuid.NewSHA1(uuid.NameSpaceURL, []byte(arn)).String(), "-", ""))[:17]
}

type getCallerIdentityResponse struct {
	XMLName   xml.Name `xml:"GetCallerIdentityResponse"`
	Xmlns     string   `xml:"xmlns,attr"`
	Arn       string   `xml:"GetCallerIdentityResult>Arn"`
	UserID    string   `xml:"GetCallerIdentityResult>UserId"`
	Account   string   `xml:"GetCallerIdentityResult>Account"`
	RequestID string   `xml:"ResponseMetadata>RequestId"`
}

// callerIdentity answers GetCallerIdentity, which needs no permission
// (https://docs.aws.amazon.com/STS/latest/APIReference/API_GetCallerIdentity.html):
// the caller's ARN, account and unique ID (a user's AIDA... ID, or for a
// role session the role's AROA... ID and the session name).
func callerIdentity(c protocol.Caller) *getCallerIdentityResponse {
	out := &getCallerIdentityResponse{Xmlns: xmlns, Arn: c.Principal, Account: c.Account}
	if rest, ok := strings.CutPrefix(c.Principal, "arn:aws:sts::"+c.Account+":assumed-role/"); ok {
		role, session, _ := strings.Cut(rest, "/")
		out.UserID = uniqueID("AROA", "arn:aws:iam::"+c.Account+":role/"+role) + ":" + session
	} else {
		out.UserID = uniqueID("AIDA", c.Principal)
	}
	return out
}
