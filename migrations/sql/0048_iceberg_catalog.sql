-- The Iceberg catalog of `adsync export --format iceberg`: the two tables of
-- Iceberg's JDBC catalog (schema version V1, as Apache Iceberg's JdbcUtil
-- creates them, the same columns as iceberg-go's SQL catalog), so Spark,
-- Trino, Flink and PyIceberg attach to adsync's Postgres with their JDBC or
-- SQL catalog and nothing else to run. One row per table names its current
-- metadata file; a commit is a compare-and-swap of metadata_location.
CREATE TABLE IF NOT EXISTS iceberg_tables (
	catalog_name varchar(255) NOT NULL,
	table_namespace varchar(255) NOT NULL,
	table_name varchar(255) NOT NULL,
	metadata_location varchar(1000),
	previous_metadata_location varchar(1000),
	iceberg_type varchar(5),
	PRIMARY KEY (catalog_name, table_namespace, table_name)
);

CREATE TABLE IF NOT EXISTS iceberg_namespace_properties (
	catalog_name varchar(255) NOT NULL,
	namespace varchar(255) NOT NULL,
	property_key varchar(255) NOT NULL,
	property_value varchar(1000),
	PRIMARY KEY (catalog_name, namespace, property_key)
);

-- Every file the Iceberg export writes (data files, and the manifests,
-- manifest lists and metadata files iceberg-go writes for it), recorded
-- before the file is created: what an interrupted export or an expired
-- snapshot leaves unreferenced is removed only when it is listed here, so
-- adsync never removes a file it did not write.
CREATE TABLE export_iceberg_files (
	path text PRIMARY KEY,
	output_id uuid NOT NULL REFERENCES export_outputs (output_id),
	run_id bigint NOT NULL,
	written_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX export_iceberg_files_output ON export_iceberg_files (output_id);
