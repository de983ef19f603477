-- Sample data for the demo: a Usage table spanning the 2010/2011 New Year
-- (2010-12-13 .. 2011-01-23), three facets, one row per facet and day,
-- with deterministic pseudo-random values.
DROP TABLE IF EXISTS Usage;
CREATE TABLE Usage(FacetId TEXT, Value INTEGER, Visits INTEGER, Date DATETIME);
WITH RECURSIVE days(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM days WHERE n < 41),
     facets(f, k) AS (VALUES ('search', 1), ('browse', 2), ('checkout', 3))
INSERT INTO Usage(FacetId, Value, Visits, Date)
SELECT f,
       100 + (n * 37 * k) % 91,                       -- Value
       10 + (n * 13 + k * 7) % 17,                    -- Visits
       strftime('%Y-%m-%d %H:%M:%S', '2010-12-13', '+' || n || ' days', '+' || (8 + (n * k) % 10) || ' hours')
  FROM days, facets;
