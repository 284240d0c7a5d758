package icebirdtables

import (
	"github.com/adsync/adsync/export"
	"github.com/adsync/adsync/export/exporttest"
)

// Of is tables as exporttest's Iceberg reader compares them.
func Of(tables ...export.Table) []exporttest.IcebergTable {
	out := make([]exporttest.IcebergTable, len(tables))
	for i, tb := range tables {
		out[i] = exporttest.IcebergTable{Name: tb.Name, From: tb.From, Run: export.RunColumn}
		for _, c := range tb.Columns {
			out[i].Columns = append(out[i].Columns, exporttest.IcebergColumn{Name: c.Name, SQL: c.SQL, Kind: c.Kind.String()})
		}
	}
	return out
}
