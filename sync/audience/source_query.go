package audience

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// queryFetchRows is how many rows one FETCH of the cursor brings: a few
// megabytes of identifiers at most.
const queryFetchRows = 10000

// queryCursor is the name of the cursor a query is read through.
const queryCursor = "adsync_audience_users"

// DefaultQueryTimeout bounds the reading of a query source's result when
// nothing else is configured (audience.query_timeout): a warehouse query
// of a few minutes fits many times over, and a scheduled run (one job,
// bounded by worker.job_timeout, 30 minutes by default) still has the time
// to plan what it read.
const DefaultQueryTimeout = 15 * time.Minute

// QueryTimeoutError is a query source whose result was not read within its
// time limit: Postgres cut it (statement_timeout), its read-only
// transaction was rolled back, and nothing of it was recorded or sent. Its
// message names the setting that raises the limit; no retry can help, so
// it is permanent.
type QueryTimeoutError struct {
	// Query is the start of the query's text, for people.
	Query string
	Limit time.Duration
}

func (e *QueryTimeoutError) Error() string {
	return fmt.Sprintf("query %q ran longer than its time limit of %s and was cut; nothing was recorded or sent: "+
		"raise audience.query_timeout (env ADSYNC_AUDIENCE_QUERY_TIMEOUT) or make the query faster", e.Query, e.Limit)
}

// Permanent reports that running the query again would time out again.
func (e *QueryTimeoutError) Permanent() bool { return true }

// querySource is a SQL query whose result columns are named like a CSV
// header. It runs in a read-only transaction through a cursor, on the
// database of its source URL, or adsync's own: it is first checked to only
// read (see readOnlyQuery), described to map its columns, and only then
// fetched, a batch of rows at a time.
type querySource struct {
	sql  string
	url  string        // "": adsync's own database
	pool *pgxpool.Pool // adsync's own database
	opts hashing.ReaderOptions
	// server names the database of url for messages and records: host
	// and port (or socket) and database, never the user or password.
	server string
	// timeout bounds the reading of the result; deadline is when the
	// reading last begun must end.
	timeout  time.Duration
	deadline time.Time
}

func newQuerySource(pool *pgxpool.Pool, o *PlanOptions) (*querySource, error) {
	s := &querySource{sql: strings.TrimRight(strings.TrimSpace(o.Query), "; \t\r\n"), url: o.SourceURL, pool: pool, opts: o.Reader,
		timeout: cmp.Or(o.QueryTimeout, DefaultQueryTimeout)}
	if err := readOnlyQuery(s.sql); err != nil {
		return nil, err
	}
	if s.url != "" {
		cfg, err := pgconn.ParseConfig(s.url)
		if err != nil {
			// pgx leaves passwords out of its parse errors; Redact is a
			// second guard.
			return nil, hashing.InputErrorf("source URL: %s", store.Redact(err.Error()))
		}
		s.server = store.ServerName(cfg.Host, cfg.Port) + "/" + cfg.Database
	} else if pool == nil {
		return nil, errors.New("query: no database to run it on")
	}
	return s, nil
}

func (s *querySource) name() string { return "query" }

func (s *querySource) recorded() string {
	if s.server == "" {
		return "query: " + s.sql
	}
	return "query on " + s.server + ": " + s.sql
}

// checksum is "": a query's result is identified by its users only.
func (s *querySource) checksum(context.Context) (string, error) { return "", nil }

// readOnlyQuery refuses, before anything runs, a statement that is not a
// query: only SELECT, WITH, VALUES and TABLE may be run. A WITH holding a
// data-modifying statement, SELECT INTO and functions that write are
// refused by Postgres itself (a cursor takes no data-modifying WITH, the
// transaction is read-only), before or as the query runs: nothing is
// written either way.
func readOnlyQuery(sql string) error {
	word := firstKeyword(sql)
	switch strings.ToUpper(word) {
	case "SELECT", "WITH", "VALUES", "TABLE":
		return nil
	case "":
		return hashing.InputErrorf("query is empty")
	}
	return hashing.InputErrorf("query: refused: it starts with %s, not SELECT, WITH, VALUES or TABLE: adsync runs only queries that read, in a read-only transaction; nothing was run", strings.ToUpper(word))
}

