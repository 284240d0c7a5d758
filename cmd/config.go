package adsynccmd

import (
	"github.com/goccy/go-yaml"
	"github.com/spf13/cobra"
)

func (a *app) configCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Inspect the configuration"}
	cmd.AddCommand(&cobra.Command{
		Use:   "show",
		Short: "Print the effective configuration (flags > environment > file > defaults, the pipelines' defaults filled in), secrets masked",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out, err := yaml.MarshalWithOptions(a.cfg.Effective().Masked(), yaml.Indent(2))
			if err != nil {
				return err
			}
			_, err = a.stdout.Write(out)
			return err
		},
	})
	return cmd
}
