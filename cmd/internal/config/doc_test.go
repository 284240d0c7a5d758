package config

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures/handbook"
	"github.com/adsync/adsync/sync/audience"
	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/stretchr/testify/require"
)

// configurationDoc is the handbook's page of every setting.
const configurationDoc = "docs/configuration.md"

// The page of every setting cannot drift from the code: every YAML key the
// Config type declares (an item's keys as audiences[].mode), the environment
// variable of each setting that has one, every ADSYNC_* variable adsync
// knows, and every default are on it.
func TestTheConfigurationPageListsEveryKeyEnvironmentVariableAndDefault(t *testing.T) {
	t.Parallel()
	doc, err := handbook.Read(configurationDoc)
	require.NoError(t, err)
	rows := docRows(doc)

	keys := yamlKeys(reflect.TypeOf(Config{}), "")
	require.Contains(t, keys, "audiences[].source.source_url", "the walk reaches the keys of list items")
	for _, key := range keys {
		row, ok := rows[key]
		require.True(t, ok, "%s has no row for the key %s", configurationDoc, key)
		if env := EnvName(key); env != "" {
			require.Contains(t, row, "`"+env+"`", "%s: the row of %s names its environment variable", configurationDoc, key)
		}
	}
	for _, env := range KnownEnvNames() {
		require.Contains(t, doc, "`"+env+"`", "%s names the environment variable %s", configurationDoc, env)
	}
	for key, value := range defaultValues(t) {
		row, ok := rows[key]
		require.True(t, ok, "%s has no row for the key %s", configurationDoc, key)
		require.True(t, sameDefault(row[2], value), "%s: the default of %s is %q, the page says %s", configurationDoc, key, value, row[2])
	}
	maxDelete := rows["audiences[].max_delete"]
	require.True(t, sameDefault(maxDelete[2], audience.DefaultMaxDelete.String()),
		"%s: the default of audiences[].max_delete is %s, the page says %s", configurationDoc, audience.DefaultMaxDelete, maxDelete[2])
}

// docRows are the page's table rows whose first cell is a key in
// backquotes, by key, each as its cells (the key's own included).
func docRows(doc string) map[string][]string {
	rows := map[string][]string{}
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		// A cell may hold an escaped bar (DAY\|HOUR).
		cells := strings.Split(strings.ReplaceAll(strings.Trim(line, "|"), `\|`, "\x00"), "|")
		for i := range cells {
			cells[i] = strings.ReplaceAll(strings.TrimSpace(cells[i]), "\x00", "|")
		}
		if len(cells) >= 4 {
			rows[strings.Trim(cells[0], "`")] = cells
		}
	}
	return rows
}

// yamlKeys lists the YAML key paths of t's fields under prefix: a struct's
// fields are walked, a list of structs as prefix[] and its fields.
func yamlKeys(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		key := prefix + name
		out = append(out, key)
		switch {
		case f.Type.Kind() == reflect.Struct:
			out = append(out[:len(out)-1], yamlKeys(f.Type, key+".")...)
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct:
			out = append(out, yamlKeys(f.Type.Elem(), key+"[].")...)
		}
	}
	return out
}

// defaultValues are the defaults as adsync config show prints them (the
// pipelines' filled in, lists joined with ", "), by key, with one item of
// each list to show an item's defaults; empty values are left out.
func defaultValues(t *testing.T) map[string]string {
	t.Helper()
	c := Default()
	c.Audiences = []Audience{{}}
	c.Insights.KeywordSets = []KeywordSet{{}}
	b, err := yaml.Marshal(c.Effective())
	require.NoError(t, err)
	f, err := parser.ParseBytes(b, 0)
	require.NoError(t, err)
	out := map[string]string{}
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		switch n := n.(type) {
		case *ast.MappingNode:
			for _, v := range n.Values {
				walk(v)
			}
		case *ast.MappingValueNode:
			walk(n.Value)
		case *ast.SequenceNode:
			var vals []string
			for _, item := range n.Values {
				if s, ok := item.(ast.ScalarNode); ok {
					vals = append(vals, fmt.Sprint(s.GetValue()))
				} else {
					walk(item)
				}
			}
			if len(vals) > 0 {
				out[docKey(n)] = strings.Join(vals, ", ")
			}
		case ast.ScalarNode:
			if v := fmt.Sprint(n.GetValue()); v != "" {
				out[docKey(n)] = v
			}
		}
	}
	for _, d := range f.Docs {
		walk(d.Body)
	}
	require.Contains(t, out, "audiences[].mode", "the walk reaches the defaults of list items")
	return out
}

// docKey is a node's key path as the page writes it: audiences[0].mode is
// audiences[].mode.
func docKey(n ast.Node) string {
	return strings.ReplaceAll(keyPath(n), "[0]", "[]")
}

// sameDefault says whether the page's default cell shows value: the same
// text in backquotes, or the same duration written another way (1h for
// 1h0m0s).
func sameDefault(cell, value string) bool {
	shown := strings.Trim(cell, "`")
	if shown == value {
		return true
	}
	a, errA := time.ParseDuration(shown)
	b, errB := time.ParseDuration(value)
	return errA == nil && errB == nil && a == b
}
