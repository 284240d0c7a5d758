// Command adsync syncs an advertising and social-post API into Postgres and
// exports it to Parquet. See README.md and docs/.
package main

import adsynccmd "github.com/adsync/adsync/cmd"

func main() { adsynccmd.Main() }
