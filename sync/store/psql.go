package store

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// ErrNoPSQL is PSQL finding no psql to run.
var ErrNoPSQL = errors.New("psql not found on PATH: install the PostgreSQL client (Debian and Ubuntu: apt-get install postgresql-client)")

// PSQLExitError is a psql session that ended with a non-zero exit status
// (psql printed why itself).
type PSQLExitError struct{ Code int }

func (e *PSQLExitError) Error() string { return fmt.Sprintf("psql exited with status %d", e.Code) }

// PSQLSession is one psql run: the database and what psql reads and
// writes.
type PSQLSession struct {
	// URL is the database as adsync connects to it (a URL or a keyword/value
	// connection string).
	URL string
	// Args are passed to psql after the connection (-c 'select 1', -f FILE).
	Args           []string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// LookPath finds psql (exec.LookPath when nil).
	LookPath func(string) (string, error)
}

// PSQL runs psql on s.URL and waits for it to end: a *PSQLExitError when it
// exits non-zero, ErrNoPSQL when there is none. The password never reaches
// psql's command line, which any user of the machine may read: it goes in
// PGPASSWORD, and the connection as a URL without it (or, for a
// keyword/value string, as PG* variables).
//
// psql is not tied to a context: Ctrl-C reaches it (and this process,
// which ignores it while psql runs) and cancels its query, as in any psql
// session, rather than ending the session.
func PSQL(s PSQLSession) error {
	look := s.LookPath
	if look == nil {
		look = exec.LookPath
	}
	bin, err := look("psql")
	if err != nil {
		return ErrNoPSQL
	}
	conn, env, err := psqlConnection(s.URL)
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, append(conn, s.Args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s.Stdin, s.Stdout, s.Stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return &PSQLExitError{Code: exit.ExitCode()}
	}
	if err != nil {
		return fmt.Errorf("running %s: %w", bin, err)
	}
	return nil
}

// pgxOnlyParams are URL parameters pgx and pgxpool read that libpq (psql)
// refuses as unknown.
var pgxOnlyParams = []string{"statement_cache_capacity", "description_cache_capacity", "default_query_exec_mode",
	"min_read_buffer_size"}

// psqlConnection is how psql reaches raw: arguments (a URL without its
// password) and environment variables (the password).
func psqlConnection(raw string) (args, env []string, err error) {
	if raw == "" {
		return nil, nil, errors.New("no database configured: set --database-url or ADSYNC_DATABASE_URL")
	}
	if !strings.HasPrefix(raw, "postgres://") && !strings.HasPrefix(raw, "postgresql://") {
		return keywordConnection(raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, nil, errors.New("invalid database URL (not shown: it may hold a password)")
	}
	if u.User != nil {
		if pw, has := u.User.Password(); has {
			env = append(env, "PGPASSWORD="+pw)
			u.User = url.User(u.User.Username())
		}
	}
	q := u.Query()
	if pw := q.Get("password"); pw != "" {
		env = append(env, "PGPASSWORD="+pw)
	}
	q.Del("password")
	for k := range q {
		if strings.HasPrefix(k, "pool_") || slices.Contains(pgxOnlyParams, k) {
			q.Del(k)
		}
	}
	u.RawQuery = q.Encode()
	return []string{"--dbname=" + u.String()}, env, nil
}

// keywordConnection passes a keyword/value connection string to psql as
// PG* variables, read by pgx's own parser: host, port, user, database,
// password, and no TLS when pgx would use none (else libpq's default,
// prefer).
func keywordConnection(raw string) (args, env []string, err error) {
	cfg, err := pgconn.ParseConfig(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("invalid database connection string: %s", redactParseError(err))
	}
	env = []string{"PGHOST=" + cfg.Host, "PGPORT=" + strconv.Itoa(int(cfg.Port)), "PGUSER=" + cfg.User, "PGDATABASE=" + cfg.Database}
	if cfg.Password != "" {
		env = append(env, "PGPASSWORD="+cfg.Password)
	}
	if cfg.TLSConfig == nil {
		env = append(env, "PGSSLMODE=disable")
	}
	return nil, env, nil
}
