package export

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Summary is what an export run says to people: rows and files per table,
// the run, its partition and its manifest. The export job records it as
// its output.
type Summary struct {
	RunID     int64          `json:"run_id"`
	Partition string         `json:"partition"`
	Manifest  string         `json:"manifest"`
	Tables    []TableSummary `json:"tables"`
}

// TableSummary is one table's part of a Summary.
type TableSummary struct {
	Name  string `json:"name"`
	Rows  int64  `json:"rows"`
	Files int    `json:"files"`
}

// Summary is the run's Summary.
func (r *Result) Summary() Summary {
	s := Summary{RunID: r.RunID, Partition: r.Partition, Manifest: r.Manifest, Tables: make([]TableSummary, len(r.Tables))}
	for i, t := range r.Tables {
		s.Tables[i] = TableSummary{Name: t.Name, Rows: t.Rows, Files: len(t.Files)}
	}
	return s
}

// WriteText writes the summary as a table with a line of totals.
func (s Summary) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TABLE\tROWS\tFILES")
	var rows int64
	for _, t := range s.Tables {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", t.Name, t.Rows, t.Files)
		rows += t.Rows
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "export run %d: %d rows (%s), manifest %s\n", s.RunID, rows, s.Partition, s.Manifest)
	return nil
}
