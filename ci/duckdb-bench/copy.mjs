// DuckDB's single-threaded COPY of the bids (already in memory) to Parquet at zstd level 3.
import { DuckDBInstance } from '@duckdb/node-api';
const file = process.argv[2];
const runs = Number(process.argv[3] ?? 7);
const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await db.connect();
await con.run(`CREATE TABLE bids AS SELECT * FROM read_parquet('${file}')`);
const times = [];
for (let i = 0; i < runs; i++) {
  const t = process.hrtime.bigint();
  await con.run(`COPY bids TO '/tmp/duckdb-bids.parquet' (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 3)`);
  times.push(Number(process.hrtime.bigint() - t) / 1e6);
}
times.sort((a, b) => a - b);
const size = (await (await con.run(`SELECT sum(total_compressed_size) FROM parquet_metadata('/tmp/duckdb-bids.parquet')`)).getRows())[0][0];
console.log(JSON.stringify({ median_ms: times[Math.floor(times.length / 2)], min_ms: times[0], runs_ms: times,
  compressed_column_bytes: String(size) }));
