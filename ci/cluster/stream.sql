-- The streaming half of the cluster test (ci/cluster-test.sh): a native read of the table the
-- batch half wrote that keeps running (Iceberg's streaming mode), so that its metrics stay on the
-- REST API until the script has read them and cancels the job.
CREATE TEMPORARY TABLE discard (id BIGINT, qty INT, label STRING) WITH ('connector'='blackhole');
CREATE CATALOG lake WITH (
  'type'='isthmus-iceberg',
  'catalog-type'='hadoop',
  'warehouse'='${warehouse}',
  'isthmus.strict'='true'
);
INSERT INTO discard
SELECT * FROM lake.db.events /*+ OPTIONS('streaming'='true', 'monitor-interval'='1s') */;
