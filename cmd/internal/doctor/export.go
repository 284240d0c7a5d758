package doctor

import (
	"context"
	"errors"
	"fmt"

	"github.com/adsync/adsync/export"
	"github.com/jackc/pgx/v5/pgxpool"
)

// checkExportFolder applies the export output's rules (export.CheckOutput)
// to export.out.
func (d doctor) checkExportFolder(ctx context.Context, pool *pgxpool.Pool) check {
	configured := d.Config.Export.Out
	out := configured
	if name := export.OutputName(out); export.IsObjectStore(out) {
		out = name
	} else if name != out {
		out = fmt.Sprintf("%s (%s)", out, name)
	}
	c := check{name: "export"}
	state, err := export.CheckOutput(ctx, pool, configured)
	var oe *export.OwnershipError
	var refused *export.EndpointRefusedError
	switch {
	case errors.As(err, &refused):
		c.status, c.found = statusFail, err.Error()
		c.todo = "start the S3 server at " + refused.Endpoint + ", or correct the endpoint in " + d.from("export.out")
		return c
	case errors.As(err, &oe):
		c.status, c.found = statusFail, "export would refuse "+out+": "+oe.Reason
		c.todo = "point " + d.from("export.out") + " at a new or empty folder or prefix (adsync marks it and owns it from then on)"
		return c
	case err != nil:
		c.status, c.found = statusFail, err.Error()
		c.todo = "make it writable, or point " + d.from("export.out") + " elsewhere"
		return c
	}
	c.status = statusOK
	switch state {
	case export.FolderMissing:
		c.found = out + " does not exist yet; export will create it (its parent is writable)"
	case export.FolderEmpty:
		c.found = out + " is empty and writable; the first export marks it as adsync's"
	case export.FolderEarlier:
		c.found = out + " holds an earlier adsync export and is writable; the next export adopts it"
	default:
		c.found = out + " is adsync's export output for this database and is writable"
		if pool == nil {
			c.found = out + " has adsync's marker and is writable (which database owns it is not checked: no database)"
		}
	}
	return c
}
