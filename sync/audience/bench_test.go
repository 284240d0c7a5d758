package audience_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/fixtures/measure"
	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/jobs/jobstest"
	"github.com/adsync/adsync/sync/audience"
	"github.com/adsync/adsync/sync/store"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/parquet-go/parquet-go"
)

// BenchmarkFileToBatches measures a file's way to upload-ready request
// bodies (CSV parse, normalize, hash, JSON, batch envelopes) in rows/s, on
// every CPU, beside its baseline: the same file to user objects only.
func BenchmarkFileToBatches(b *testing.B) {
	var file bytes.Buffer
	file.WriteString("email,phone,external_id\n")
	const rows = 20000
	for i := range rows {
		fmt.Fprintf(&file, "User%d@Example.com,+1 415 555 %04d,crm-%d\n", i, i%10000, i)
	}
	data := file.Bytes()
	n, err := hashing.NewNormalizer(hashing.Options{DefaultCountry: "US", PassThroughHashed: true})
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, batches bool) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			r, err := hashing.NewCSVReader(bytes.NewReader(data), hashing.ReaderOptions{})
			if err != nil {
				b.Fatal(err)
			}
			var report hashing.Report
			var buf []byte
			bodies := 0
			bt := audience.NewBatcherForBench(func() { bodies++ })
			err = hashing.HashRecordsParallel(r, n, runtime.GOMAXPROCS(0), func(u hashing.HashedUser) error {
				buf = u.AppendJSON(buf[:0])
				if batches {
					return bt.Add(buf)
				}
				return nil
			}, &report)
			if err == nil && batches {
				err = bt.Close()
			}
			if err != nil || report.RowsEmitted != rows || (batches && bodies != rows/audience.MaxUsersPerRequest) {
				b.Fatal(err, report.RowsEmitted, bodies)
			}
		}
		b.ReportMetric(float64(b.N*rows)/b.Elapsed().Seconds(), "rows/s")
	}
	b.Run("baseline=users", func(b *testing.B) { run(b, false) })
	b.Run("batches", func(b *testing.B) { run(b, true) })
}

// crmFiles writes the two files of BenchmarkCRMFileToBatches once per
// process: an email-only export and a mixed one.
func crmFiles(b *testing.B) (email, mixed string, emailRows, mixedRows int) {
	emailRows, mixedRows = 2_000_000, 200_000
	if s := os.Getenv("ADSYNC_CRM_ROWS"); s != "" {
		emailRows, _ = strconv.Atoi(s)
		mixedRows = emailRows / 10
	}
	dir := b.TempDir()
	write := func(name, header string, rows int, row func(w *bufio.Writer, i int)) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		w.WriteString(header + "\n")
		for i := range rows {
			row(w, i)
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		return path
	}
	// As CRMs export them: mixed case, some padding.
	email = write("emails.csv", "email", emailRows, func(w *bufio.Writer, i int) {
		fmt.Fprintf(w, "First.Last%d@Example-Company%d.COM\n", i, i%97)
	})
	// Every row has an email, a phone (three writings) and an external
	// id; a third each a mobile advertising id, a handle, a user id.
	mixed = write("mixed.csv", "email,phone,idfa,handle,user_id,external_id", mixedRows, func(w *bufio.Writer, i int) {
		fmt.Fprintf(w, " Customer.%d@Example.com ,", i)
		switch i % 3 {
		case 0:
			fmt.Fprintf(w, "+1 415 555 %04d,", i%10000)
		case 1:
			fmt.Fprintf(w, "(212) 555-%04d,", i%10000)
		default:
			fmt.Fprintf(w, "+44 20 7946 %04d,", i%10000)
		}
		switch i % 3 {
		case 0:
			fmt.Fprintf(w, "6D92078A-8246-4BA4-AE5B-%012X,,,", i+1)
		case 1:
			fmt.Fprintf(w, ",@Customer_%d,,", i)
		default:
			fmt.Fprintf(w, ",,%d,", 1000000+i)
		}
		fmt.Fprintf(w, "crm-%d\n", i)
	})
	return email, mixed, emailRows, mixedRows
}

