package jobs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
)

// benchFakeEnv, when set (to a benchFake in JSON), makes this test binary
// serve that fake instead of running tests: a benchmark's service runs in
// its own process, so the CPU the benchmark measures (this process and
// Postgres) is the client's, not the service's, and the service's heap
// burdens no client garbage collection.
const benchFakeEnv = "ADSYNC_BENCH_FAKE"

// benchFake sizes a fake served by serveBenchFake (rate limits off).
type benchFake struct {
	Accounts, Campaigns, Cards, LineItems, Posts, Audiences, Media int
	AddrFile                                                       string // where the child writes the address it listens on
}

func (f benchFake) options() fixtures.Options {
	o := fixtures.DefaultOptions()
	o.Accounts, o.CampaignsPerAccount, o.CardsPerAccount = f.Accounts, f.Campaigns, f.Cards
	o.LineItemsPerCampaign, o.PostsPerAccount, o.AudiencesPerAccount, o.MediaPerAccount = f.LineItems, f.Posts, f.Audiences, f.Media
	o.RateLimits.Disabled = true
	return o
}

// serveBenchFake serves the fake spec describes until SIGTERM.
func serveBenchFake(spec string) int {
	var f benchFake
	if err := json.Unmarshal([]byte(spec), &f); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", benchFakeEnv, err)
		return 2
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	tmp := f.AddrFile + ".tmp"
	if err := os.WriteFile(tmp, []byte(ln.Addr().String()), 0o600); err != nil || os.Rename(tmp, f.AddrFile) != nil {
		fmt.Fprintln(os.Stderr, "writing the address:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := fixtures.ServeOn(ctx, ln, f.options(), nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// childFake serves f in a child process (this test binary again) until the
// benchmark ends, and returns worker dependencies on pool and it, and its
// base URL (for its control paths, /_fixtures/...).
func childFake(b *testing.B, f benchFake, pool *pgxpool.Pool) (*jobs.Deps, string) {
	b.Helper()
	f.AddrFile = filepath.Join(b.TempDir(), "addr")
	spec, err := json.Marshal(f)
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), benchFakeEnv+"="+string(spec))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	var addr []byte
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if addr, err = os.ReadFile(f.AddrFile); err == nil {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the fake did not start: %v", err)
		}
	}
	apiURL, adsURL, sandboxURL := fixtures.URLs("http://" + string(addr))
	o := f.options()
	client, err := api.NewClient(api.Config{
		APIURL: apiURL, AdsURL: adsURL, SandboxAdsURL: sandboxURL,
		Credentials: api.Credentials{ConsumerKey: o.ConsumerKey, ConsumerSecret: o.ConsumerSecret},
		UserToken:   &api.Token{Token: o.OwnerToken, Secret: o.OwnerSecret},
		Timeout:     time.Minute, BackoffBase: 10 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
		Governor: api.NewGovernor(api.PGStore{Pool: pool}),
		Bearer:   api.NewBearerSource(api.PGBearerStore{Pool: pool}),
	})
	if err != nil {
		b.Fatal(err)
	}
	return &jobs.Deps{Pool: pool, API: client, Log: zaptest.NewLogger(b, zaptest.Level(zap.WarnLevel)), SyncOverlap: time.Hour},
		"http://" + string(addr)
}
