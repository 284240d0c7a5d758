package adsynccmd

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/adsync/adsync/export"
	"github.com/spf13/cobra"
)

func (a *app) exportCommand() *cobra.Command {
	var out, tables, format string
	var full bool
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export tables to typed, partitioned Parquet (incremental unless --full)",
		Long: `Export adsync's tables to OUT/<table>/dt=YYYY-MM-DD/part-<run>-<n>.parquet (zstd,
bounded row groups), with a manifest per run in OUT/_manifests/. By default only rows
changed since the table's last successful export are written; --full writes everything.
Files appear only when every file of the run is complete; an interrupted export is undone
by the next one, which exports the same rows again.

OUT is a local folder or an S3-compatible prefix, s3://BUCKET/PREFIX, with credentials
from the standard AWS environment and config chain (AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY, AWS_PROFILE, ~/.aws) and, for stores other than AWS, query
parameters such as ?endpoint=http://host:port&use_path_style=true&region=us-east-1
(or AWS_ENDPOINT_URL). Either way OUT must be new, empty, or an output this database
exported to before.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("out") && strings.TrimSpace(out) == "" {
				return usageError("export: --out must not be empty (the folder to export into)")
			}
			if out == "" {
				out = a.cfg.Export.Out
			}
			if _, err := export.ParseOutput(out); err != nil {
				return usageError("%v", err)
			}
			var names []string
			if tables != "" {
				names = strings.Split(tables, ",")
			}
			if _, err := export.Select(names); err != nil {
				return usageError("--tables: %v", err)
			}
			ctx := cmd.Context()
			pool, err := a.connect(ctx)
			if err != nil {
				return err
			}
			opts := a.cfg.Export.Options()
			opts.Out, opts.Tables, opts.Full = out, names, full
			if format != "" {
				opts.Format = format
			}
			res, err := export.Run(ctx, pool, opts)
			if err != nil {
				return err
			}
			return printExport(a, res)
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "output folder or s3://BUCKET/PREFIX (default: export.out, ./out)")
	f.StringVar(&tables, "tables", "", "comma-separated tables (default: all): "+strings.Join(tableNames(), ", "))
	f.BoolVar(&full, "full", false, "write every row, not only those changed since the last export")
	f.StringVar(&format, "format", "", "parquet (files and manifests) or iceberg (tables in the Iceberg catalog in adsync's Postgres) (default: export.format, parquet)")
	return cmd
}

func tableNames() []string {
	var out []string
	for _, t := range export.Tables() {
		out = append(out, t.Name)
	}
	return out
}

func printExport(a *app, res *export.Result) error {
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TABLE\tROWS\tFILES")
	var rows int64
	for _, t := range res.Tables {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", t.Name, t.Rows, len(t.Files))
		rows += t.Rows
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "export run %d: %d rows (%s), manifest %s\n", res.RunID, rows, res.Partition, res.Manifest)
	return nil
}
