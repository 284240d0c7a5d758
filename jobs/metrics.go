package jobs

import (
	"context"
	"strconv"
	"time"

	"github.com/adsync/adsync/export"
	"github.com/adsync/adsync/sync/ads"
	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Metrics are the worker's Prometheus metrics. A nil *Metrics records
// nothing, so code paths outside the worker need no checks.
type Metrics struct {
	reg           *prometheus.Registry
	jobs          *prometheus.CounterVec
	jobDuration   *prometheus.HistogramVec
	apiRequests   *prometheus.CounterVec
	apiDuration   *prometheus.HistogramVec
	rateWaits     *prometheus.CounterVec
	rateWaitSecs  *prometheus.CounterVec
	records       *prometheus.CounterVec
	audienceUsers *prometheus.CounterVec
	audienceSyncs *prometheus.CounterVec
	exportRows    *prometheus.CounterVec
}

// NewMetrics registers adsync's metrics (and the Go runtime's) in a new registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "adsync_jobs_total",
			Help: "Jobs worked, by kind and outcome (completed, failed, snoozed, cancelled, discarded)."}, []string{"kind", "outcome"}),
		jobDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "adsync_job_duration_seconds",
			Help: "Time a job attempt ran, by kind.", Buckets: prometheus.ExponentialBuckets(0.01, 4, 10)}, []string{"kind"}),
		apiRequests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "adsync_api_requests_total",
			Help: "Requests to the service, by endpoint and HTTP status."}, []string{"endpoint", "status"}),
		apiDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "adsync_api_request_duration_seconds",
			Help: "Request latency to the service, by endpoint.", Buckets: prometheus.ExponentialBuckets(0.005, 3, 10)}, []string{"endpoint"}),
		rateWaits: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "adsync_rate_limit_waits_total",
			Help: "Times a request waited or was deferred for a rate-limit window, by endpoint."}, []string{"endpoint"}),
		rateWaitSecs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "adsync_rate_limit_wait_seconds_total",
			Help: "Seconds requests waited or were deferred for rate-limit windows, by endpoint."}, []string{"endpoint"}),
		records: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "adsync_records_synced_total",
			Help: "Records synced, by entity and result (fetched, inserted, updated, unchanged, deleted)."}, []string{"entity", "result"}),
		audienceUsers: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "adsync_audience_users_total",
			Help: "Audience users sent to the service and accepted by it (success_count)."}, []string{"result"}),
		audienceSyncs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "adsync_audience_syncs_total",
			Help: "Runs of configured audiences, by name and outcome (planned, unchanged, refused, failed)."}, []string{"audience", "outcome"}),
		exportRows: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "adsync_export_rows_total",
			Help: "Rows written to Parquet, by table."}, []string{"table"}),
	}
	m.reg.MustRegister(m.jobs, m.jobDuration, m.apiRequests, m.apiDuration, m.rateWaits, m.rateWaitSecs,
		m.records, m.audienceUsers, m.audienceSyncs, m.exportRows,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.initSeries()
	return m
}

// jobKinds are the kinds of every job adsync enqueues.
var jobKinds = []string{SyncRunArgs{}.Kind(), SyncUnitArgs{}.Kind(), AudienceBatchArgs{}.Kind(), AudienceSyncArgs{}.Kind(), ExportArgs{}.Kind(),
	InsightsArgs{}.Kind(), PostsFetchArgs{}.Kind(), StatsArgs{}.Kind(), StatsJobArgs{}.Kind()}

// jobOutcomes are the outcome labels of adsync_jobs_total (see observeEvent).
var jobOutcomes = []string{"completed", "failed", "snoozed", "cancelled", "discarded"}

// recordResults are the result labels of adsync_records_synced_total.
var recordResults = []string{"fetched", "inserted", "updated", "unchanged", "deleted"}

