package webui

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"riverqueue.com/riverui"
)

// RiverUI starts River's UI (its assets embedded in the riverui module)
// on client, mounted at RiverPrefix; it stops when ctx ends.
func RiverUI(ctx context.Context, client *river.Client[pgx.Tx], logger *slog.Logger) (http.Handler, error) {
	h, err := riverui.NewHandler(&riverui.HandlerOpts{
		Endpoints: riverui.NewEndpoints(client, nil),
		Logger:    logger,
		Prefix:    RiverPrefix,
	})
	if err != nil {
		return nil, fmt.Errorf("river ui: %w", err)
	}
	if err := h.Start(ctx); err != nil {
		return nil, fmt.Errorf("river ui: starting: %w", err)
	}
	return h, nil
}
