// DuckDB's single-threaded scan of the bids file, touching every column (for docs/benchmarks.md).
import { DuckDBInstance } from '@duckdb/node-api';
const file = process.argv[2];
const runs = Number(process.argv[3] ?? 10);
const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await db.connect();
const sql = `SELECT count(*), sum(auction), sum(bidder), sum(price), sum(length(channel)), sum(length(url)),
  sum(length(extra)), max(dateTime) FROM read_parquet('${file}')`;
const times = [];
let result;
for (let i = 0; i < runs; i++) {
  const t = process.hrtime.bigint();
  result = await (await con.run(sql)).getRows();
  times.push(Number(process.hrtime.bigint() - t) / 1e6);
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ duckdb: (await (await con.run('select version()')).getRows())[0][0], rows: String(result[0][0]),
  median_ms: times[Math.floor(times.length / 2)], min_ms: times[0], runs_ms: times }));
