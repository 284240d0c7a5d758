package jobs

import "github.com/riverqueue/river"

// ScheduledJob builds the job a schedule of pipeline inserts.
func ScheduledJob(pipeline string) (river.JobArgs, *river.InsertOpts) {
	build, ok := pipelineJobs[pipeline]
	if !ok {
		return nil, nil
	}
	return build()
}
