package audience_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/hashing/bound"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/audience"
	"github.com/stretchr/testify/require"
)

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

const usersPath = "/**/12/accounts/*/custom_audiences/*/users"

func TestUploadStoresExactlyTheValidUsersDespiteShortCounts429s503sAndResets(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// 6,000 users and two invalid rows whose other values are valid: the
	// whole row stays out.
	csv := emailsCSV(0, 3000) + "not-an-email,ffffffff-0000-4000-8000-000000000000\n" + emailsCSV(3000, 3000)[len("email,device_id\n"):] +
		"also@,eeeeeeee-0000-4000-8000-000000000000\n"
	path := b.writeFile("users.csv", csv)
	for _, f := range []fixtures.FaultRule{
		{Path: usersPath, Kind: fixtures.FaultShort, ShortBy: 7, Times: 1},
		{Path: usersPath, Kind: fixtures.Fault503, Times: 1},
		{Path: usersPath, Kind: fixtures.FaultReset, Times: 1},
		{Path: usersPath, Kind: fixtures.FaultResetAfter, Times: 1},
		{Path: usersPath, Kind: fixtures.Fault429, Times: 1},
		{Path: usersPath, Kind: fixtures.FaultShort, ShortBy: 1, Times: 1},
	} {
		b.srv.AddFault(f)
	}
	res := b.plan(b.options(path))
	require.Equal(t, audience.Planned, res.Outcome)
	require.Equal(t, 6002, res.Report.RowsRead)
	require.Equal(t, 2, res.Report.RowsInvalid)
	require.Equal(t, 3, res.Batches, "6,000 users in batches of at most 2,500")
	require.EqualValues(t, 6000, res.Upload.Users)

	b.startWorker()
	p := b.waitFinished(res.Upload.ID)
	require.Equal(t, audience.StateDone, p.State)
	require.Equal(t, 3, p.Done)
	require.EqualValues(t, 6000, p.Accepted)
	require.Positive(t, p.Retries, "the short counts were sent again")

	var outcome string
	var accepted, invalid int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT r.outcome, (r.counts->>'users_accepted')::int, (r.counts->>'rows_invalid')::int
		FROM sync_runs r JOIN audience_uploads u ON u.run_id = r.id WHERE u.id = $1`, res.Upload.ID).Scan(&outcome, &accepted, &invalid))
	require.Equal(t, "succeeded", outcome, "the upload is recorded as a pipeline run")
	require.Equal(t, 6000, accepted)
	require.Equal(t, 2, invalid)

	want := expectedSet(t, path)
	require.Len(t, want["email"], 6000)
	require.Contains(t, want["email"], sha("user42@example.com"))
	require.Equal(t, want, b.membership(), "the fake holds exactly the file's valid users")
	require.Equal(t, want, b.storedMembers(), "adsync's record follows what the service confirmed")

	invalidDevices := []string{sha("ffffffff-0000-4000-8000-000000000000"), sha("eeeeeeee-0000-4000-8000-000000000000")}
	for _, r := range b.spy.requests() {
		require.LessOrEqual(t, r.users(), audience.MaxUsersPerRequest)
		require.LessOrEqual(t, r.Bytes, audience.MaxBodyBytes)
		for _, op := range r.Ops {
			for _, u := range op.Users {
				for _, h := range invalidDevices {
					require.NotContains(t, u["device_id"], h, "a value of an invalid row reached the service")
				}
			}
		}
	}
	for _, f := range b.srv.Faults() {
		require.Equal(t, 1, f.Fired, "fault %s %s", f.Kind, f.ID)
	}
}

func TestUploadSplitsLargeUsersByBodyBytes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// 40 emails a row make user objects of about 2,700 bytes: 2,500 of
	// them would exceed 5,000,000 bytes, so the byte bound splits first.
	var s strings.Builder
	for i := range 40 {
		if i > 0 {
			s.WriteByte(',')
		}
		fmt.Fprintf(&s, "email%d", i)
	}
	s.WriteByte('\n')
	const rows = 2600
	for r := range rows {
		for i := range 40 {
			if i > 0 {
				s.WriteByte(',')
			}
			fmt.Fprintf(&s, "u%d.%d@example.com", r, i)
		}
		s.WriteByte('\n')
	}
	path := b.writeFile("wide.csv", s.String())
	res := b.plan(b.options(path))
	require.Equal(t, 2, res.Batches)
	// A 5 MB body takes the race-instrumented fake many seconds on a
	// loaded machine: a request timed out would be sent again (rightly),
	// and this test counts requests.
	b.timeout = 3 * time.Minute
	b.startWorker()
	p := b.waitFinished(res.Upload.ID)
	require.Equal(t, audience.StateDone, p.State)
	reqs := b.spy.requests()
	require.Len(t, reqs, 2)
	for _, r := range reqs {
		require.LessOrEqual(t, r.Bytes, audience.MaxBodyBytes)
		require.Less(t, r.users(), audience.MaxUsersPerRequest)
	}
	require.Greater(t, reqs[0].Bytes+reqs[1].Bytes, audience.MaxBodyBytes, "the file needed the byte bound")
	require.Len(t, b.membership()["email"], rows*40)
}

func TestRerunAfterACrashResumesWithoutResendingDoneBatches(t *testing.T) {
	t.Parallel()
	b := setup(t)
	path := b.writeFile("users.csv", emailsCSV(0, 1000))
	o := b.options(path)
	o.MaxUsers = 100
	res := b.plan(o)
	require.Equal(t, 10, res.Batches)

	// A worker sent four batches, then the process died.
	s := &audience.Sender{Pool: b.pool, API: b.deps.API}
	for seq := 1; seq <= 4; seq++ {
		require.NoError(t, s.Send(context.Background(), res.Upload.ID, seq))
	}
	require.Len(t, b.spy.requests(), 4)

	// Running the same command again finds the unfinished upload.
	again := b.plan(o)
	require.Equal(t, audience.Resumed, again.Outcome)
	require.Equal(t, res.Upload.ID, again.Upload.ID)

	b.startWorker()
	p := b.waitFinished(res.Upload.ID)
	require.Equal(t, audience.StateDone, p.State)
	require.Len(t, b.spy.requests(), 10, "each batch was sent once")
	require.Equal(t, expectedSet(t, path), b.membership())

	// A done batch is never sent again, even by a duplicate job.
	require.NoError(t, s.Send(context.Background(), res.Upload.ID, 1))
	require.Len(t, b.spy.requests(), 10)
}

func TestSameFileAgainIsSkippedUnlessForced(t *testing.T) {
	t.Parallel()
	b := setup(t)
	path := b.writeFile("users.csv", emailsCSV(0, 50))
	first := b.plan(b.options(path))
	b.startWorker()
	b.waitFinished(first.Upload.ID)
	require.Len(t, b.spy.requests(), 1)

	second := b.plan(b.options(path))
	require.Equal(t, audience.Skipped, second.Outcome)
	require.Equal(t, first.Upload.ID, second.Upload.ID)

	// Another operation on the same file is another upload.
	del := b.options(path)
	del.Operation = audience.OperationDelete
	require.Equal(t, audience.Planned, b.plan(del).Outcome)
	b.waitFinished(first.Upload.ID + 1)
	require.Empty(t, b.membership())

	forced := b.options(path)
	forced.Force = true
	third := b.plan(forced)
	require.Equal(t, audience.Planned, third.Outcome)
	require.NotEqual(t, first.Upload.ID, third.Upload.ID)
	require.Equal(t, audience.StateDone, b.waitFinished(third.Upload.ID).State)
	require.Len(t, b.spy.requests(), 3)
	require.Equal(t, expectedSet(t, path), b.membership())
}

func TestReplaceModeDeletesMembersMissingFromTheNewFile(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.startWorker()
	first := b.options(b.writeFile("a.csv", emailsCSV(0, 300)))
	first.Mode = audience.ModeReplace
	r1 := b.plan(first)
	b.waitFinished(r1.Upload.ID)
	require.Equal(t, expectedSet(t, first.Path), b.membership())
	sentBefore := len(b.spy.requests())

	// Users 100..399: 0..99 leave, 300..399 join, 100..299 stay.
	second := b.options(b.writeFile("b.csv", emailsCSV(100, 300)))
	second.Mode = audience.ModeReplace
	second.MaxDelete = bound.Count(200) // a third of the 600 known identifiers
	r2 := b.plan(second)
	require.EqualValues(t, 100+200, r2.Upload.Users, "100 new rows and 200 identifiers that left")
	p := b.waitFinished(r2.Upload.ID)
	require.Equal(t, audience.StateDone, p.State)

	want := expectedSet(t, second.Path)
	require.Equal(t, want, b.membership(), "the fake holds exactly the new file")
	require.Equal(t, want, b.storedMembers())

	updates, deletes := map[string]bool{}, map[string]bool{}
	for _, r := range b.spy.requests()[sentBefore:] {
		for _, op := range r.Ops {
			for _, u := range op.Users {
				for _, h := range u["email"] {
					if op.Type == audience.OpDelete {
						deletes[h] = true
					} else {
						updates[h] = true
					}
				}
			}
		}
	}
	require.Len(t, updates, 100, "only new members are sent")
	require.True(t, updates[sha("user350@example.com")])
	require.Len(t, deletes, 100)
	require.True(t, deletes[sha("user5@example.com")])
	require.False(t, deletes[sha("user150@example.com")])
}

func TestCreateAudienceReportsTheExistingAudienceOnADuplicateName(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id, err := audience.CreateAudience(ctx, b.deps.API, b.account, "crm customers")
	require.NoError(t, err)
	require.NotEmpty(t, id)
	require.Contains(t, b.srv.AdsTruth().Accounts[b.account]["custom_audiences"].IDs, id)

	_, err = audience.CreateAudience(ctx, b.deps.API, b.account, "crm customers")
	var dup *audience.DuplicateNameError
	require.ErrorAs(t, err, &dup)
	require.Equal(t, id, dup.ExistingID)
	require.Contains(t, err.Error(), id)
}

func TestItemErrorsFailTheBatchAndAreRecordedPerItem(t *testing.T) {
	t.Parallel()
	b := setup(t)
	path := b.writeFile("users.csv", emailsCSV(0, 1))
	res := b.plan(b.options(path))
	// The normalizer never writes such a value; a damaged store could.
	_, err := b.pool.Exec(context.Background(), `UPDATE audience_batches SET body = convert_to(
		'[{"operation_type":"Update","params":{"users":[{"email":["NOT-A-HASH"]}]}}]', 'UTF8') WHERE upload_id = $1`, res.Upload.ID)
	require.NoError(t, err)
	s := &audience.Sender{Pool: b.pool, API: b.deps.API}
	err = s.Send(context.Background(), res.Upload.ID, 1)
	var pe *audience.PermanentError
	require.ErrorAs(t, err, &pe)
	var be *api.BatchError
	require.ErrorAs(t, err, &be)
	p, err := audience.LoadProgress(context.Background(), b.pool, res.Upload.ID)
	require.NoError(t, err)
	require.Equal(t, audience.StateFailed, p.State)
	require.EqualValues(t, 1, p.OperationErrors)
	var code, param, outcome string
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT e.code, e.parameter, r.outcome FROM audience_batch_errors e
		JOIN audience_uploads u ON u.id = e.upload_id JOIN sync_runs r ON r.id = u.run_id WHERE e.upload_id = $1 AND e.seq = 1 AND e.index = 0`,
		res.Upload.ID).Scan(&code, &param, &outcome))
	require.Equal(t, "INVALID_PARAMETER", code)
	require.Equal(t, "email", param)
	require.Equal(t, "failed", outcome)
}

