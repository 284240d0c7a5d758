package jobs

import (
	"fmt"
	"sort"

	"github.com/adsync/adsync/sync/insights"
	"github.com/riverqueue/river"
	"github.com/robfig/cron/v3"
)

// Pipelines that can run on a schedule, by the name used in the
// configuration's schedules section.
const (
	PipelineSync     = "sync"
	PipelineInsights = insights.Pipeline
	PipelinePosts    = "posts"
	PipelineExport   = "export"
)

// cronParser accepts the standard five fields, descriptors (@daily) and a
// CRON_TZ= or TZ= prefix.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseSchedule parses one cron spec. The error names the key and the spec.
func ParseSchedule(key, spec string) (cron.Schedule, error) {
	s, err := ParseCron(spec)
	if err != nil {
		return nil, fmt.Errorf("schedules.%s: %w", key, err)
	}
	return s, nil
}

// ParseCron parses a cron spec as every schedule of adsync is parsed; the
// error names the spec.
func ParseCron(spec string) (cron.Schedule, error) {
	s, err := cronParser.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("invalid cron spec %q: %v", spec, err)
	}
	return s, nil
}

// ValidateSchedules checks every non-empty spec and that each names a known
// pipeline; it is called at start so a bad spec stops the worker at once.
func ValidateSchedules(specs map[string]string) error {
	keys := make([]string, 0, len(specs))
	for k := range specs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if specs[k] == "" {
			continue
		}
		switch k {
		case PipelineSync, PipelineInsights, PipelinePosts, PipelineExport, PipelineStats:
		default:
			return fmt.Errorf("schedules.%s: unknown pipeline (known: sync, insights, posts, stats, export)", k)
		}
		if _, err := ParseSchedule(k, specs[k]); err != nil {
			return err
		}
	}
	return nil
}

// pipelineJobs builds the job a schedule inserts. Pipelines add themselves
// here as they land.
var pipelineJobs = map[string]func() (river.JobArgs, *river.InsertOpts){}

// PeriodicJobs turns the schedules into River periodic jobs. River's elected
// leader inserts them, so any number of workers may run (robfig/cron only
// parses: running cron.Cron would fire on every replica).
func PeriodicJobs(specs map[string]string) ([]*river.PeriodicJob, error) {
	if err := ValidateSchedules(specs); err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(specs))
	for k := range specs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []*river.PeriodicJob
	for _, k := range keys {
		if specs[k] == "" {
			continue
		}
		sched, _ := ParseSchedule(k, specs[k])
		build, ok := pipelineJobs[k]
		if !ok {
			return nil, fmt.Errorf("schedules.%s: this build has no %s pipeline yet; remove the schedule", k, k)
		}
		out = append(out, river.NewPeriodicJob(sched, func() (river.JobArgs, *river.InsertOpts) { return build() },
			&river.PeriodicJobOpts{ID: "schedule:" + k}))
	}
	return out, nil
}
