package config

import (
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// Entry is one setting as `adsync doctor` shows it: its YAML key path, its
// value with secrets masked, and where the value came from (see Origin).
type Entry struct {
	Key, Value, Origin string
}

// listShown is the longest list of plain values Entries shows item by
// item; a longer one, or a list of sections, shows its length.
const listShown = 10

// Entries lists every setting, in the order of the YAML file's keys, with
// secrets masked and the pipelines' defaults filled in (see Effective). A
// short list of plain values shows them; any other list its length.
func (c Config) Entries() ([]Entry, error) {
	b, err := yaml.Marshal(c.Effective().Masked())
	if err != nil {
		return nil, err
	}
	f, err := parser.ParseBytes(b, 0)
	if err != nil {
		return nil, err
	}
	var out []Entry
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		switch n := n.(type) {
		case *ast.MappingNode:
			for _, v := range n.Values {
				walk(v)
			}
		case *ast.MappingValueNode:
			switch v := n.Value.(type) {
			case *ast.MappingNode, *ast.MappingValueNode:
				walk(v)
			case *ast.SequenceNode:
				key := keyPath(v)
				out = append(out, Entry{Key: key, Value: listValue(v), Origin: c.Origin(key)})
			default:
				key := keyPath(v)
				val := strings.Trim(v.String(), `"'`)
				if val == "[]" {
					val = "0 items"
				}
				out = append(out, Entry{Key: key, Value: val, Origin: c.Origin(key)})
			}
		}
	}
	for _, d := range f.Docs {
		if d.Body != nil {
			walk(d.Body)
		}
	}
	return out, nil
}

// listValue shows a list: its plain values joined by commas when it has a
// few, else how many items it has ("0 items" when empty).
func listValue(v *ast.SequenceNode) string {
	if len(v.Values) == 0 || len(v.Values) > listShown {
		return fmt.Sprintf("%d items", len(v.Values))
	}
	vals := make([]string, len(v.Values))
	for i, item := range v.Values {
		s, ok := item.(ast.ScalarNode)
		if !ok {
			return fmt.Sprintf("%d items", len(v.Values))
		}
		vals[i] = fmt.Sprint(s.GetValue())
	}
	return strings.Join(vals, ", ")
}
