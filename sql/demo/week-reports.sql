-- Weekly reports beyond the week key (docs/sql/weeks-reports.md): empty weeks
-- filled and labelled, and a retail (NRF 4-5-4) calendar report.
.mode box

-- Orders: a few a week through January 2024, none in two weeks of it
DROP TABLE IF EXISTS Orders;
CREATE TABLE Orders(Day TEXT, Amount INTEGER);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 120)
INSERT INTO Orders SELECT date('2023-11-01', '+' || (i * 5 % 100) || ' days'), 20 + (i * 37) % 80
  FROM n WHERE date('2023-11-01', '+' || (i * 5 % 100) || ' days') NOT BETWEEN '2024-01-07' AND '2024-01-20';

.print
.print 4. Weekly orders in January 2024, every week shown (the two without
.print    orders as 0), labelled as en_US writes a week, and German (with
.print    Sunday as its first day: de_DE@fw=sun)
SELECT w.week, w.label AS "en_US", locale_week_label(w.week_start, 'de_DE@fw=sun') AS "de_DE@fw=sun",
       count(o.Day) AS orders, coalesce(sum(o.Amount), 0) AS amount
  FROM locale_weeks('2024-01-01', '2024-01-31', 'en_US') AS w
  LEFT JOIN Orders AS o ON o.Day BETWEEN w.week_start AND w.week_end
 GROUP BY w.week ORDER BY w.week;

.print
.print 5. The same orders in the NRF retail calendar (4-5-4; fiscal 2023 is a
.print    53-week year, so its last period, January, has 5 weeks)
SELECT fiscal_year(Day, 'nrf') AS "fiscal year", fiscal_quarter(Day, 'nrf') AS quarter,
       fiscal_period(Day, 'nrf') AS period,
       fiscal_period_start(Day, 'nrf') || ' .. ' || fiscal_period_end(Day, 'nrf') AS days,
       count(DISTINCT fiscal_week(Day, 'nrf')) AS "weeks with orders",
       count(*) AS orders, sum(Amount) AS amount
  FROM Orders GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