// firstKeyword returns the first word of sql after blanks, comments and
// opening parentheses.
func firstKeyword(sql string) string {
	for {
		sql = strings.TrimLeftFunc(sql, func(r rune) bool { return unicode.IsSpace(r) || r == '(' })
		switch {
		case strings.HasPrefix(sql, "--"):
			i := strings.IndexByte(sql, '\n')
			if i < 0 {
				return ""
			}
			sql = sql[i+1:]
		case strings.HasPrefix(sql, "/*"):
			sql = skipBlockComment(sql)
		default:
			end := strings.IndexFunc(sql, func(r rune) bool { return !unicode.IsLetter(r) && r != '_' })
			if end < 0 {
				return sql
			}
			if end == 0 && sql != "" {
				_, size := utf8.DecodeRuneInString(sql)
				return sql[:size]
			}
			return sql[:end]
		}
	}
}

// skipBlockComment returns what follows the (nested, as in Postgres)
// block comment sql starts with.
func skipBlockComment(sql string) string {
	depth := 0
	for i := 0; i < len(sql)-1; i++ {
		switch sql[i : i+2] {
		case "/*":
			depth++
			i++
		case "*/":
			depth--
			i++
			if depth == 0 {
				return sql[i+1:]
			}
		}
	}
	return ""
}

// queryConn is a read-only transaction on the query's database, with what
// releases it.
type queryConn struct {
	tx      pgx.Tx
	release func()
}

// begin opens a read-only transaction on the query's database, its
// statements bounded by the time left of s.timeout from now (see
// limitStatement).
func (s *querySource) begin(ctx context.Context) (*queryConn, error) {
	s.deadline = time.Now().Add(s.timeout)
	pool := s.pool
	closePool := func() {}
	if s.url != "" {
		p, err := store.Connect(ctx, s.url, store.ConnectOptions{MaxConns: 1})
		if err != nil {
			return nil, fmt.Errorf("source URL: %w", err)
		}
		pool, closePool = p, p.Close
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		closePool()
		return nil, fmt.Errorf("query: %w", err)
	}
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead})
	if err != nil {
		conn.Release()
		closePool()
		return nil, fmt.Errorf("query: %w", err)
	}
	qc := &queryConn{tx: tx, release: func() {
		_ = tx.Rollback(context.WithoutCancel(ctx))
		conn.Release()
		closePool()
	}}
	if err := s.limitStatement(ctx, tx.Conn().PgConn()); err != nil {
		qc.release()
		return nil, err
	}
	return qc, nil
}

// limitStatement sets the transaction's statement_timeout to the time left
// before s.deadline, so the query's statements together (its cursor's
// FETCHes) end by then: Postgres itself cuts one that runs on, whatever
// adsync does meanwhile. The setting is the transaction's (as SET LOCAL):
// the connection goes back to its pool as it came.
func (s *querySource) limitStatement(ctx context.Context, pg *pgconn.PgConn) error {
	left := time.Until(s.deadline)
	if left <= 0 {
		return s.timedOut()
	}
	ms := strconv.FormatInt(int64((left+time.Millisecond-1)/time.Millisecond), 10)
	if _, err := pg.ExecParams(ctx, `SELECT set_config('statement_timeout', $1, true)`, [][]byte{[]byte(ms)}, nil, nil, nil).Close(); err != nil {
		return s.queryError(err)
	}
	return nil
}

// timedOut is the *QueryTimeoutError of s.
func (s *querySource) timedOut() error {
	q := strings.Join(strings.Fields(s.sql), " ")
	if r := []rune(q); len(r) > 80 {
		q = string(r[:79]) + "…"
	}
	return &QueryTimeoutError{Query: q, Limit: s.timeout}
}

// declare describes the query, declares its cursor and maps its columns
// to identifier types, running nothing of the query yet: the columns' types in
// order ("" for an ignored column).
func (s *querySource) declare(ctx context.Context, tx pgx.Tx) ([]hashing.Type, error) {
	pg := tx.Conn().PgConn()
	// Parse and describe only: Postgres refuses several statements here.
	sd, err := pg.Prepare(ctx, "", s.sql, nil)
	if err != nil {
		return nil, fmt.Errorf("query: %w", s.queryError(err))
	}
	// A cursor takes a query only: it refuses a data-modifying WITH and
	// SELECT INTO. The extended protocol runs one statement: the query
	// cannot smuggle a second one after the cursor's.
	if _, err := pg.ExecParams(ctx, "DECLARE "+queryCursor+" NO SCROLL CURSOR FOR "+s.sql, nil, nil, nil, nil).Close(); err != nil {
		return nil, fmt.Errorf("query: %w", s.queryError(err))
	}
	names := make([]string, len(sd.Fields))
	oids := make([]uint32, len(sd.Fields))
	for i, f := range sd.Fields {
		names[i], oids[i] = f.Name, f.DataTypeOID
	}
	types, err := hashing.ColumnTypes(names, s.opts)
	if err != nil {
		return nil, &hashing.InputError{Err: fmt.Errorf("query: %w", err)}
	}
	if err := checkColumnTypes(ctx, tx, names, oids, types); err != nil {
		return nil, err
	}
	return types, nil
}

