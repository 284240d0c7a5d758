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

// ParseReadme reads the query and the keys from the repository's README,
// and the report relations' keys from docs/reports.md.
func ParseReadme() (ReadmeQuery, error) {
	var q ReadmeQuery
	b, err := os.ReadFile(filepath.Join(testdata(), "..", "..", "README.md"))
	if err != nil {
		return q, err
	}
	m := queryBlock.FindSubmatch(b)
	if m == nil {
		return q, fmt.Errorf("README: no latest-version query block")
	}
	q.Example, q.Template = string(m[1]), strings.TrimSpace(string(m[2]))
	pm := partition.FindStringSubmatch(q.Template)
	if pm == nil {
		return q, fmt.Errorf("README: the latest-version query has no PARTITION BY")
	}
	q.ExampleKey = pm[1]
	q.Keys, q.Refresh = map[string]string{}, map[string]string{}
	q.addKeys(b)
	// The report relations' keys are in their own reference page.
	docs, err := os.ReadFile(filepath.Join(testdata(), "..", "..", "docs", "reports.md"))
	if err != nil {
		return q, err
	}
	q.addKeys(docs)
	return q, nil
}

// addKeys reads the key table rows of a Markdown page.
func (q ReadmeQuery) addKeys(page []byte) {
	for _, r := range keyRow.FindAllSubmatch(page, -1) {
		q.Keys[string(r[1])] = string(r[2])
		q.Refresh[string(r[1])] = strings.TrimSuffix(strings.TrimSpace(string(r[3])), " |")
	}
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
