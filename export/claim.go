package export

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Every output (a folder or an object-store prefix) carries a marker at its
// root naming the database that owns it.
const (
	markerName   = "_adsync_export.json"
	markerFormat = "adsync-export"
)

// marker is the content of an export folder's marker file.
type marker struct {
	Format     string    `json:"format"`
	Version    int       `json:"version"`
	OutputID   string    `json:"output_id"`
	DatabaseID string    `json:"database_id"`
	Database   string    `json:"database"` // for people: name and host, never a credential
	CreatedAt  time.Time `json:"created_at"`
	// Adopted is set when the folder held an earlier adsync's export.
	Adopted bool `json:"adopted,omitempty"`
}

// OwnershipError is an output adsync refuses to write into.
type OwnershipError struct {
	Folder string
	Reason string
}

// Permanent tells api.Explain that retrying cannot help: the folder stays
// what it is until someone changes it.
func (e *OwnershipError) Permanent() bool { return true }

func (e *OwnershipError) Error() string {
	return fmt.Sprintf("export: refusing to write into %s: %s", e.Folder, e.Reason)
}

// database is this database's identity as a marker records it.
type database struct {
	id, desc string
}

func thisDatabase(ctx context.Context, pool *pgxpool.Pool) (database, error) {
	var d database
	var name string
	if err := pool.QueryRow(ctx, `SELECT database_id::text, current_database() FROM adsync_database`).Scan(&d.id, &name); err != nil {
		return d, fmt.Errorf("export: reading this database's id: %w", err)
	}
	cc := pool.Config().ConnConfig
	d.desc = fmt.Sprintf("%q on %s", name, cc.Host)
	if !strings.HasPrefix(cc.Host, "/") {
		d.desc = fmt.Sprintf("%q on %s:%d", name, cc.Host, cc.Port)
	}
	return d, nil
}

// markerStore is an output's marker, wherever the output lives.
type markerStore interface {
	// where names the output for people.
	where() string
	// markerPath names the marker for people.
	markerPath() string
	// readMarker returns the marker's bytes, or an error matching
	// fs.ErrNotExist when there is none.
	readMarker(ctx context.Context) ([]byte, error)
	// claimable says whether an output without a marker may be claimed: it
	// is empty, or it holds an earlier adsync's export (adopt). Anything
	// else is an *OwnershipError.
	claimable(ctx context.Context) (adopt bool, err error)
	// createMarker writes the marker b unless one exists already (then that
	// one stands and no error is returned).
	createMarker(ctx context.Context, b []byte, m marker) error
}

// claim returns the marker of the output s, creating it when the output may
// be claimed, and records the output in export_outputs. An output another
// database owns is refused with an *OwnershipError naming both databases.
func claim(ctx context.Context, pool *pgxpool.Pool, s markerStore) (marker, error) {
	db, err := thisDatabase(ctx, pool)
	if err != nil {
		return marker{}, err
	}
	for attempt := 0; ; attempt++ {
		b, err := s.readMarker(ctx)
		switch {
		case err == nil:
			m, err := parseMarker(b, s.where(), s.markerPath())
			if err != nil {
				return m, err
			}
			if err := ownedBy(m, db, s.where()); err != nil {
				return m, err
			}
			if _, err := pool.Exec(ctx, `INSERT INTO export_outputs (output_id, location, adopted) VALUES ($1, $2, $3)
				ON CONFLICT (output_id) DO UPDATE SET location = EXCLUDED.location`, m.OutputID, s.where(), m.Adopted); err != nil {
				return m, fmt.Errorf("export: recording output %s: %w", s.where(), err)
			}
			return m, nil
		case !errors.Is(err, fs.ErrNotExist):
			return marker{}, fmt.Errorf("export: reading the marker of %s: %w", s.where(), err)
		case attempt > 0:
			return marker{}, fmt.Errorf("export: output %s: its marker vanished while claiming it", s.where())
		}
		adopt, err := s.claimable(ctx)
		if err != nil {
			return marker{}, err
		}
		m := marker{Format: markerFormat, Version: 1, OutputID: newUUID(), DatabaseID: db.id, Database: db.desc,
			CreatedAt: time.Now().UTC().Truncate(time.Second), Adopted: adopt}
		b, _ = json.MarshalIndent(m, "", "  ")
		if err := s.createMarker(ctx, append(b, '\n'), m); err != nil {
			return marker{}, err
		}
		// Read it back: a process claiming the output at the same time may
		// have won, and then its marker decides.
	}
}

// ownedBy refuses an output whose marker names another database.
func ownedBy(m marker, db database, where string) error {
	if m.DatabaseID == db.id {
		return nil
	}
	return &OwnershipError{Folder: where, Reason: fmt.Sprintf(
		"its marker %s says database %s (%s) owns it, and this is database %s (%s); export each database into its own output (or move %s away if its files are no longer needed)",
		markerName, m.DatabaseID, m.Database, db.id, db.desc, where)}
}

// parseMarker reads a marker's bytes; path names it in errors.
func parseMarker(b []byte, where, path string) (marker, error) {
	var m marker
	if err := json.Unmarshal(b, &m); err != nil || m.Format != markerFormat || m.OutputID == "" || m.DatabaseID == "" {
		return m, &OwnershipError{Folder: where, Reason: fmt.Sprintf("%s is not an adsync export marker (move it away, or choose another output)", path)}
	}
	return m, nil
}

// othersShown lists up to three names for an error message.
func othersShown(names []string) string {
	if len(names) > 3 {
		names = append(names[:3:3], "...")
	}
	return strings.Join(names, ", ")
}
