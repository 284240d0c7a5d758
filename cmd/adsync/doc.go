// Command adsync syncs an advertising and social-post API into Postgres and
// exports it to Parquet. See README.md and docs/.
//
// It owns nothing but main: it must not do anything beyond calling package
// adsynccmd (github.com/adsync/adsync/cmd), where the commands are.
package main
