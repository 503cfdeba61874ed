-- The batch half of the cluster test (ci/cluster-test.sh): writes 10,000 generated rows through an
-- isthmus-iceberg catalog and reads them back with an aggregate the script compares with numbers it
-- computes itself. Strict: any write or read that would fall back to Iceberg's fails the job.
CREATE CATALOG lake WITH (
  'type'='isthmus-iceberg',
  'catalog-type'='hadoop',
  'warehouse'='${warehouse}',
  'isthmus.strict'='true'
);
CREATE DATABASE lake.db;
CREATE TABLE lake.db.events (id BIGINT, qty INT, label STRING);
-- id runs over 0..9999: the digits of four single-digit tables, cross-joined.
INSERT INTO lake.db.events
SELECT id,
       CAST(MOD(id * 7, 100) AS INT),
       CASE WHEN MOD(id, 10) = 0 THEN CAST(NULL AS STRING) ELSE CONCAT('k', CAST(MOD(id, 13) AS STRING)) END
FROM (
  SELECT CAST(a.d * 1000 + b.d * 100 + c.d * 10 + e.d AS BIGINT) AS id
  FROM (VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)) AS a(d),
       (VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)) AS b(d),
       (VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)) AS c(d),
       (VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)) AS e(d)
);
SELECT COUNT(*), SUM(id), SUM(qty), COUNT(label), COUNT(DISTINCT label) FROM lake.db.events;
-- Upserts: native data files beside Iceberg's equality deletes. A task with delete files is read
-- by Iceberg's reader, so that read is not strict.
CREATE TABLE lake.db.latest (id BIGINT, qty INT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('format-version'='2', 'write.upsert.enabled'='true');
INSERT INTO lake.db.latest SELECT id, qty FROM lake.db.events;
INSERT INTO lake.db.latest SELECT id, qty + 1000 FROM lake.db.events WHERE id < 1000;
SELECT COUNT(*), SUM(qty) FROM lake.db.latest /*+ OPTIONS('isthmus.strict'='false') */;
