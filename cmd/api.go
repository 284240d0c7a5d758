package adsynccmd

import (
	"github.com/adsync/adsync/sync/api"
	"github.com/spf13/cobra"
)

func (a *app) apiCommand() *cobra.Command {
	var rc api.RawCall
	cmd := &cobra.Command{
		Use:   "api [--bearer] [--sandbox] METHOD PATH [-d k=v]... [--json BODY]",
		Short: "Make a signed raw call to the service (like twurl) and print the body",
		Long: `Make one signed call and print the response body (indented when it is JSON).

PATH picks the base: /2/..., /oauth... and /1.1/... go to the API base, anything else
(for example /12/accounts) to the advertising base, or the sandbox base with --sandbox.
-d k=v (repeatable) adds query parameters to GET and DELETE, and signed form
parameters to POST and PUT. --json sends a JSON body (not signed; -d then adds query
parameters). Calls are signed with the user access token (ADSYNC_ACCESS_TOKEN, or the
one stored by adsync auth login), or sent with the app-only bearer token with --bearer.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			rc.Method, rc.Path = args[0], args[1]
			req, err := rc.Request()
			if err != nil {
				return usageError("api: %w", err)
			}
			c, err := a.clientMaybePooled(cmd.Context())
			if err != nil {
				return err
			}
			return api.DoRaw(cmd.Context(), c, req, a.stdout)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&rc.Bearer, "bearer", false, "authenticate with the app-only bearer token")
	f.BoolVar(&rc.Sandbox, "sandbox", false, "send advertising paths to the sandbox base")
	f.StringArrayVarP(&rc.Data, "data", "d", nil, "parameter k=v (repeatable)")
	f.StringVar(&rc.JSON, "json", "", "JSON request body")
	return cmd
}
