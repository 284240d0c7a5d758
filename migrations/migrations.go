package migrations

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

//go:embed sql/*.sql
var sqlFiles embed.FS

// lockKey is the advisory lock every migrating process takes ("adsync" in ASCII).
const lockKey int64 = 0x616473796e63

// Migration is one of the app's embedded SQL files.
type Migration struct {
	Version  int
	Name     string
	SQL      string
	Checksum string
}

// Version is one line of `adsync migrate --status`.
type Version struct {
	Component string // "river" or "app"
	Version   int
	Name      string
	Applied   bool
	AppliedAt time.Time // zero when unknown or pending
}

// Result says what one Migrate call applied.
type Result struct {
	River []int
	App   []int
}

// AppMigrations returns the embedded migrations in version order.
func AppMigrations() ([]Migration, error) {
	entries, err := fs.ReadDir(sqlFiles, "sql")
	if err != nil {
		return nil, err
	}
	var out []Migration
	seen := map[int]string{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, rest, ok := strings.Cut(strings.TrimSuffix(name, ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration file %s: name must be NNNN_description.sql", name)
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("migration files %s and %s share version %d", prev, name, v)
		}
		seen[v] = name
		body, err := fs.ReadFile(sqlFiles, path.Join("sql", name))
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(body)
		out = append(out, Migration{Version: v, Name: rest, SQL: string(body), Checksum: hex.EncodeToString(sum[:])})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// Migrate applies every pending River and app migration. It is idempotent
// and safe to run from several processes at once. The pool needs at least
// two connections (one holds the lock).
func Migrate(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger) (Result, error) {
	var res Result
	err := withLock(ctx, pool, func() error {
		migrator, err := riverMigrator(pool, logger)
		if err != nil {
			return err
		}
		// Migrate, not MigrateTx: MigrateTx fails on an empty database.
		rr, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
		if err != nil {
			return fmt.Errorf("river migrations: %w", err)
		}
		for _, v := range rr.Versions {
			res.River = append(res.River, v.Version)
		}
		res.App, err = migrateApp(ctx, pool)
		return err
	})
	return res, err
}

// Status lists applied and pending versions of River and the app.
func Status(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger) ([]Version, error) {
	var out []Version
	migrator, err := riverMigrator(pool, logger)
	if err != nil {
		return nil, err
	}
	existing, err := migrator.ExistingVersions(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading river migration state: %w", err)
	}
	done := map[int]bool{}
	for _, m := range existing {
		done[m.Version] = true
	}
	for _, m := range migrator.AllVersions() {
		out = append(out, Version{Component: "river", Version: m.Version, Name: m.Name, Applied: done[m.Version]})
	}
	applied, err := appliedApp(ctx, pool)
	if err != nil {
		return nil, err
	}
	all, err := AppMigrations()
	if err != nil {
		return nil, err
	}
	for _, m := range all {
		a, ok := applied[m.Version]
		out = append(out, Version{Component: "app", Version: m.Version, Name: m.Name, Applied: ok, AppliedAt: a.at})
	}
	return out, nil
}

// Pending counts versions not yet applied.
func Pending(vs []Version) int {
	n := 0
	for _, v := range vs {
		if !v.Applied {
			n++
		}
	}
	return n
}

// PendingNames names the versions not yet applied, in order, as
// "component version name" (app 3 api_user_tokens): what a person checks
// against `adsync migrate --status`.
func PendingNames(vs []Version) []string {
	var out []string
	for _, v := range vs {
		if !v.Applied {
			out = append(out, fmt.Sprintf("%s %d %s", v.Component, v.Version, v.Name))
		}
	}
	return out
}

func riverMigrator(pool *pgxpool.Pool, logger *slog.Logger) (*rivermigrate.Migrator[pgx.Tx], error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: logger})
}

// withLock runs fn while holding the migration advisory lock on a dedicated
// connection.
func withLock(ctx context.Context, pool *pgxpool.Pool, fn func() error) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquiring a connection for the migration lock: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", lockKey); err != nil {
		return fmt.Errorf("taking the migration lock: %w", err)
	}
	defer func() {
		// Unlock even if ctx was cancelled; on failure the session ends with
		// the connection and releases the lock.
		uctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, "SELECT pg_advisory_unlock($1)", lockKey); err != nil {
			conn.Conn().Close(uctx) //nolint:errcheck // closing drops the lock
		}
	}()
	return fn()
}

const versionTable = `CREATE TABLE IF NOT EXISTS adsync_schema_migrations (
    version    integer     PRIMARY KEY,
    name       text        NOT NULL,
    checksum   text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)`

type appliedRow struct {
	name, checksum string
	at             time.Time
}

func appliedApp(ctx context.Context, pool *pgxpool.Pool) (map[int]appliedRow, error) {
	out := map[int]appliedRow{}
	var exists bool
	if err := pool.QueryRow(ctx, "SELECT to_regclass('adsync_schema_migrations') IS NOT NULL").Scan(&exists); err != nil {
		return nil, fmt.Errorf("reading app migration state: %w", err)
	}
	if !exists {
		return out, nil
	}
	rows, err := pool.Query(ctx, "SELECT version, name, checksum, applied_at FROM adsync_schema_migrations")
	if err != nil {
		return nil, fmt.Errorf("reading app migration state: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var v int
		var r appliedRow
		if err := rows.Scan(&v, &r.name, &r.checksum, &r.at); err != nil {
			return nil, err
		}
		out[v] = r
	}
	return out, rows.Err()
}

// ErrChangedMigration means an applied migration's file was edited.
var ErrChangedMigration = errors.New("applied migration was changed")

func migrateApp(ctx context.Context, pool *pgxpool.Pool) ([]int, error) {
	if _, err := pool.Exec(ctx, versionTable); err != nil {
		return nil, fmt.Errorf("creating the migration version table: %w", err)
	}
	all, err := AppMigrations()
	if err != nil {
		return nil, err
	}
	applied, err := appliedApp(ctx, pool)
	if err != nil {
		return nil, err
	}
	var done []int
	for _, m := range all {
		if a, ok := applied[m.Version]; ok {
			if a.checksum != m.Checksum {
				return done, fmt.Errorf("migration %04d_%s: %w (the database has checksum %.12s, the file %.12s); add a new migration instead", m.Version, m.Name, ErrChangedMigration, a.checksum, m.Checksum)
			}
			continue
		}
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO adsync_schema_migrations (version, name, checksum) VALUES ($1, $2, $3)", m.Version, m.Name, m.Checksum)
			return err
		})
		if err != nil {
			return done, fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
		}
		done = append(done, m.Version)
	}
	return done, nil
}