// Type OIDs a query's identifier columns may have besides strings.
const (
	oidInt8 = 20
	oidInt2 = 21
	oidInt4 = 23
	oidUUID = 2950
)

// checkColumnTypes refuses an identifier column that holds neither
// strings (any type of Postgres's string category: text, varchar, char,
// citext, ...; or an enum) nor integers nor UUIDs: its text would be no
// identifier (a float's exponent, a date).
func checkColumnTypes(ctx context.Context, tx pgx.Tx, names []string, oids []uint32, types []hashing.Type) error {
	rows, err := tx.Query(ctx, `SELECT oid::int8, format_type(oid, NULL), typcategory::text FROM pg_type WHERE oid = ANY($1::oid[])`, oids)
	if err != nil {
		return fmt.Errorf("query: column types: %w", err)
	}
	type pgType struct{ name, category string }
	byOID := map[uint32]pgType{}
	var oid int64
	var t pgType
	if _, err := pgx.ForEachRow(rows, []any{&oid, &t.name, &t.category}, func() error {
		byOID[uint32(oid)] = t
		return nil
	}); err != nil {
		return fmt.Errorf("query: column types: %w", err)
	}
	for i, typ := range types {
		if typ == "" {
			continue
		}
		pt := byOID[oids[i]]
		switch {
		case pt.category == "S" || pt.category == "E":
		case oids[i] == oidInt2 || oids[i] == oidInt4 || oids[i] == oidInt8 || oids[i] == oidUUID:
		default:
			return hashing.InputErrorf("query: column %q is %s: want a string, integer or uuid column (cast it: %s::text)", names[i], cmpOr(pt.name, fmt.Sprintf("type %d", oids[i])), pgx.Identifier{names[i]}.Sanitize())
		}
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// queryError says what Postgres refused of a query: the query itself (a
// syntax error, an unknown table or column, a write) is an input error
// that names Postgres's reason; a statement cancelled once s.deadline has
// passed is its time limit (a *QueryTimeoutError); anything else (a lost
// connection) is neither. It does not name the query: declare's errors are
// the source's own and say "query: "; a reading error (Next's) is named by
// whoever reads the rows, as a file's are, so that one layer names the
// source.
func (s *querySource) queryError(err error) error {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return err
	}
	reason := pgErr.Message + " (SQLSTATE " + pgErr.Code + ")"
	switch {
	case pgErr.Code == "57014" && !time.Now().Before(s.deadline):
		// query_canceled: statement_timeout fires at the deadline at the
		// earliest (limitStatement rounds up); a cancel before it is
		// someone else's.
		return s.timedOut()
	case pgErr.Code == "25006" || (pgErr.Code == "0A000" && strings.Contains(pgErr.Message, "data-modifying")) ||
		strings.Contains(pgErr.Message, "SELECT ... INTO"):
		return hashing.InputErrorf("refused: it writes: %s: adsync runs only queries that read, in a read-only transaction; nothing was written", reason)
	case strings.HasPrefix(pgErr.Code, "42") || strings.HasPrefix(pgErr.Code, "0A") || strings.HasPrefix(pgErr.Code, "22"):
		return hashing.InputErrorf("%s", reason)
	}
	return errors.New(reason)
}

func (s *querySource) check(ctx context.Context) error {
	qc, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer qc.release()
	_, err = s.declare(ctx, qc.tx)
	return err
}

func (s *querySource) open(ctx context.Context) (hashing.RecordReader, func() error, error) {
	qc, err := s.begin(ctx)
	if err != nil {
		return nil, nil, err
	}
	types, err := s.declare(ctx, qc.tx)
	if err != nil {
		qc.release()
		return nil, nil, err
	}
	r := &queryReader{src: s, types: types, rec: hashing.Record{Values: map[hashing.Type][]string{}}}
	r.start(ctx, qc.tx.Conn().PgConn())
	return r, func() error {
		r.stopFetching()
		qc.release()
		return nil
	}, nil
}

// queryReader reads a declared cursor's rows as records numbered from 1 in
// the result's order. A goroutine of its own fetches the next batch of
// rows while the rows of the last are hashed: Postgres works on the query
// meanwhile rather than between batches.
type queryReader struct {
	src     *querySource
	types   []hashing.Type
	batches chan queryBatch
	stop    chan struct{}
	stopped bool

	cur queryBatch // the batch being read
	pos int
	row int
	rec hashing.Record
}

// queryBatch is the rows of one FETCH: each row's values (views into one
// arena of the batch's own) and reason to be rejected, if any; or why the
// FETCH failed.
type queryBatch struct {
	vals    []string // row i's are vals[i*len(types):][:len(types)]
	reasons []string
	last    bool
	err     error
}

// start fetches batches on a goroutine until the cursor is done, a FETCH
// fails or stopFetching is called; the connection is the goroutine's until
// then.
func (r *queryReader) start(ctx context.Context, pg *pgconn.PgConn) {
	r.batches = make(chan queryBatch, 1)
	r.stop = make(chan struct{})
	go func() {
		defer close(r.batches)
		for {
			select {
			case <-r.stop:
				return
			default:
			}
			b := r.src.fetchBatch(ctx, pg, r.types)
			select {
			case r.batches <- b:
			case <-r.stop:
				return
			}
			if b.last || b.err != nil {
				return
			}
		}
	}()
}

// stopFetching ends the fetching goroutine and waits for it: the
// connection may then be released.
func (r *queryReader) stopFetching() {
	if r.stopped {
		return
	}
	r.stopped = true
	close(r.stop)
	for range r.batches {
	}
}

// RowNames names the result's rows: "row N".
func (r *queryReader) RowNames() *hashing.RowNames { return &hashing.RowNames{} }

// Next returns the next row; see hashing.RecordReader.
func (r *queryReader) Next() (hashing.Record, error) {
	for r.pos == len(r.cur.reasons) {
		if r.cur.last || r.stopped {
			return hashing.Record{}, io.EOF
		}
		b, ok := <-r.batches
		if !ok {
			return hashing.Record{}, io.EOF
		}
		if b.err != nil {
			return hashing.Record{}, b.err
		}
		r.cur, r.pos = b, 0
	}
	i := r.pos
	r.pos++
	r.row++
	if reason := r.cur.reasons[i]; reason != "" {
		return hashing.Record{}, &hashing.RowError{Line: r.row, Reason: reason}
	}
	for t, v := range r.rec.Values {
		r.rec.Values[t] = v[:0]
	}
	r.rec.Line = r.row
	row := r.cur.vals[i*len(r.types):]
	for c, t := range r.types {
		if v := row[c]; t != "" && v != "" {
			r.rec.Values[t] = append(r.rec.Values[t], v)
		}
	}
	return r.rec, nil
}

// fetchBatch fetches the next rows of the cursor, within the time left to
// the query, copying their values: the connection's buffer is reused for
// the next row.
func (s *querySource) fetchBatch(ctx context.Context, pg *pgconn.PgConn, types []hashing.Type) queryBatch {
	if err := s.limitStatement(ctx, pg); err != nil {
		return queryBatch{err: err}
	}
	rr := pg.ExecParams(ctx, fmt.Sprintf("FETCH FORWARD %d FROM %s", queryFetchRows, queryCursor), nil, nil, nil, nil)
	var b queryBatch
	arena := make([]byte, 0, 256<<10)
	for rr.NextRow() {
		b.vals = append(b.vals, make([]string, len(types))...)
		row := b.vals[len(b.vals)-len(types):]
		reason := ""
		for c, v := range rr.Values() {
			if types[c] == "" || v == nil {
				continue
			}
			if !utf8.Valid(v) {
				if reason == "" {
					reason = fmt.Sprintf("column %q: invalid UTF-8", rr.FieldDescriptions()[c].Name)
				}
				continue
			}
			// Values view the arena: a full arena is left to the rows
			// viewing it and a new one started, never moved.
			if len(arena)+len(v) > cap(arena) {
				arena = make([]byte, 0, max(256<<10, len(v)))
			}
			from := len(arena)
			arena = append(arena, v...)
			row[c] = unsafe.String(unsafe.SliceData(arena[from:]), len(v))
		}
		b.reasons = append(b.reasons, reason)
	}
	if _, err := rr.Close(); err != nil {
		return queryBatch{err: s.queryError(err)}
	}
	b.last = len(b.reasons) < queryFetchRows
	return b
}
