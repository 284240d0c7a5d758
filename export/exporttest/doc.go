// Package exporttest reads Parquet files with DuckDB, a reader adsync did
// not write, through its Node API (installed by `make test-deps` under
// export/testdata).
//
// It owns the tests' DuckDB reader and is for tests only: production code must
// not import it.
package exporttest
