// Runs SQL with DuckDB (its Node API, pinned in package.json) in the current
// directory and prints each result as a table: `make duckdb SQL="..."` for
// machines without the DuckDB CLI.
// Usage: node duckdb_query.mjs 'SQL'
import { DuckDBInstance } from '@duckdb/node-api';

const sql = process.argv[2];
if (!sql) {
  console.error('usage: make duckdb SQL="SELECT ..."');
  process.exit(2);
}
let con;
try {
  const inst = await DuckDBInstance.create(':memory:');
  con = await inst.connect();
  const r = await con.runAndReadAll(sql);
  const cols = r.columnNames();
  const rows = r.getRowsJson().map((row) => row.map((v) => (v === null ? 'NULL' : typeof v === 'string' ? v : JSON.stringify(v))));
  const widths = cols.map((c, i) => Math.max(c.length, ...rows.map((row) => row[i].length)));
  const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  if (cols.length > 0) {
    console.log(line(cols));
    for (const row of rows) console.log(line(row));
    console.log(`(${rows.length} ${rows.length === 1 ? 'row' : 'rows'})`);
  }
} catch (e) {
  console.error(`duckdb: ${e.message}`);
  process.exit(1);
}
