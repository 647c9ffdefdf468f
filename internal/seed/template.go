package seed

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A CloudFormation or SAM template's tables: the AWS::DynamoDB::Table
// resources (and SAM's AWS::Serverless::SimpleTable), with their
// properties turned into CreateTable's input. The property names of
// AWS::DynamoDB::Table are those of CreateTable, except for the stream
// (StreamSpecification has only StreamViewType), TimeToLiveSpecification
// and PointInTimeRecoverySpecification, applied after the create.
// https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-dynamodb-table.html
// https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/sam-resource-simpletable.html

// parseYAML reads a YAML template into plain values, turning the short
// forms of intrinsic functions (!Ref, !Sub, !Join, !GetAtt...) into their
// long forms ({"Ref": ...}, {"Fn::Sub": ...}).
func parseYAML(raw []byte) (any, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(raw, &n); err != nil {
		return nil, err
	}
	if len(n.Content) == 0 {
		return nil, nil
	}
	budget := maxTemplateNodes
	return plain(n.Content[0], 0, &budget)
}

// maxTemplateNodes and maxTemplateDepth bound the values a YAML template
// expands to, aliases included: a template whose aliases refer to
// themselves or multiply ("billion laughs") is refused rather than
// expanded without end.
const (
	maxTemplateNodes = 1 << 20
	maxTemplateDepth = 256
)

var errTemplateSize = errors.New("the template expands to too many values or nests too deep (its aliases refer to themselves or multiply)")

// plain turns n, at depth, into plain values, spending one of budget's
// values per node.
func plain(n *yaml.Node, depth int, budget *int) (any, error) {
	*budget--
	if *budget < 0 || depth > maxTemplateDepth {
		return nil, errTemplateSize
	}
	depth++
	var v any
	switch n.Kind {
	case yaml.AliasNode:
		return plain(n.Alias, depth, budget)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			val, err := plain(n.Content[i+1], depth, budget)
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = val
		}
		v = m
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			val, err := plain(c, depth, budget)
			if err != nil {
				return nil, err
			}
			l = append(l, val)
		}
		v = l
	default:
		if err := n.Decode(&v); err != nil {
			// A scalar under a custom tag decodes as its string.
			v = n.Value
		}
		if strings.HasPrefix(n.Tag, "!") {
			v = n.Value
		}
	}
	if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
		fn := n.Tag[1:]
		if fn != "Ref" && fn != "Condition" {
			fn = "Fn::" + fn
		}
		if fn == "Fn::GetAtt" {
			if s, ok := v.(string); ok {
				v = strings.SplitN(s, ".", 2)
			}
		}
		return map[string]any{fn: v}, nil
	}
	return v, nil
}

// resolver evaluates the simple intrinsic functions of a template's
// properties: Ref to a parameter (its Default) or a pseudo parameter,
// Fn::Sub with such references, and Fn::Join. Others are refused.
type resolver struct {
	file   string
	params map[string]any
	pseudo map[string]string
}

func newResolver(file string, tmpl map[string]any, region, account string) *resolver {
	stack := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	r := &resolver{file: file, params: map[string]any{}, pseudo: map[string]string{
		"AWS::StackName": stack, "AWS::Region": region, "AWS::AccountId": account,
		"AWS::Partition": "aws", "AWS::URLSuffix": "amazonaws.com", "AWS::NoValue": "",
	}}
	if ps, ok := tmpl["Parameters"].(map[string]any); ok {
		for name, p := range ps {
			if pm, ok := p.(map[string]any); ok {
				if d, ok := pm["Default"]; ok {
					r.params[name] = d
				}
			}
		}
	}
	return r
}

var subRef = regexp.MustCompile(`\$\{([^}]*)\}`)

