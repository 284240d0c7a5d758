// Package demo is adsync's zero-config demo mode: the local PostgreSQL
// under .adsync/ (kept between runs), the fake service (shared by the
// commands run in the demo's directory, or served in the process), the
// hour its generated data is anchored to, the sample CRM file and the
// demo's own keyword set. Commands ask an Env whether they run in the demo
// and to start what it needs.
//
// It owns the demo's directory and the processes it starts there. It must
// not point a configured database at the fake: the commands decide when the
// demo applies, and it must not hold the pipelines' behaviour.
package demo
