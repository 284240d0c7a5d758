package exporttest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// ReadmeQuery is the README's latest-version query and its table of keys,
// so tests run the query exactly as a reader copies it.
type ReadmeQuery struct {
	// Template is the README's query for its example table.
	Template string
	// Example is the table the template names, ExampleKey its key list.
	Example, ExampleKey string
	// Keys is the README's key of every table, as written ("account_id, id").
	Keys map[string]string
	// Refresh is the README's "refreshed" column of every table.
	Refresh map[string]string
}

var (
	queryBlock = regexp.MustCompile("(?s)<!-- latest-version query: ([a-z_0-9]+) -->\\s*```sql\\n(.*?)```")
	keyRow     = regexp.MustCompile("(?m)^\\| `([a-z_0-9]+)` \\| ([a-z_0-9, ]+) \\|( [^|\\n]+ \\|)?$")
	partition  = regexp.MustCompile(`PARTITION BY ([a-z_0-9, ]+)\)`)
)

// ParseReadme reads the query and the keys from the repository's README.
func ParseReadme() (ReadmeQuery, error) { return ParseDoc("README.md") }

// ParseDoc reads the query and the keys from a Markdown file of the
// repository (its path from the repository's root), as ParseReadme does
// from the README.
func ParseDoc(path string) (ReadmeQuery, error) {
	var q ReadmeQuery
	b, err := os.ReadFile(filepath.Join(testdata(), "..", "..", filepath.FromSlash(path)))
	if err != nil {
		return q, err
	}
	m := queryBlock.FindSubmatch(b)
	if m == nil {
		return q, fmt.Errorf("%s: no latest-version query block", path)
	}
	q.Example, q.Template = string(m[1]), strings.TrimSpace(string(m[2]))
	pm := partition.FindStringSubmatch(q.Template)
	if pm == nil {
		return q, fmt.Errorf("%s: the latest-version query has no PARTITION BY", path)
	}
	q.ExampleKey = pm[1]
	q.Keys, q.Refresh = map[string]string{}, map[string]string{}
	for _, r := range keyRow.FindAllSubmatch(b, -1) {
		q.Keys[string(r[1])] = string(r[2])
		q.Refresh[string(r[1])] = strings.TrimSuffix(strings.TrimSpace(string(r[3])), " |")
	}
	return q, nil
}

// For is the README's query for table, reading the folder root instead of
// the README's ./out.
func (q ReadmeQuery) For(table, root string) (string, error) {
	key, ok := q.Keys[table]
	if !ok {
		return "", fmt.Errorf("README: no key for table %s", table)
	}
	s := strings.Replace(q.Template, "'out/"+q.Example+"/", "'"+strings.ReplaceAll(root, "'", "''")+"/"+table+"/", 1)
	s = strings.Replace(s, "PARTITION BY "+q.ExampleKey+")", "PARTITION BY "+key+")", 1)
	return strings.TrimSuffix(s, ";"), nil
}
