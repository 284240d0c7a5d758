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

// Entries lists every setting, in the order of the YAML file's keys, with
// secrets masked. A list shows its length.
func (c Config) Entries() ([]Entry, error) {
	b, err := yaml.Marshal(c.Masked())
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
				out = append(out, Entry{Key: key, Value: fmt.Sprintf("%d items", len(v.Values)), Origin: c.Origin(key)})
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
