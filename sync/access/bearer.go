package access

import (
	"context"
	"fmt"
	"io"

	"github.com/adsync/adsync/sync/api"
)

// Bearer obtains the application-only bearer token through c (the cached
// one while the service accepts it) and says on out, masked, that it is
// ready, whether a cached one was replaced and, when cached is false (no
// database), that it is not kept.
func Bearer(ctx context.Context, c *api.Client, cached bool, out io.Writer) error {
	tok, replaced, err := api.CheckBearerToken(ctx, c)
	if err != nil {
		return err
	}
	if replaced {
		fmt.Fprintln(out, "the cached bearer token was no longer accepted by the service; obtained a new one")
	}
	fmt.Fprintf(out, "bearer token ready (%s)\n", api.MaskToken(tok))
	if !cached {
		fmt.Fprintln(out, "not cached: no database configured")
	}
	return nil
}

// RevokeBearer invalidates the application-only bearer token with the
// service and drops it from the cache, saying on out, masked, which token
// it was and whether the service already held it invalid.
func RevokeBearer(ctx context.Context, c *api.Client, out io.Writer) error {
	tok, already, err := api.RevokeBearerToken(ctx, c)
	if err != nil {
		return err
	}
	if already {
		fmt.Fprintf(out, "bearer token (%s) was already invalid; dropped from the cache\n", api.MaskToken(tok))
		return nil
	}
	fmt.Fprintf(out, "bearer token (%s) invalidated\n", api.MaskToken(tok))
	return nil
}