// initSeries creates, at zero, every series whose labels are known in
// advance (job kinds and outcomes, entities, tables, the sync's
// endpoints), so every adsync_* family is scraped from the start and an
// alert on a rate or an absence works on a fresh worker.
func (m *Metrics) initSeries() {
	for _, kind := range jobKinds {
		for _, outcome := range jobOutcomes {
			m.jobs.WithLabelValues(kind, outcome).Add(0)
		}
		m.jobDuration.WithLabelValues(kind)
	}
	for _, e := range ads.Entities() {
		for _, result := range recordResults {
			m.records.WithLabelValues(e.Name, result).Add(0)
		}
		m.apiRequests.WithLabelValues(e.Endpoint, "200").Add(0)
		m.apiDuration.WithLabelValues(e.Endpoint)
		m.rateWaits.WithLabelValues(e.Endpoint).Add(0)
		m.rateWaitSecs.WithLabelValues(e.Endpoint).Add(0)
	}
	m.audienceUsers.WithLabelValues("sent").Add(0)
	m.audienceUsers.WithLabelValues("accepted").Add(0)
	for _, t := range export.Tables() {
		m.exportRows.WithLabelValues(t.Name).Add(0)
	}
}

// Registry is what /metrics serves.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// APIResponse records one answer from the service.
func (m *Metrics) APIResponse(endpoint string, status int, d time.Duration) {
	if m == nil {
		return
	}
	m.apiRequests.WithLabelValues(endpoint, strconv.Itoa(status)).Inc()
	m.apiDuration.WithLabelValues(endpoint).Observe(d.Seconds())
}

// RateLimitWait records a wait (or deferral) for a rate-limit window.
func (m *Metrics) RateLimitWait(endpoint string, d time.Duration) {
	if m == nil {
		return
	}
	m.rateWaits.WithLabelValues(endpoint).Inc()
	m.rateWaitSecs.WithLabelValues(endpoint).Add(max(d, 0).Seconds())
}

// RecordsSynced records one page's or unit's counts.
func (m *Metrics) RecordsSynced(entity string, fetched, inserted, updated, unchanged, deleted int64) {
	if m == nil {
		return
	}
	for result, n := range map[string]int64{"fetched": fetched, "inserted": inserted, "updated": updated, "unchanged": unchanged, "deleted": deleted} {
		if n > 0 {
			m.records.WithLabelValues(entity, result).Add(float64(n))
		}
	}
}

// AudienceUsers records users sent in a batch and how many were accepted.
func (m *Metrics) AudienceUsers(sent, accepted int64) {
	if m == nil {
		return
	}
	m.audienceUsers.WithLabelValues("sent").Add(float64(sent))
	m.audienceUsers.WithLabelValues("accepted").Add(float64(accepted))
}

// AudienceSyncs creates, at zero, the series of the configured audiences'
// runs, so an alert on refused runs works before the first one.
func (m *Metrics) AudienceSyncs(names []string) {
	if m == nil {
		return
	}
	for _, name := range names {
		for _, outcome := range audienceSyncOutcomes {
			m.audienceSyncs.WithLabelValues(name, outcome).Add(0)
		}
	}
}

// AudienceSync records how a configured audience's run ended (see
// AudienceSyncPlanned and the other outcomes).
func (m *Metrics) AudienceSync(name, outcome string) {
	if m == nil {
		return
	}
	m.audienceSyncs.WithLabelValues(name, outcome).Inc()
}

// ExportRows records rows written for a table.
func (m *Metrics) ExportRows(table string, n int64) {
	if m == nil || n == 0 {
		return
	}
	m.exportRows.WithLabelValues(table).Add(float64(n))
}

// WatchJobs counts jobs by kind and outcome from the client's events until
// ctx ends.
func (m *Metrics) WatchJobs(ctx context.Context, client *river.Client[pgx.Tx]) {
	if m == nil {
		return
	}
	events, cancel := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobSnoozed, river.EventKindJobCancelled)
	go func() {
		defer cancel()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-events:
				if !ok {
					return
				}
				m.observeEvent(ev)
			}
		}
	}()
}

func (m *Metrics) observeEvent(ev *river.Event) {
	if ev.Job == nil {
		return
	}
	var outcome string
	switch {
	case ev.Kind == river.EventKindJobCompleted:
		outcome = "completed"
	case ev.Kind == river.EventKindJobSnoozed:
		outcome = "snoozed"
	case ev.Kind == river.EventKindJobCancelled:
		outcome = "cancelled"
	case ev.Job.State == rivertype.JobStateDiscarded:
		outcome = "discarded"
	default:
		outcome = "failed"
	}
	m.jobs.WithLabelValues(ev.Job.Kind, outcome).Inc()
	if ev.JobStats != nil {
		m.jobDuration.WithLabelValues(ev.Job.Kind).Observe(ev.JobStats.RunDuration.Seconds())
	}
}
