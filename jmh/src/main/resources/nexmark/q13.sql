-- Nexmark q13 (nexmark/nexmark@6b3646c, Apache-2.0); changes:
-- side_input is the in-memory lookup connector nexmark-side-input (rows (i, 'i'), i < 10000), not the legacy filesystem CSV descriptor Flink 2 removed; its TODO is dropped.
-- -------------------------------------------------------------------------------------------------
-- Query 13: Bounded Side Input Join (Not in original suite)
-- -------------------------------------------------------------------------------------------------
-- Joins a stream to a bounded side input, modeling basic stream enrichment.
-- -------------------------------------------------------------------------------------------------

CREATE TEMPORARY TABLE side_input (key BIGINT, `value` VARCHAR) WITH ('connector' = 'nexmark-side-input', 'rows' = '10000');

CREATE TABLE nexmark_q13 (
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  `dateTime`  TIMESTAMP(3),
  `value`  VARCHAR
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_q13
SELECT
    B.auction,
    B.bidder,
    B.price,
    B.`dateTime`,
    S.`value`
FROM (SELECT *, PROCTIME() as p_time FROM bid) B
JOIN side_input FOR SYSTEM_TIME AS OF B.p_time AS S
ON mod(B.auction, 10000) = S.key;
