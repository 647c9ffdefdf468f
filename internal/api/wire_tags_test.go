package api

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestNoRedundantJSONTags keeps the convention of the wire structs
// (docs/architecture.md, "... an operation"): a field's Go name is the
// member's name in DynamoDB's JSON, and encoding/json uses the field name
// when there is no tag, so a tag that only repeats the name says nothing.
// A tag stays where it adds omitempty, another name or "-". The check runs
// over every Go file of the module, the stored records' structs included.
// (A tag does say something where two embedded structs at one depth share
// a field name: encoding/json then picks the tagged one. No struct of the
// module does that; one that needs it would be named here as an exception.)
func TestNoRedundantJSONTags(t *testing.T) {
	root := filepath.Join("..", "..")
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			field, ok := n.(*ast.Field)
			if !ok || field.Tag == nil || len(field.Names) != 1 {
				return true
			}
			raw, err := strconv.Unquote(field.Tag.Value)
			if err != nil {
				return true
			}
			if tag, ok := reflect.StructTag(raw).Lookup("json"); ok && tag == field.Names[0].Name {
				found = append(found, fset.Position(field.Pos()).String())
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Errorf("json tags that only repeat the field's name (drop them):\n%s", strings.Join(found, "\n"))
	}
}
