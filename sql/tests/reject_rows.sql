-- on_error='skip': records with errors go to a reject table instead of
-- stopping the import (sq_file_reject.c, sq_ingest.h REJECTING RECORDS).
-- The data files are written by the test itself (cwd is a temporary folder).

SELECT writefile('a.csv', 'id,name,n
1,a,10
2,b,x
3,c
4,d,40
5,"e",50,9
') > 0;
-- => 1
SELECT writefile('a.ndjson', '{"id":1,"n":10}
{"id":2,"n":"x"}
{"id":3,"n":
{"id":4,"n":40}
[1,2]
7
{"id":6,"n":60}
') > 0;
-- => 1

-- ------------------------------------------------------------ CSV
CREATE VIRTUAL TABLE temp.c USING csv_stream(filename='a.csv', columns='id INTEGER, name TEXT, n INTEGER',
    strict=1, on_error=skip, reject_table=rej);
CREATE TABLE t(id, name, n);
INSERT INTO t SELECT * FROM c;
SELECT * FROM t;
-- => 1|a|10
-- => 4|d|40
-- a value strict mode refuses, a short record, a long record: one reject each, with
-- file, line and byte offset of the record, its index, the field, the abort's message, the raw text
SELECT file, line, offset, record, "column", reason, raw, raw_truncated FROM rej ORDER BY rowid;
-- => a.csv|3|17|1|n|csv_stream: a.csv: line 3, byte 21, field 3 (n): 'x' is not an integer, column n is INTEGER (strict mode)|2,b,x|0
-- => a.csv|4|23|2|n|csv_stream: a.csv: line 4, byte 26, field 3 (n): record has 2 fields, the first record has 3|3,c|0
-- => a.csv|6|34|4|NULL|csv_stream: a.csv: line 6, byte 43, field 4: record has 4 fields, the first record has 3|5,"e",50,9|0

-- nothing lost: rows + rejects = records
SELECT (SELECT count(*) FROM t) + (SELECT count(*) FROM rej);
-- => 5

-- the raw text starts at the record's byte offset
SELECT count(*) FROM rej WHERE substr(readfile('a.csv'), "offset" + 1, length(raw)) = CAST(raw AS BLOB);
-- => 3

-- ------------------------------------------------------------ NDJSON
CREATE VIRTUAL TABLE temp.j USING json_stream(filename='a.ndjson', columns='id INTEGER, n INTEGER',
    strict=1, on_error=skip, reject_table=jrej);
SELECT * FROM j;
-- => 1|10
-- => 4|40
-- => 6|60
-- a refused value, a line that ends inside its value, an array and a number (not objects)
SELECT line, offset, record, "column", raw FROM jrej ORDER BY rowid;
-- => 2|16|1|n|{"id":2,"n":"x"}
-- => 3|33|2|NULL|{"id":3,"n":
-- => 5|62|4|NULL|[1,2]
-- => 6|68|5|NULL|7
SELECT reason FROM jrej WHERE record = 1;
-- => json_stream: a.ndjson: line 2, byte 28, element 1, key 'n': 'x' is not an integer, column n is INTEGER (strict mode)

-- a JSON array: a value error is skipped, a syntax error cannot be
SELECT writefile('arr.json', '[{"id":1},{"id":"two"},{"id":3}]') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.ja USING json_stream(filename='arr.json', columns='id INTEGER', strict=1,
    on_error=skip, reject_table=arej);
SELECT id FROM ja;
-- => 1
-- => 3
SELECT record, raw FROM arej;
-- => 1|{"id":"two"}
SELECT writefile('bad.json', '[{"id":1},{"id":2 x},{"id":3}]') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.jb USING json_stream(filename='bad.json', columns='id INTEGER', on_error=skip, reject_table=brej); SELECT id FROM jb;
-- error: a syntax error can be skipped only in NDJSON, at the line end: inside a JSON array the next element cannot be found safely

-- ------------------------------------------------------------ the error budget
CREATE TABLE t1(id, name, n);
CREATE VIRTUAL TABLE temp.c1 USING csv_stream(filename='a.csv', columns='id INTEGER, name TEXT, n INTEGER', strict=1, on_error=skip, reject_table=rej1, max_errors=2); INSERT INTO t1 SELECT * FROM c1;
-- error: csv_stream: more than 2 records rejected (max_errors=2); the last: csv_stream: a.csv: line 6, byte 43, field 4: record has 4 fields
-- abort leaves nothing: no rows, no rejects (the reject table was made, empty, by the CREATE VIRTUAL TABLE)
SELECT count(*) FROM t1;
-- => 0
SELECT count(*) FROM rej1;
-- => 0
-- a fraction of the records read, checked at the end: 3 of 5 > 0.5 × 5
CREATE VIRTUAL TABLE temp.c2 USING csv_stream(filename='a.csv', columns='id INTEGER, name TEXT, n INTEGER', strict=1, on_error=skip, reject_table=rej2, max_errors=0.5); INSERT INTO t1 SELECT * FROM c2;
-- error: csv_stream: 3 of 5 records rejected, more than max_errors=0.5 of them; the last: csv_stream: a.csv: line 6
SELECT count(*) FROM t1;
-- => 0
SELECT count(*) FROM rej2;
-- => 0
CREATE VIRTUAL TABLE temp.c3 USING csv_stream(filename='a.csv', columns='id INTEGER, name TEXT, n INTEGER',
    strict=1, on_error=skip, reject_table=rej3, max_errors=0.6);
INSERT INTO t1 SELECT * FROM c3;
SELECT count(*), (SELECT count(*) FROM rej3) FROM t1;
-- => 2|3

-- ------------------------------------------------------------ 1 % bad records, counted exactly
SELECT writefile('big.csv', 'id,v' || char(10) || (
  WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM k WHERE i < 1000)
  SELECT group_concat(i || ',' || CASE WHEN i % 100 = 0 THEN 'bad' ELSE i * 2 END, char(10)) FROM k)
  || char(10)) > 0;
-- => 1
CREATE VIRTUAL TABLE temp.big USING csv_stream(filename='big.csv', columns='id INTEGER, v INTEGER', strict=1,
    on_error=skip, reject_table=bigrej, max_errors=0.01);
CREATE TABLE bt(id, v);
INSERT INTO bt SELECT * FROM big;
SELECT count(*), sum(v = id * 2), (SELECT count(*) FROM bigrej), (SELECT sum(line = record + 2) FROM bigrej) FROM bt;
-- => 990|990|10|10
SELECT group_concat(raw, ' ') FROM bigrej;
-- => 100,bad 200,bad 300,bad 400,bad 500,bad 600,bad 700,bad 800,bad 900,bad 1000,bad

-- a long record: raw is cut at 4096 bytes and says so
SELECT writefile('long.ndjson', '{"id":"' || printf('%.5000c', 'x') || '"}' || char(10) || '{"id":1}' || char(10)) > 0;
-- => 1
CREATE VIRTUAL TABLE temp.jl USING json_stream(filename='long.ndjson', columns='id INTEGER', strict=1,
    on_error=skip, reject_table=lrej);
SELECT id FROM jl;
-- => 1
SELECT length(raw), raw_truncated FROM lrej;
-- => 4096|1

-- ------------------------------------------------------------ bad options, bad reject tables
SELECT writefile('good.csv', 'id,n
1,2
') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.e1 USING csv_stream(filename='good.csv', on_error=skip);
-- error: csv_stream: on_error='skip' needs reject_table='name': every skipped record gets a row there
CREATE VIRTUAL TABLE temp.e2 USING csv_stream(filename='good.csv', reject_table=r);
-- error: csv_stream: reject_table needs on_error='skip'
CREATE VIRTUAL TABLE temp.e3 USING json_stream(filename='a.ndjson', columns='id', max_errors=3);
-- error: json_stream: max_errors needs on_error='skip'
CREATE VIRTUAL TABLE temp.e4 USING csv_stream(filename='good.csv', on_error=ignore);
-- error: csv_stream: on_error: expected abort or skip, got 'ignore'
CREATE VIRTUAL TABLE temp.e5 USING csv_stream(filename='good.csv', on_error=skip, reject_table=r, max_errors=1.5);
-- error: csv_stream: max_errors: expected a count of records (0, 1, 2…) or a fraction of the records read (0 < F < 1), got '1.5'
CREATE VIEW v AS SELECT 1;
CREATE VIRTUAL TABLE temp.e6 USING csv_stream(filename='good.csv', on_error=skip, reject_table=v);
-- error: csv_stream: reject_table main.v is a view, not a table
CREATE TABLE wrong(file, line);
CREATE VIRTUAL TABLE temp.e7 USING json_stream(filename='a.ndjson', columns='id', on_error=skip, reject_table=wrong);
-- error: json_stream: reject_table main.wrong has no column offset
CREATE VIRTUAL TABLE temp.e8 USING json_stream(filename='a.ndjson', columns='id', on_error=skip, reject_table='nodb.r');
-- error: json_stream: reject_table nodb.r: no such table: nodb.sqlite_schema
-- a reject table in temp, with an extra column of its own
CREATE TABLE temp.tr(file, line, "offset", record, "column", reason, raw, raw_truncated, at DEFAULT 'now');
CREATE VIRTUAL TABLE temp.ok USING json_stream(filename='a.ndjson', columns='id INTEGER, n INTEGER', strict=1,
    on_error=skip, reject_table='temp.tr');
SELECT count(*) FROM ok;
-- => 3
SELECT count(*), min(at) FROM temp.tr;
-- => 4|now

-- ------------------------------------------------------------ bad records in the type-inference sample
-- No columns=: the types come from the first records.  With on_error=skip a record
-- of another field count among them is rejected like any other (file, line, offset,
-- raw) and types nothing: 'x' in the long record 2 does not make n TEXT.
SELECT writefile('inf.csv', 'id,n,s
1,10,a
2,x,b,extra
3
4,40,c
5,5.5,d
') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.inf USING csv_stream(filename='inf.csv', on_error=skip, reject_table=infrej);
SELECT name, type FROM pragma_table_info('inf');
-- => id|INTEGER
-- => n|REAL
-- => s|TEXT
SELECT * FROM inf;
-- => 1|10.0|a
-- => 4|40.0|c
-- => 5|5.5|d
SELECT file, line, offset, record, raw, reason FROM infrej ORDER BY rowid;
-- => inf.csv|3|14|1|2,x,b,extra|csv_stream: inf.csv: line 3, byte 16, field 2 (n): 'x' is not a number a REAL holds, and the column's type REAL was inferred from the first 3 records (declare the column's type to accept such values)
-- => inf.csv|4|26|2|3|csv_stream: inf.csv: line 4, byte 27, field 2 (n): record has 1 field, the first record has 3
-- without on_error=skip the same record stops the CREATE, as it would stop the read
CREATE VIRTUAL TABLE temp.inf_abort USING csv_stream(filename='inf.csv');
-- error: csv_stream: inf.csv: line 3, byte 20, field 4: record has 4 fields, the first record has 3
-- inside the sample a value that does not fit a type is not bad: its column is TEXT
SELECT writefile('inf2.csv', 'id,n
1,10
2,x
3,30
') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.inf2 USING csv_stream(filename='inf2.csv', on_error=skip, reject_table=inf2rej);
SELECT group_concat(name || ' ' || type, ', ') FROM pragma_table_info('inf2');
-- => id INTEGER, n TEXT
SELECT count(*) FROM inf2;
-- => 3
SELECT count(*) FROM inf2rej;
-- => 0
-- after the sample (infer=1: the first record) it is: the record is rejected
CREATE VIRTUAL TABLE temp.inf3 USING csv_stream(filename='inf2.csv', infer=1, on_error=skip, reject_table=inf3rej);
SELECT group_concat(name || ' ' || type, ', ') FROM pragma_table_info('inf3');
-- => id INTEGER, n INTEGER
SELECT * FROM inf3;
-- => 1|10
-- => 3|30
SELECT line, raw FROM inf3rej;
-- => 3|2,x
-- broken quoting in the sample stops the CREATE with on_error=skip too (as it stops a read:
-- the next record's start is unknown)
SELECT writefile('inf4.csv', 'id,n
1,1"0
2,20
') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.inf4 USING csv_stream(filename='inf4.csv', on_error=skip, reject_table=inf4rej);
-- error: csv_stream: inf4.csv: line 2, byte 8, field 2 (n): quote character inside an unquoted field

-- ------------------------------------------------------------ the table-valued functions: no rejecting
-- A function's arguments are values of the statement, which may come from a table's rows
-- (a database file someone else made could then name the table to write), and a SELECT
-- writes no table: on_error, max_errors and reject_table belong to the typed tables.
SELECT count(*) FROM csv_stream('a.csv', 'on_error=skip, reject_table=fr');
-- error: csv_stream: on_error is an option of the typed table (CREATE VIRTUAL TABLE temp.name USING csv_stream(filename=…, on_error=skip, reject_table=…)), not of the function: a SELECT writes no table, and a function's arguments may come from the rows of a table
SELECT count(*) FROM csv_stream('a.csv', 'header=1, reject_table=fr');
-- error: csv_stream: reject_table is an option of the typed table
SELECT count(*) FROM csv_stream('a.csv', 'max_errors=3');
-- error: csv_stream: max_errors is an option of the typed table
SELECT count(*) FROM json_stream('a.ndjson', 'on_error=skip');
-- error: json_stream: on_error is an option of the typed table (CREATE VIRTUAL TABLE temp.name USING json_stream(filename=…, on_error=skip, reject_table=…)), not of the function
CREATE TABLE jobs(file, opts);
INSERT INTO jobs VALUES ('a.csv', 'on_error=skip, reject_table=main.t');
SELECT count(*) FROM jobs, csv_stream(jobs.file, jobs.opts);
-- error: csv_stream: on_error is an option of the typed table
SELECT count(*) FROM sqlite_schema WHERE name = 'fr';
-- => 0
-- the functions still stop on a bad record
SELECT count(*) FROM csv_stream('a.csv');
-- error: csv_stream: a.csv: line 4, byte 26, field 3 (n): record has 2 fields, the first record has 3

-- ------------------------------------------------------------ never from a database file someone else made
-- A typed table (the only form that writes rejects) lives in the temp schema: one planted
-- in the file, with a reject table of its choosing, is refused before anything is read
-- or written, whatever trusted_schema says.  (Each error case runs in a new process.)
PRAGMA writable_schema = ON;
INSERT INTO sqlite_master(type, name, tbl_name, rootpage, sql) VALUES
  ('table', 'planted', 'planted', 0,
   'CREATE VIRTUAL TABLE planted USING csv_stream(filename=''a.csv'', on_error=skip, reject_table=main.stolen)');
PRAGMA writable_schema = OFF;
SELECT * FROM planted;
-- error: csv_stream: table main.planted: csv_stream tables read files, so they can only live in the temp schema
PRAGMA trusted_schema = ON; SELECT * FROM planted;
-- error: csv_stream: table main.planted
SELECT count(*) FROM sqlite_schema WHERE name = 'stolen';
-- => 0
CREATE VIRTUAL TABLE main.mine USING csv_stream(filename='a.csv', on_error=skip, reject_table=r9);
-- error: csv_stream: table main.mine: csv_stream tables read files, so they can only live in the temp schema

-- asking for rejects makes a value that does not fit its column a reject (not TEXT in an
-- INTEGER column), unless strict=0 is said; the same for json_stream
SELECT writefile('fit.csv', 'a,b
1,x
x50,y
3,z
') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.fit USING csv_stream(filename='fit.csv', columns='a INTEGER, b TEXT', on_error=skip, reject_table=fitrej); SELECT a, typeof(a), b FROM fit;
-- => 1|integer|x
-- => 3|integer|z
SELECT line, reason FROM fitrej;
-- => 3|csv_stream: fit.csv: line 3, byte 8, field 1 (a): 'x50' is not an integer, column a is INTEGER (strict mode)
CREATE VIRTUAL TABLE temp.fit0 USING csv_stream(filename='fit.csv', columns='a INTEGER, b TEXT', on_error=skip, reject_table=fitrej0, strict=0); SELECT a, typeof(a) FROM fit0;
-- => 1|integer
-- => x50|text
-- => 3|integer
SELECT writefile('fit.csv', 'a,b,extra
1,x,ignored
') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.fitx USING csv_stream(filename='fit.csv', columns='a INTEGER, b TEXT', on_error=skip, reject_table=fitrejx); SELECT a, b FROM fitx;
-- => 1|x
SELECT writefile('fit.ndjson', '{"a":1,"b":"x"}
{"a":"x50","b":"y"}
{"a":3,"b":"z","extra":true}
') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.jfit USING json_stream(filename='fit.ndjson', columns='a INTEGER, b TEXT', on_error=skip, reject_table=jfitrej); SELECT a, typeof(a), b FROM jfit;
-- => 1|integer|x
-- => 3|integer|z
SELECT count(*) FROM jfitrej;
-- => 1

-- ------------------------------------------------------------ made with the virtual table
-- the reject table is made by CREATE VIRTUAL TABLE, not while a scan runs, so a
-- CREATE TABLE … AS SELECT may read the typed table (a reject table in temp
-- failed with "abort due to ROLLBACK"), and naming the reject table as the new
-- table is "already exists" (it made a second table of that name)
CREATE VIRTUAL TABLE temp.ct USING csv_stream(filename='a.csv', columns='id INTEGER, name TEXT, n INTEGER', strict=1, on_error=skip, reject_table=temp.ctrej); SELECT count(*) FROM temp.ctrej; CREATE TABLE ctas AS SELECT * FROM ct; SELECT count(*) FROM ctas; SELECT count(*) FROM temp.ctrej;
-- => 0
-- => 2
-- => 3
CREATE VIRTUAL TABLE temp.ct2 USING csv_stream(filename='a.csv', columns='id INTEGER, name TEXT, n INTEGER', strict=1, on_error=skip, reject_table=ctrej3); CREATE TABLE ctrej3 AS SELECT * FROM ct2;
-- error: table ctrej3 already exists
-- dropped after the virtual table was made: a reading statement makes it again, a writing one says what to do
CREATE VIRTUAL TABLE temp.ct3 USING csv_stream(filename='a.csv', columns='id INTEGER, name TEXT, n INTEGER', strict=1, on_error=skip, reject_table=temp.ctrej4); DROP TABLE temp.ctrej4; CREATE TABLE ctas2 AS SELECT * FROM ct3;
-- error: csv_stream: reject_table temp.ctrej4 was dropped after the virtual table was made: make the virtual table again (it makes the reject table) or the reject table itself before a statement that writes reads it
CREATE VIRTUAL TABLE temp.ct3 USING csv_stream(filename='a.csv', columns='id INTEGER, name TEXT, n INTEGER', strict=1, on_error=skip, reject_table=temp.ctrej4); DROP TABLE temp.ctrej4; SELECT count(*) FROM ct3; SELECT count(*) FROM temp.ctrej4;
-- => 2
-- => 3
