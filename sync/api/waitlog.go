package api

import (
	"time"

	"go.uber.org/zap"
)

// LongWait is the wait beyond which adsync says, at the default log level,
// what it waits for and until when: shorter pauses are pacing, longer ones
// would look like a stall.
const LongWait = 5 * time.Second

// logWait logs a wait of longer than LongWait at info level: the endpoint,
// why, and until when (RFC 3339). deferred says the request is not sent now
// at all (the caller gets a *RetryAtError; a job snoozes until then) rather
// than sent after sleeping in this process.
func logWait(log *zap.Logger, now time.Time, endpoint, reason string, until time.Time, deferred bool) {
	if log == nil || until.Sub(now) <= LongWait {
		return
	}
	msg := "waiting before sending " + endpoint
	if deferred {
		msg = "not sending " + endpoint + " before " + until.UTC().Format(time.RFC3339)
	}
	log.Info(msg, zap.String("endpoint", endpoint), zap.String("reason", reason),
		zap.String("until", until.UTC().Format(time.RFC3339)), zap.Duration("wait", until.Sub(now).Round(time.Second)))
}

// noteWait logs the deferral rae at info level when it is long.
func (c *Client) noteWait(rae *RetryAtError) {
	logWait(c.log, c.cfg.Now(), rae.Endpoint, rae.Reason, rae.At, true)
}