// resolve returns v with its intrinsic functions evaluated; where names
// the place, for errors.
func (r *resolver) resolve(v any, where string) (any, error) {
	switch x := v.(type) {
	case []any:
		out := make([]any, 0, len(x))
		for i, e := range x {
			re, err := r.resolve(e, fmt.Sprintf("%s[%d]", where, i))
			if err != nil {
				return nil, err
			}
			out = append(out, re)
		}
		return out, nil
	case map[string]any:
		if len(x) == 1 {
			for k, arg := range x {
				if k == "Ref" || strings.HasPrefix(k, "Fn::") {
					return r.intrinsic(k, arg, where)
				}
			}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			re, err := r.resolve(e, where+"."+k)
			if err != nil {
				return nil, err
			}
			out[k] = re
		}
		return out, nil
	}
	return v, nil
}

func (r *resolver) intrinsic(fn string, arg any, where string) (any, error) {
	switch fn {
	case "Ref":
		name, _ := arg.(string)
		return r.ref(name, where)
	case "Fn::Sub":
		return r.sub(arg, where)
	case "Fn::Join":
		parts, ok := arg.([]any)
		if ok && len(parts) == 2 {
			sep, _ := parts[0].(string)
			list, err := r.resolve(parts[1], where)
			if l, ok := list.([]any); ok && err == nil {
				strs := make([]string, len(l))
				for i, e := range l {
					strs[i] = fmt.Sprint(e)
				}
				return strings.Join(strs, sep), nil
			}
		}
	}
	return nil, fmt.Errorf("%s: %s: %s is not supported in a seed template (only Ref to a parameter with a Default or a pseudo parameter, Sub of those, and Join); write the value", r.file, where, shortName(fn))
}

func shortName(fn string) string {
	if fn == "Ref" {
		return "!Ref"
	}
	return "!" + strings.TrimPrefix(fn, "Fn::")
}

func (r *resolver) ref(name, where string) (any, error) {
	if v, ok := r.pseudo[name]; ok {
		return v, nil
	}
	if v, ok := r.params[name]; ok {
		return r.resolve(v, where)
	}
	return nil, fmt.Errorf("%s: %s: !Ref %s names neither a parameter with a Default nor a pseudo parameter", r.file, where, name)
}

func (r *resolver) sub(arg any, where string) (any, error) {
	text, vars := "", map[string]any{}
	switch a := arg.(type) {
	case string:
		text = a
	case []any:
		if len(a) == 2 {
			text, _ = a[0].(string)
			vars, _ = a[1].(map[string]any)
		}
	}
	var err error
	out := subRef.ReplaceAllStringFunc(text, func(m string) string {
		name := m[2 : len(m)-1]
		if strings.HasPrefix(name, "!") {
			return "${" + name[1:] + "}"
		}
		var v any
		var rerr error
		if vv, ok := vars[name]; ok {
			v, rerr = r.resolve(vv, where)
		} else {
			v, rerr = r.ref(name, where)
		}
		if rerr != nil && err == nil {
			err = rerr
		}
		return fmt.Sprint(v)
	})
	return out, err
}

// cfnTables returns the tables of a template.
func cfnTables(file string, tmpl map[string]any, region, account string) ([]*Table, error) {
	res, _ := tmpl["Resources"].(map[string]any)
	r := newResolver(file, tmpl, region, account)
	ids := make([]string, 0, len(res))
	for id := range res {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []*Table
	for _, id := range ids {
		rm, _ := res[id].(map[string]any)
		typ, _ := rm["Type"].(string)
		if typ != "AWS::DynamoDB::Table" && typ != "AWS::Serverless::SimpleTable" {
			continue
		}
		props, err := r.resolve(rm["Properties"], "Resources."+id+".Properties")
		if err != nil {
			return nil, err
		}
		pm, _ := props.(map[string]any)
		if pm == nil {
			pm = map[string]any{}
		}
		var t *Table
		if typ == "AWS::Serverless::SimpleTable" {
			t, err = simpleTable(id, pm)
		} else {
			t, err = cfnTable(id, pm)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: Resources.%s: %w", file, id, err)
		}
		t.Source = file + ": Resources." + id
		out = append(out, t)
	}
	return out, nil
}
