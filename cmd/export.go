package adsynccmd

import (
	"strings"

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
			o, err := a.exportOptions(cmd.Flags().Changed("out"), out, tables, format, full)
			if err != nil {
				return err
			}
			pool, err := a.connect(cmd.Context())
			if err != nil {
				return err
			}
			res, err := export.Run(cmd.Context(), pool, o)
			if err != nil {
				return err
			}
			return res.Summary().WriteText(a.stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "output folder or s3://BUCKET/PREFIX (default: export.out, ./out)")
	f.StringVar(&tables, "tables", "", "comma-separated tables (default: all): "+strings.Join(tableNames(), ", "))
	f.BoolVar(&full, "full", false, "write every row, not only those changed since the last export")
	f.StringVar(&format, "format", "", "parquet (files and manifests) or iceberg (tables in the Iceberg catalog in adsync's Postgres) (default: export.format, parquet)")
	return cmd
}

// exportOptions checks export's flags and returns the export they ask
// for: into out (export.out when not given; outGiven says --out was),
// of the comma-separated tables (all when empty), in format (export.format
// when empty).
func (a *app) exportOptions(outGiven bool, out, tables, format string, full bool) (export.Options, error) {
	if outGiven && strings.TrimSpace(out) == "" {
		return export.Options{}, usageError("export: --out must not be empty (the folder to export into)")
	}
	if out == "" {
		out = a.cfg.Export.Out
	}
	if _, err := export.ParseOutput(out); err != nil {
		return export.Options{}, usageError("%v", err)
	}
	var names []string
	if tables != "" {
		names = strings.Split(tables, ",")
	}
	if _, err := export.Select(names); err != nil {
		return export.Options{}, usageError("--tables: %v", err)
	}
	opts := a.cfg.Export.Options()
	opts.Out, opts.Tables, opts.Full = out, names, full
	if format != "" {
		opts.Format = format
	}
	return opts, nil
}

// tableNames are the exported tables' names, for --tables' help.
func tableNames() []string {
	var out []string
	for _, t := range export.Tables() {
		out = append(out, t.Name)
	}
	return out
}
