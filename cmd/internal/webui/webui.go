package webui

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/adsync/adsync/sync/access"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed templates/*.html
var templateFS embed.FS

// templates are parsed on first use: every adsync command links this
// package, and only the worker serves pages.
var templates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"int":      formatInt,
		"time":     formatTime,
		"duration": runDuration,
		"counts":   countsSentence,
	}).ParseFS(templateFS, "templates/*.html"))
})

// RiverPrefix is where River's UI is mounted.
const RiverPrefix = "/riverui"

// Options configure a Server.
type Options struct {
	Pool *pgxpool.Pool
	// Limit is how many recent runs and failed jobs the page lists
	// (default 50).
	Limit int
	// Now is the clock (default time.Now): the chart ends on its day.
	Now func() time.Time
}

// Server serves the runs page at /, a run's page at /runs/{id} and River's
// UI under /riverui/ once SetRiverUI gave it.
type Server struct {
	opts  Options
	mux   *http.ServeMux
	river atomic.Pointer[http.Handler]
}

// New returns the pages' server.
func New(opts Options) *Server {
	if opts.Limit < 1 {
		opts.Limit = 50
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Server{opts: opts, mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /{$}", s.runsPage)
	s.mux.HandleFunc("GET /runs/{id}", s.runPage)
	s.mux.HandleFunc(RiverPrefix+"/", s.riverUI)
	return s
}

// SetRiverUI sets the handler of River's UI (RiverUI's).
func (s *Server) SetRiverUI(h http.Handler) { s.river.Store(&h) }

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func (s *Server) riverUI(w http.ResponseWriter, r *http.Request) {
	h := s.river.Load()
	if h == nil {
		http.Error(w, "River's UI starts with the workers; try again in a moment", http.StatusServiceUnavailable)
		return
	}
	(*h).ServeHTTP(w, r)
}

// runsPageData is what the runs page shows.
type runsPageData struct {
	Generated time.Time
	*store.Status
	FailedAccounts []store.UnitFailure
	Unreached      []string
	Charts         []series
}

func (s *Server) runsPage(w http.ResponseWriter, r *http.Request) {
	d, err := s.readRuns(r.Context())
	if err != nil {
		http.Error(w, "reading the runs: "+store.Redact(err.Error()), http.StatusInternalServerError)
		return
	}
	render(w, "runs.html", d)
}

// readRuns reads the runs page's data.
func (s *Server) readRuns(ctx context.Context) (*runsPageData, error) {
	now := s.opts.Now()
	st, err := store.ReadStatus(ctx, s.opts.Pool, s.opts.Limit)
	if err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	unreached, err := access.Unreached(ctx, s.opts.Pool)
	if err != nil {
		return nil, fmt.Errorf("the accounts no token reaches: %w", err)
	}
	days, err := store.ReadActivity(ctx, s.opts.Pool, ChartDays, now)
	if err != nil {
		return nil, err
	}
	d := &runsPageData{Generated: now, Status: st, Unreached: unreached, Charts: charts(days)}
	for _, run := range st.Runs {
		if run.Outcome != store.RunFailed && run.Outcome != store.RunPartial {
			continue
		}
		failed, err := store.FailedUnits(ctx, s.opts.Pool, run.ID)
		if err != nil {
			return nil, fmt.Errorf("run %d's failed units: %w", run.ID, err)
		}
		for _, f := range failed {
			if f.AccountID != "" {
				d.FailedAccounts = append(d.FailedAccounts, f)
			}
		}
	}
	return d, nil
}

// unitLimit is how many units a run's page lists.
const unitLimit = 500

func (s *Server) runPage(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		http.Error(w, "run "+strconv.Quote(r.PathValue("id"))+": not a run id", http.StatusNotFound)
		return
	}
	d, err := store.ReadRunDetail(r.Context(), s.opts.Pool, id, unitLimit)
	if errors.Is(err, pgx.ErrNoRows) {
		http.Error(w, fmt.Sprintf("run %d: no such run", id), http.StatusNotFound)
		return
	}
	if err != nil {
		http.Error(w, fmt.Sprintf("reading run %d: %s", id, store.Redact(err.Error())), http.StatusInternalServerError)
		return
	}
	render(w, "run.html", d)
}

// render executes a template into a buffer first, so a failing template
// gives a 500 instead of half a page.
func render(w http.ResponseWriter, name string, data any) {
	var b bytesBuffer
	if err := templates().ExecuteTemplate(&b, name, data); err != nil {
		http.Error(w, "rendering "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// Added beside the access layer's frame-ancestors policy: both apply.
	w.Header().Add("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:")
	_, _ = w.Write(b.Bytes())
}
