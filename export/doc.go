// Package export writes adsync's tables to typed, partitioned Parquet files
// that DuckDB, Spark, BigQuery and Snowflake read without glue: zstd
// compressed, bounded row groups, atomic renames, a manifest per run, and
// incremental runs that write only what changed since the last one.
//
// It owns the Parquet schemas, the output (a folder or an object-store prefix)
// and its ownership marker. It must not write into an output whose marker is
// not adsync's, must not remove what it did not write, and must not change the
// synced tables it reads.
package export