// BenchmarkCRMFileToBatches measures what adsync audience upload does with
// a file before it sends anything (checksum, read, normalize, hash, encode,
// batch: the plan without its database writes), on every CPU, in rows/s,
// beside the file scanned line by line with bufio.Scanner: the I/O limit
// of any reader of it. Each sub-benchmark reports wall and CPU seconds per
// pass.
func BenchmarkCRMFileToBatches(b *testing.B) {
	email, mixed, emailRows, mixedRows := crmFiles(b)
	n, err := hashing.NewNormalizer(hashing.Options{DefaultCountry: "US", PassThroughHashed: true})
	if err != nil {
		b.Fatal(err)
	}
	timed := func(b *testing.B, rows int, pass func()) {
		cpu0 := localpg.ProcessCPU()
		for b.Loop() {
			pass()
		}
		cpu := localpg.ProcessCPU() - cpu0
		b.ReportMetric(float64(b.N*rows)/b.Elapsed().Seconds(), "rows/s")
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "wall-s")
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s")
	}
	for _, file := range []struct {
		name string
		path string
		rows int
	}{{"email", email, emailRows}, {"mixed", mixed, mixedRows}} {
		b.Run(file.name+"/plan", func(b *testing.B) {
			timed(b, file.rows, func() {
				users, bodies := 0, 0
				report, err := audience.PlanBatchesForBench(context.Background(), nil, audience.PlanOptions{Path: file.path, Normalizer: n,
					Workers: runtime.GOMAXPROCS(0)}, func(body []byte, u int) { users += u; bodies++ })
				if err != nil || report.RowsEmitted != file.rows || users != file.rows || report.RowsInvalid != 0 {
					b.Fatal(err, report.RowsEmitted, users, report.InvalidRows)
				}
			})
		})
		b.Run(file.name+"/line_scan", func(b *testing.B) {
			timed(b, file.rows, func() {
				f, err := os.Open(file.path)
				if err != nil {
					b.Fatal(err)
				}
				sc := bufio.NewScanner(f)
				lines := 0
				for sc.Scan() {
					lines++
				}
				if err := sc.Err(); err != nil || lines != file.rows+1 {
					b.Fatal(err, lines)
				}
				_ = f.Close()
			})
		})
	}
}

// rssChildEnv makes the test binary plan one source and print its peak RSS.
const rssChildEnv = "ADSYNC_AUDIENCE_RSS_CHILD"

// rssQuery is the query BenchmarkPlanPeakRSS plans: the users of its CSV
// and Parquet files, in a table of adsync's database.
const rssQuery = "SELECT email FROM bench_users"

// BenchmarkPlanPeakRSS plans the same 10,000,000 users from each source,
// a CSV file, a Parquet file (row groups of 100,000 rows) and a query on
// adsync's database, into Postgres, each in a child process, and reports
// the child's peak resident memory (VmHWM, the figure a user's machine
// sees), the users planned per second, and the CPU seconds of the child
// and of Postgres (which runs the query, and stores every plan). The CSV
// goes first: it is the others' baseline, measured in the same run.
func BenchmarkPlanPeakRSS(b *testing.B) {
	rows := 10_000_000
	if s := os.Getenv("ADSYNC_RSS_ROWS"); s != "" {
		rows, _ = strconv.Atoi(s)
	}
	dir := b.TempDir()
	csvPath, parquetPath := filepath.Join(dir, "users.csv"), filepath.Join(dir, "users.parquet")
	writeRSSFiles(b, csvPath, parquetPath, rows)
	db := synctest.MigratedDatabase(b)
	pool := synctest.Pool(b, db)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `CREATE TABLE bench_users AS SELECT 'Customer.' || i || '@Example.com' AS email FROM generate_series(0, $1::int - 1) i`, rows); err != nil {
		b.Fatal(err)
	}
	cpu := measure.NewCPU(b, pool)
	for _, src := range []struct{ name, env string }{
		{"csv", "ADSYNC_RSS_FILE=" + csvPath}, {"parquet", "ADSYNC_RSS_FILE=" + parquetPath}, {"query", "ADSYNC_RSS_QUERY=" + rssQuery},
	} {
		b.Run("source="+src.name, func(b *testing.B) {
			var peakMB float64
			var took, used, pg time.Duration
			for b.Loop() {
				// Each plan starts from an empty audience_batches.
				if _, err := pool.Exec(ctx, `TRUNCATE audience_uploads, audience_batches, river_job, sync_runs CASCADE`); err != nil {
					b.Fatal(err)
				}
				start, cpu0, pg0 := time.Now(), cpu.Now(), cpu.Server()
				peakMB = measure.ChildPeakRSS(b, rssChildEnv+"=1", "ADSYNC_RSS_DB="+db, src.env)
				took = time.Since(start)
				// The child's server processes count once the server has
				// reaped them.
				time.Sleep(time.Second)
				used, pg = cpu.Now()-cpu0, cpu.Server()-pg0
			}
			b.ReportMetric(peakMB, "peak-RSS-MB")
			b.ReportMetric(float64(rows)/took.Seconds(), "rows/s")
			b.ReportMetric(float64(rows), "rows")
			b.ReportMetric(took.Seconds(), "wall-s")
			b.ReportMetric(used.Seconds(), "cpu-s")
			b.ReportMetric(pg.Seconds(), "pg-cpu-s")
		})
	}
}

