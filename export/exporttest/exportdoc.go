package exporttest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/adsync/adsync/fixtures/handbook"
)

// ExportDoc is the page of the handbook that shows the latest-version query
// and the table of keys.
const ExportDoc = "docs/export.md"

// DocQuery is ExportDoc's latest-version query and its table of keys, so
// tests run the query exactly as a reader copies it.
type DocQuery struct {
	// Template is the page's query for its example table.
	Template string
	// Example is the table the template names, ExampleKey its key list.
	Example, ExampleKey string
	// Keys is the page's key of every table, as written ("account_id, id").
	Keys map[string]string
	// Refresh is the page's "refreshed" column of every table.
	Refresh map[string]string
}

var (
	queryBlock = regexp.MustCompile("(?s)<!-- latest-version query: ([a-z_0-9]+) -->\\s*```sql\\n(.*?)```")
	keyRow     = regexp.MustCompile("(?m)^\\| `([a-z_0-9]+)` \\| ([a-z_0-9, ]+) \\|( [^|\\n]+ \\|)?$")
	partition  = regexp.MustCompile(`PARTITION BY ([a-z_0-9, ]+)\)`)
)

// ParseExportDoc reads the query and the keys from ExportDoc.
func ParseExportDoc() (DocQuery, error) { return ParseDoc(ExportDoc) }

// ParseDoc reads the query and the keys from a page of the handbook (its
// path from the repository's root), as ParseExportDoc does from ExportDoc.
func ParseDoc(path string) (DocQuery, error) {
	var q DocQuery
	doc, err := handbook.Read(path)
	if err != nil {
		return q, err
	}
	m := queryBlock.FindStringSubmatch(doc)
	if m == nil {
		return q, fmt.Errorf("%s: no latest-version query block", path)
	}
	q.Example, q.Template = m[1], strings.TrimSpace(m[2])
	pm := partition.FindStringSubmatch(q.Template)
	if pm == nil {
		return q, fmt.Errorf("%s: the latest-version query has no PARTITION BY", path)
	}
	q.ExampleKey = pm[1]
	q.Keys, q.Refresh = map[string]string{}, map[string]string{}
	for _, r := range keyRow.FindAllStringSubmatch(doc, -1) {
		q.Keys[r[1]] = r[2]
		q.Refresh[r[1]] = strings.TrimSuffix(strings.TrimSpace(r[3]), " |")
	}
	return q, nil
}

// For is the page's query for table, reading the folder root instead of
// the page's ./out.
func (q DocQuery) For(table, root string) (string, error) {
	key, ok := q.Keys[table]
	if !ok {
		return "", fmt.Errorf("%s: no key for table %s", ExportDoc, table)
	}
	s := strings.Replace(q.Template, "'out/"+q.Example+"/", "'"+strings.ReplaceAll(root, "'", "''")+"/"+table+"/", 1)
	s = strings.Replace(s, "PARTITION BY "+q.ExampleKey+")", "PARTITION BY "+key+")", 1)
	return strings.TrimSuffix(s, ";"), nil
}
