// Package exporttest reads Parquet files with DuckDB, a reader adsync did
// not write, through its Node API (installed by `make test-deps` under
// export/testdata), and Iceberg tables with icebird (iceberg.go), comparing
// them with Postgres row for row.
//
// It owns the tests' DuckDB and Iceberg readers and is for tests only: production code must
// not import it.
package exporttest
