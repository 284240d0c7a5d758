package adsynccmd

import (
	"github.com/adsync/adsync/sync/mcp"
	"github.com/spf13/cobra"
)

func (a *app) mcpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve a read-only MCP server on standard input and output, for desktop assistants",
		Long: `Serve adsync's Model Context Protocol server on standard input and output, for a
desktop assistant (Claude Desktop, VS Code, Cursor) configured with the command
"adsync mcp": its tools read the accounts, their performance (the report relations),
entities, pipeline runs, custom audiences and the metric catalogue. Every tool reads
in a READ ONLY transaction with a statement timeout and a row cap; none takes SQL.
Logs go to standard error, never to standard output. The worker serves the same
tools at /mcp on its HTTP address (ADSYNC_MCP_TOKEN off loopback). See docs/mcp.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pool, err := a.connect(cmd.Context())
			if err != nil {
				return err
			}
			return mcp.ServeStdio(cmd.Context(), pool, mcp.Options{Version: Version(), Now: a.clock}, a.stdin, a.stdout)
		},
	}
}