// writeRSSFiles writes the users of BenchmarkPlanPeakRSS as a CSV file and
// a Parquet file.
func writeRSSFiles(b *testing.B, csvPath, parquetPath string, rows int) {
	f, err := os.Create(csvPath)
	if err != nil {
		b.Fatal(err)
	}
	pf, err := os.Create(parquetPath)
	if err != nil {
		b.Fatal(err)
	}
	type user struct {
		Email string `parquet:"email"`
	}
	pw := parquet.NewGenericWriter[user](pf, parquet.MaxRowsPerRowGroup(100_000))
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintln(w, "email")
	batch := make([]user, 0, 10_000)
	for i := range rows {
		batch = append(batch, user{Email: fmt.Sprintf("Customer.%d@Example.com", i)})
		fmt.Fprintln(w, batch[len(batch)-1].Email)
		if len(batch) == cap(batch) || i == rows-1 {
			if _, err := pw.Write(batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	for _, err := range []error{w.Flush(), f.Close(), pw.Close(), pf.Close()} {
		if err != nil {
			b.Fatal(err)
		}
	}
}

// rssChild plans ADSYNC_RSS_FILE or ADSYNC_RSS_QUERY into ADSYNC_RSS_DB and
// prints VmHWM.
func rssChild() int {
	ctx := context.Background()
	pool, err := store.Connect(ctx, os.Getenv("ADSYNC_RSS_DB"), store.ConnectOptions{MaxConns: 4})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	defer pool.Close()
	deps := &jobs.Deps{Pool: pool}
	rc, err := jobs.NewClient(deps, jobs.Options{})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	n, err := hashing.NewNormalizer(hashing.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return 1
	}
	res, err := audience.Plan(ctx, pool, audience.PlanOptions{
		AccountID: "acct", AudienceID: "aud", Path: os.Getenv("ADSYNC_RSS_FILE"), Query: os.Getenv("ADSYNC_RSS_QUERY"),
		Operation: audience.OperationUpdate, Mode: audience.ModeAdd, Force: true,
		Normalizer: n, Workers: runtime.GOMAXPROCS(0), Enqueue: jobs.AudienceEnqueuer(rc),
	})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Printf("planned %d users in %d batches\n", res.Upload.Users, res.Batches)
	if err := measure.PrintPeakRSS(); err != nil {
		fmt.Println(err)
		return 1
	}
	return 0
}

// BenchmarkUploadRequestsPerMinute sends one-user batches through two
// workers against the fake's audience users limit shrunk (same 3,600 a
// minute ceiling, shorter windows) and reports the rate reached beside the
// ceiling, and the 429s. The rate is one full window's requests over the
// time until the next window's first request: the fake opens a window at
// the first request after the last one closed, so that is what a client
// can reach. The service's reset header is in whole seconds, which costs up
// to a second a window: the 5-second window shows that loss, the 30-second
// one is closer to the real 60.
func BenchmarkUploadRequestsPerMinute(b *testing.B) {
	for _, tt := range []struct {
		window time.Duration
		limit  int
	}{{5 * time.Second, 300}, {30 * time.Second, 1800}} {
		b.Run(fmt.Sprintf("window=%v", tt.window), func(b *testing.B) {
			for b.Loop() {
				benchRequestsPerMinute(b, tt.window, tt.limit)
			}
		})
	}
}

func benchRequestsPerMinute(b *testing.B, window time.Duration, limit int) {
	bb := setup(b)
	bb.srv.SetRateLimits(fixtures.RateLimitOptions{AudienceUsersWindow: window, AudienceUsersLimit: limit})
	batches := 2 * limit
	o := bb.options(bb.writeFile("users.csv", emailsCSV(0, batches)))
	o.MaxUsers = 1
	res := bb.plan(o)
	jobstest.StartWorker(b, bb.newDeps(), jobs.Options{FetchPollInterval: 20 * time.Millisecond})
	jobstest.StartWorker(b, bb.newDeps(), jobs.Options{FetchPollInterval: 20 * time.Millisecond})
	p := bb.waitFinished(res.Upload.ID)
	if p.Done != batches {
		b.Fatalf("%d of %d batches done", p.Done, batches)
	}
	st := bb.srv.Stats().Family(fixtures.FamilyAudienceUsers)
	if len(st.Arrivals) != batches {
		b.Fatalf("%d requests for %d batches", len(st.Arrivals), batches)
	}
	perMinute := float64(limit) / st.Arrivals[limit].Sub(st.Arrivals[0]).Minutes()
	ceiling := float64(limit) / window.Minutes()
	b.ReportMetric(perMinute, "req/min")
	b.ReportMetric(ceiling, "ceiling-req/min")
	b.ReportMetric(100*perMinute/ceiling, "%-of-ceiling")
	b.ReportMetric(float64(st.Throttled), "429s")
}
