// Reads Parquet files with DuckDB (a reader adsync did not write) and prints,
// as JSON, each file's row count and column types, plus optional query results.
// Usage: node duckdb_check.mjs '{"files":[...],"queries":{"name":"SQL"}}'
import { DuckDBInstance } from '@duckdb/node-api';

const req = JSON.parse(process.argv[2]);
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const quote = (s) => "'" + s.replaceAll("'", "''") + "'";
const out = { files: [], queries: {}, millis: {}, cpu_millis: {} };
for (const f of req.files ?? []) {
  const count = await con.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM read_parquet(${quote(f)})`);
  const desc = await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${quote(f)})`);
  out.files.push({
    file: f,
    rows: Number(count.getRowObjectsJson()[0].n),
    columns: desc.getRowObjectsJson().map((r) => ({ name: r.column_name, type: r.column_type })),
  });
}
for (const [name, sql] of Object.entries(req.queries ?? {})) {
  const start = performance.now();
  const cpu0 = process.cpuUsage(); // every thread of the process, DuckDB's too
  const r = await con.runAndReadAll(sql);
  out.millis[name] = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  out.cpu_millis[name] = (cpu.user + cpu.system) / 1000;
  out.queries[name] = r.getRowObjectsJson();
}
console.log(JSON.stringify(out));
