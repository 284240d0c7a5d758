package audience_test

import (
	"context"
	"strings"
	"testing"

	"github.com/adsync/adsync/hashing/bound"
	"github.com/adsync/adsync/sync/audience"
	"github.com/stretchr/testify/require"
)

// members gives the bundle's audience n members known to adsync (users
// 0..n-1 of emailsCSV, an email and a device id each), through a replace
// that the service confirmed.
func (b *bundle) members(n int) {
	b.t.Helper()
	o := b.options(b.writeFile("members.csv", emailsCSV(0, n)))
	o.Mode = audience.ModeReplace
	res := b.plan(o)
	s := &audience.Sender{Pool: b.pool, API: b.deps.API}
	for seq := 1; seq <= res.Batches; seq++ {
		require.NoError(b.t, s.Send(context.Background(), res.Upload.ID, seq))
	}
	require.Len(b.t, b.storedMembers()["email"], n)
}

// recorded counts the recorded uploads and batch jobs.
func (b *bundle) recorded() (uploads, jobs int) {
	b.t.Helper()
	require.NoError(b.t, b.pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM audience_uploads),
		(SELECT count(*) FROM river_job WHERE kind = 'audience_batch')`).Scan(&uploads, &jobs))
	return uploads, jobs
}

func TestReplaceWithoutAValidUserIsRefusedNamingTheFileAndSendsNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.members(30)
	uploads, jobs := b.recorded()
	sent := len(b.spy.requests())
	for name, content := range map[string]string{
		"header only":       "email,device_id\n",
		"only empty values": "email,device_id\n,\n , \n",
		"only invalid rows": "email,device_id\nnope,\n@x,\nalso-not,\n",
	} {
		o := b.options(b.writeFile(name+".csv", content))
		o.Mode = audience.ModeReplace
		o.MaxInvalid = bound.None() // the rule holds whatever the invalid rows allowed
		o.Force = true              // and whatever the delete bound
		_, err := audience.Plan(context.Background(), b.pool, o)
		require.ErrorIs(t, err, audience.ErrNoValidUser, name)
		require.ErrorContains(t, err, o.Path+": no valid user", name)
		u, j := b.recorded()
		require.Equal(t, uploads, u, "%s: nothing recorded", name)
		require.Equal(t, jobs, j, "%s: no job", name)
	}
	require.Len(t, b.spy.requests(), sent, "nothing sent")
	require.Len(t, b.storedMembers()["email"], 30)
	require.Len(t, b.membership()["email"], 30)
}

func TestReplaceDeletingMoreThanTheBoundSendsNothingAtAll(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.members(100)
	uploads, jobs := b.recorded()
	sent := len(b.spy.requests())
	// Users 20..119: users 0..19 leave, their 20 emails and 20 device ids
	// being 40 of the 200 known identifiers (20%); 20 join; 80 stay.
	path := b.writeFile("next.csv", emailsCSV(20, 100))
	for _, tt := range []struct {
		name string
		max  bound.Max
		want string
	}{
		{"default", bound.Max{}, "more than --max-delete 10% (20)"},
		{"a count", bound.Count(39), "more than --max-delete 39;"},
		{"a percentage", bound.Percent(19), "more than --max-delete 19% (38)"},
	} {
		o := b.options(path)
		o.Mode, o.MaxDelete = audience.ModeReplace, tt.max
		_, err := audience.Plan(context.Background(), b.pool, o)
		var de *audience.DeleteBoundError
		require.ErrorAs(t, err, &de, tt.name)
		require.Equal(t, audience.DeleteBoundError{Deletes: 40, Known: 200, Max: tt.max.Or(audience.DefaultMaxDelete)}, *de, tt.name)
		require.ErrorContains(t, err, "replace would delete 40 of 200 known identifiers, "+tt.want, tt.name)
		require.ErrorContains(t, err, "nothing was sent; --force allows it", tt.name)
		u, j := b.recorded()
		require.Equal(t, uploads, u, "%s: nothing recorded", tt.name)
		require.Equal(t, jobs, j, "%s: no job, not even for the adds", tt.name)
	}
	require.Len(t, b.spy.requests(), sent, "no delete and no add sent")

	// The bound is inclusive; Force lifts it.
	o := b.options(path)
	o.Mode, o.MaxDelete, o.DryRun = audience.ModeReplace, bound.Count(40), true
	res, err := audience.Plan(context.Background(), b.pool, o)
	require.NoError(t, err)
	require.Equal(t, audience.Previewed, res.Outcome)
	o.MaxDelete, o.DryRun, o.Force = bound.Max{}, false, true
	res, err = audience.Plan(context.Background(), b.pool, o)
	require.NoError(t, err)
	require.Equal(t, audience.Planned, res.Outcome)
	require.Equal(t, audience.Summary{Adds: 20, Deletes: 40, Unchanged: 80, Known: 200}, res.Summary)
}

func TestReplaceShowsItsPlanBeforeAnythingIsRecordedAndADryRunRecordsNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.members(100)
	uploads, jobs := b.recorded()
	o := b.options(b.writeFile("next.csv", emailsCSV(95, 10)+"not-an-email,\n"))
	o.Mode, o.MaxInvalid = audience.ModeReplace, bound.Count(1)
	var reviewed *audience.PlanResult
	o.Review = func(res *audience.PlanResult) {
		// Seen from another connection: nothing of the plan exists yet.
		u, j := b.recorded()
		require.Equal(t, uploads, u)
		require.Equal(t, jobs, j)
		reviewed = res
	}
	// Users 95..104: 5 stay, 5 join, 95 leave (190 of 200 identifiers).
	want := audience.Summary{Adds: 5, Deletes: 190, Unchanged: 5, Known: 200}

	// A dry run shows the plan and says whether the real one would be
	// refused; neither records anything.
	o.DryRun = true
	_, err := audience.Plan(context.Background(), b.pool, o)
	var de *audience.DeleteBoundError
	require.ErrorAs(t, err, &de)
	require.NotNil(t, reviewed, "a refused plan is shown too")
	require.Equal(t, want, reviewed.Summary)
	require.Equal(t, 1, reviewed.Report.RowsInvalid)

	o.Force, reviewed = true, nil
	res, err := audience.Plan(context.Background(), b.pool, o)
	require.NoError(t, err)
	require.Equal(t, audience.Previewed, res.Outcome)
	require.Nil(t, res.Upload, "nothing recorded")
	require.Equal(t, want, res.Summary)
	require.Same(t, res, reviewed)
	u, j := b.recorded()
	require.Equal(t, uploads, u)
	require.Equal(t, jobs, j)

	o.DryRun = false
	res, err = audience.Plan(context.Background(), b.pool, o)
	require.NoError(t, err)
	require.Equal(t, audience.Planned, res.Outcome)
	require.Equal(t, want, res.Summary)
	require.EqualValues(t, 5+190, res.Upload.Users)

	s := &audience.Sender{Pool: b.pool, API: b.deps.API}
	for seq := 1; seq <= res.Batches; seq++ {
		require.NoError(t, s.Send(context.Background(), res.Upload.ID, seq))
	}
	p, err := audience.LoadProgress(context.Background(), b.pool, res.Upload.ID)
	require.NoError(t, err)
	require.Equal(t, audience.Progress{State: audience.StateDone, Batches: res.Batches, Done: res.Batches, Users: 195, UsersDone: 195, Accepted: 195,
		Adds: 5, Deletes: 190, AddsAccepted: 5, DeletesAccepted: 190}, p, "deletes are counted apart from adds")
	require.Equal(t, expectedSet(t, o.Path), b.membership())
}

// repeated is content's user rows written times times, each time in
// another case: the same users.
func repeated(content string, times int) string {
	header, rows, _ := strings.Cut(content, "\n")
	var b strings.Builder
	b.WriteString(header + "\n")
	for i := range times {
		if i%2 == 1 {
			b.WriteString(strings.ToUpper(rows))
		} else {
			b.WriteString(rows)
		}
	}
	return b.String()
}

// A file holding each of its 10 users 3 times sends each user once and
// says the other 20 rows repeat users, in an add and in a replace, whose
// deltas count users, not rows.
func TestRepeatedUsersInAFileAreSentOnceAndReportedAsDuplicates(t *testing.T) {
	t.Parallel()
	b := setup(t)
	res := b.plan(b.options(b.writeFile("add.csv", repeated(emailsCSV(0, 10), 3))))
	require.Equal(t, audience.Summary{Adds: 10}, res.Summary)
	require.Equal(t, 30, res.Report.RowsRead)
	require.Equal(t, 10, res.Report.RowsEmitted)
	require.Equal(t, 20, res.Report.RowsDuplicate)
	require.EqualValues(t, 10, res.Upload.Users)
	s := &audience.Sender{Pool: b.pool, API: b.deps.API}
	for seq := 1; seq <= res.Batches; seq++ {
		require.NoError(t, s.Send(context.Background(), res.Upload.ID, seq))
	}
	users := 0
	for _, r := range b.spy.requests() {
		users += r.users()
	}
	require.Equal(t, 10, users, "each user sent once")

	b.members(100)
	// Users 95..104, each 3 times: 5 stay, 5 join, 95 leave (190 of 200
	// identifiers).
	o := b.options(b.writeFile("replace.csv", repeated(emailsCSV(95, 10), 3)))
	o.Mode, o.Force = audience.ModeReplace, true
	res = b.plan(o)
	require.Equal(t, audience.Summary{Adds: 5, Deletes: 190, Unchanged: 5, Known: 200}, res.Summary)
	require.Equal(t, 20, res.Report.RowsDuplicate)
	for seq := 1; seq <= res.Batches; seq++ {
		require.NoError(t, s.Send(context.Background(), res.Upload.ID, seq))
	}
	require.Equal(t, expectedSet(t, o.Path), b.membership())
}