func TestCreateAudienceWhoseAnswerWasLostIsNotReportedAsADuplicate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	// The service creates the audience, then the connection drops.
	b.srv.AddFault(fixtures.FaultRule{Path: "/ads/12/accounts/*/custom_audiences", Method: "POST", Kind: fixtures.FaultResetAfter, Times: 1})
	id, err := audience.CreateAudience(ctx, b.deps.API, b.account, "lost answer")
	require.NoError(t, err)
	require.Contains(t, b.srv.AdsTruth().Accounts[b.account]["custom_audiences"].IDs, id)
	n := 0
	for _, other := range b.srv.AdsTruth().Accounts[b.account]["custom_audiences"].IDs {
		if other == id {
			n++
		}
	}
	require.Equal(t, 1, n, "one audience, not two")

	// A 500 before the service acted: the resend creates it.
	b.srv.AddFault(fixtures.FaultRule{Path: "/ads/12/accounts/*/custom_audiences", Method: "POST", Kind: fixtures.Fault500, Times: 1})
	id2, err := audience.CreateAudience(ctx, b.deps.API, b.account, "after a 500")
	require.NoError(t, err)
	require.NotEqual(t, id, id2)
}

// A create is sent again as often as the client sends any request it may
// resend: answers lost that many times but once still end with the
// audience the first attempt created, and one more loss is the error.
func TestACreateWhoseAnswersAreLostIsSentAsOftenAsTheClientResendsAnyRequest(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	n := b.deps.API.MaxAttempts()
	require.GreaterOrEqual(t, n, 4, "the default")
	b.srv.AddFault(fixtures.FaultRule{Path: "/ads/12/accounts/*/custom_audiences", Method: "POST", Kind: fixtures.FaultResetAfter, Times: n - 1})
	id, err := audience.CreateAudience(ctx, b.deps.API, b.account, "lost often")
	require.NoError(t, err)
	require.Contains(t, b.srv.AdsTruth().Accounts[b.account]["custom_audiences"].IDs, id)

	b.srv.AddFault(fixtures.FaultRule{Path: "/ads/12/accounts/*/custom_audiences", Method: "POST", Kind: fixtures.Fault500, Times: n})
	_, err = audience.CreateAudience(ctx, b.deps.API, b.account, "never answered")
	require.Error(t, err, "after as many attempts as any request")
}

func TestABatchTheServiceKeepsFailingIsSentOnlyAsOftenAsTheClientRetries(t *testing.T) {
	t.Parallel()
	b := setup(t)
	res := b.plan(b.options(b.writeFile("users.csv", emailsCSV(0, 10))))
	require.Equal(t, audience.Planned, res.Outcome)
	b.srv.AddFault(fixtures.FaultRule{Path: usersPath, Kind: fixtures.Fault500})

	cfg := b.fake.Config(b.pool)
	cfg.MaxAttempts = 4
	c, err := api.NewClient(cfg)
	require.NoError(t, err)
	s := &audience.Sender{Pool: b.pool, API: c}
	err = s.Send(context.Background(), res.Upload.ID, 1)
	require.Error(t, err)
	require.Equal(t, api.Retry, api.Explain(err).Verdict, "the job's attempts take it from here")
	require.Len(t, b.spy.requests(), 4, "one layer retries a 5xx: the client, not the client times the sender")
}
