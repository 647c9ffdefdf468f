package policy

import "strings"

// resolve replaces the policy variables of s, ${key} or
// ${key, 'default'}, with the request's value of key (case-insensitive
// key, first value of a multi-valued key), and ${*}, ${?} and ${$} with
// *, ? and $. ok is false when a variable's key is absent from the
// request and it has no default: the element then matches nothing.
// Policy variables are only read in Version 2012-10-17 documents. See
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html.
func resolve(s string, ctx map[string][]string) (string, bool) {
	if !strings.Contains(s, "${") {
		return s, true
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), true
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String(), true
		}
		b.WriteString(s[:i])
		v, ok := variable(s[i+2:i+j], ctx)
		if !ok {
			return "", false
		}
		b.WriteString(v)
		s = s[i+j+1:]
	}
}

// variable is the value of one variable's text (between "${" and "}").
func variable(text string, ctx map[string][]string) (string, bool) {
	switch text {
	case "*", "?", "$":
		return text, true
	}
	key, def, hasDef := strings.Cut(text, ",")
	key = strings.ToLower(strings.TrimSpace(key))
	if vs := ctx[key]; len(vs) > 0 {
		return vs[0], true
	}
	if hasDef {
		def = strings.TrimSpace(def)
		if len(def) >= 2 && def[0] == '\'' && def[len(def)-1] == '\'' {
			return def[1 : len(def)-1], true
		}
	}
	return "", false
}

// resolveAll resolves the variables of each of xs, leaving out those that
// cannot be resolved.
func resolveAll(xs []string, ctx map[string][]string) []string {
	if !hasVariables(xs) {
		return xs
	}
	var out []string
	for _, x := range xs {
		if v, ok := resolve(x, ctx); ok {
			out = append(out, v)
		}
	}
	return out
}

// resolveList is resolveAll keeping a nil list nil (an absent element)
// and a resolved list non-nil (a present element that may match nothing).
func resolveList(xs []string, ctx map[string][]string) []string {
	if xs == nil {
		return nil
	}
	out := resolveAll(xs, ctx)
	if out == nil {
		out = []string{}
	}
	return out
}

func hasVariables(xs []string) bool {
	for _, x := range xs {
		if strings.Contains(x, "${") {
			return true
		}
	}
	return false
}
