-- json_stream and csv_stream over several files in one call: a glob or a
-- JSON array of names (sq_files.h), read in order, the filename column,
-- columns matched by name across files, errors naming the file.
-- The data files are written by the test itself (cwd is a temporary folder).

SELECT writefile('day-2.csv', 'name,id,extra
c,3,x
d,4,y
') + writefile('day-1.csv', 'id,name
1,a
2,b
') + writefile('day-3.csv', 'id
5
') > 0;
-- => 1

-- a glob: the files sorted by name, each with its own header; idx, line and
-- offset count within the file, the hidden filename names each row's file
SELECT filename, idx, line, offset, value FROM csv_stream('day-*.csv');
-- => day-1.csv|0|2|8|{"id":"1","name":"a"}
-- => day-1.csv|1|3|12|{"id":"2","name":"b"}
-- => day-2.csv|0|2|14|{"name":"c","id":"3","extra":"x"}
-- => day-2.csv|1|3|20|{"name":"d","id":"4","extra":"y"}
-- => day-3.csv|0|2|3|{"id":"5"}

-- the rowid counts rows over all files
SELECT group_concat(rowid) FROM csv_stream('day-?.csv');
-- => 0,1,2,3,4

-- a JSON array of names: in the list's order; an entry may be a glob
SELECT filename, count(*) FROM csv_stream('["day-3.csv", "day-[12].csv"]') GROUP BY filename ORDER BY min(rowid);
-- => day-3.csv|1
-- => day-1.csv|2
-- => day-2.csv|2
SELECT count(*) FROM csv_stream(json_array('day-1.csv', 'day-1.csv'));
-- => 4
-- (a list begins with '[': with a blank before it, the name is a glob)
SELECT DISTINCT filename FROM csv_stream(' ["day-1.csv"]');
-- error: csv_stream:  ["day-1.csv"]: no file matches

-- options apply to every file
SELECT count(*) FROM csv_stream('day-*.csv', 'header=0');
-- => 8

-- ---------------------------------------------------------------- typed tables
-- columns matched by header name in each file: a missing one is NULL, an extra
-- header name is ignored; filename is a hidden column
CREATE VIRTUAL TABLE temp.days USING csv_stream(filename='day-*.csv', columns='id INTEGER, name TEXT');
SELECT * FROM days;
-- => 1|a
-- => 2|b
-- => 3|c
-- => 4|d
-- => 5|NULL
SELECT filename, id FROM days WHERE name IS NULL;
-- => day-3.csv|5
CREATE TABLE stored(id INTEGER, name TEXT);
INSERT INTO stored SELECT * FROM days;
SELECT count(*), sum(id) FROM stored;
-- => 5|15

-- strict=1: a header name without a column is an error naming the file
CREATE VIRTUAL TABLE temp.strict_days USING csv_stream(filename='day-*.csv', columns='id INTEGER, name TEXT', strict=1); SELECT count(*) FROM strict_days;
-- error: csv_stream: day-2.csv: line 2, byte 18, field 3 (extra): field 3 has no column (strict mode)

-- a column named filename is the file's data: no hidden column then
SELECT writefile('named.csv', 'filename,n
x.txt,1
') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.named USING csv_stream(filename='name?.csv', columns='filename TEXT, n INTEGER');
SELECT filename, n FROM named;
-- => x.txt|1

-- without columns=, the columns and their types come from the first file;
-- the other files are matched by name and checked against the inferred types
CREATE VIRTUAL TABLE temp.inferred USING csv_stream(filename='day-*.csv');
SELECT * FROM inferred;
-- => 1|a
-- => 2|b
-- => 3|c
-- => 4|d
-- => 5|NULL
SELECT name, type FROM pragma_table_xinfo('inferred');
-- => id|INTEGER
-- => name|TEXT
-- => filename|
SELECT writefile('day-4.csv', 'name,id
e,6
f,6.5
') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.inferred4 USING csv_stream(filename='day-*.csv'); SELECT count(*) FROM inferred4;
-- error: csv_stream: day-4.csv: line 3, byte 14, field 2 (id): '6.5' is not an integer
SELECT writefile('day-4.csv', '') > 0;
-- => 0

-- a name holding '[', '*' or '?' that matches nothing as a pattern names
-- the file of that very name, as a shell does; escaped, it always does
SELECT writefile('q[1].csv', 'a
1
') + writefile('w*.csv', 'a
2
') > 0;
-- => 1
SELECT value FROM csv_stream('q[1].csv');
-- => {"a":"1"}
SELECT value FROM csv_stream('w\*.csv');
-- => {"a":"2"}
CREATE VIRTUAL TABLE temp.odd USING csv_stream(filename='q[1].csv', columns='a INTEGER'); SELECT a FROM odd;
-- => 1
SELECT count(*) FROM csv_stream('z[1].csv');
-- error: csv_stream: z[1].csv: no file matches (a name holding '*', '?' or '[' is a pattern: write '\*', '\?' or '\[' for the character itself)

-- ---------------------------------------------------------------- errors
-- a glob matching nothing is an error, not zero rows
SELECT count(*) FROM csv_stream('night-*.csv');
-- error: csv_stream: night-*.csv: no file matches
CREATE VIRTUAL TABLE temp.none USING csv_stream(filename='night-*.csv');
-- error: csv_stream: night-*.csv: no file matches
CREATE VIRTUAL TABLE temp.none USING csv_stream(filename='night-*.csv', columns='a TEXT'); SELECT count(*) FROM none;
-- error: csv_stream: night-*.csv: no file matches
SELECT count(*) FROM json_stream('["day-1.csv", "night-*.json"]');
-- error: json_stream: night-*.json: no file matches

-- lists that are not JSON arrays of names
SELECT count(*) FROM csv_stream('[]');
-- error: csv_stream: []: not a JSON array of file names: an empty list names no file
SELECT count(*) FROM csv_stream('["day-1.csv" "day-2.csv"]');
-- error: csv_stream: ["day-1.csv" "day-2.csv"]: not a JSON array of file names: expected ',' or ']' in the list
SELECT count(*) FROM csv_stream('["day-1.csv", 7]');
-- error: not a JSON array of file names: expected a JSON array of file names
SELECT count(*) FROM csv_stream('["day-1.csv"] x');
-- error: not a JSON array of file names: text after the list
SELECT count(*) FROM csv_stream('["day-1.csv", ""]');
-- error: csv_stream: : an empty file name
SELECT count(*) FROM csv_stream('["a\u0000b"]');
-- error: a NUL character in a name
SELECT count(*) FROM csv_stream('["day-1.csv');
-- error: a string is not closed

-- a directory, a dangling symlink (an unreadable file), both named
SELECT writefile('logs', NULL, 16877) IS NULL;
-- => 1
SELECT writefile('logs/a.csv', 'x
1
') > 0;
-- => 1
SELECT writefile('logs/b.csv', 'nowhere.csv', 41471) IS NULL;
-- => 1
SELECT count(*) FROM csv_stream('log*');
-- error: csv_stream: logs: cannot read: is a directory
SELECT count(*) FROM csv_stream('logs/*.csv');
-- error: csv_stream: logs/b.csv: cannot open: No such file or directory

-- mixed formats: the format's error, naming the file
SELECT writefile('mixed-1.csv', 'a,b
1,2
') + writefile('mixed-2.csv', '{"a": 1, "b": 2}
') > 0;
-- => 1
SELECT count(*) FROM csv_stream('mixed-*.csv');
-- error: csv_stream: mixed-2.csv: line 1, byte 1, field 1: quote character inside an unquoted field

-- positions are per file
SELECT writefile('pos-1.csv', 'a
1
2
') + writefile('pos-2.csv', 'a
3
"4
') > 0;
-- => 1
SELECT count(*) FROM csv_stream('pos-*.csv');
-- error: csv_stream: pos-2.csv: line 3, byte 4, field 1 (a): unterminated quoted field
CREATE TABLE pos(a INTEGER);
CREATE VIRTUAL TABLE temp.pos_in USING csv_stream(filename='pos-*.csv', columns='a INTEGER'); INSERT INTO pos SELECT * FROM pos_in;
-- error: csv_stream: pos-2.csv: line 3, byte 4, field 1 (a): unterminated quoted field
SELECT count(*) FROM pos;
-- => 0

-- a plain name is that file; '\' makes a glob character literal
SELECT writefile('star*.csv', 'v
literal
') + writefile('star-1.csv', 'v
globbed
') > 0;
-- => 1
SELECT group_concat(value->>'v') FROM csv_stream('star*.csv');
-- => literal,globbed
SELECT group_concat(value->>'v') FROM csv_stream('star\*.csv');
-- => literal
SELECT group_concat(filename) FROM csv_stream('["star\\*.csv"]');
-- => star*.csv
SELECT count(*) FROM csv_stream('missing.csv');
-- error: csv_stream: missing.csv: cannot open: No such file or directory

-- ---------------------------------------------------------------- json_stream
SELECT writefile('ev-b.ndjson', '{"id": 3, "kind": "x"}
{"id": 4}
') + writefile('ev-a.ndjson', '{"id": 1, "kind": "a", "more": true}
{"id": 2, "kind": "b"}
') + writefile('ev-c.json', '[{"kind": "c", "id": 5}]') > 0;
-- => 1
SELECT filename, idx, line, value FROM json_stream('ev-*');
-- => ev-a.ndjson|0|1|{"id":1,"kind":"a","more":true}
-- => ev-a.ndjson|1|2|{"id":2,"kind":"b"}
-- => ev-b.ndjson|0|1|{"id":3,"kind":"x"}
-- => ev-b.ndjson|1|2|{"id":4}
-- => ev-c.json|0|1|{"kind":"c","id":5}
CREATE VIRTUAL TABLE temp.ev USING json_stream(filename='ev-*', columns='id INTEGER, kind TEXT');
SELECT filename, id, kind FROM ev;
-- => ev-a.ndjson|1|a
-- => ev-a.ndjson|2|b
-- => ev-b.ndjson|3|x
-- => ev-b.ndjson|4|NULL
-- => ev-c.json|5|c
SELECT writefile('ev-d.json', '[{"id": 6}, {"id": 7,}]') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.ev2 USING json_stream(filename='ev-*', columns='id INTEGER, kind TEXT'); SELECT count(*) FROM ev2;
-- error: json_stream: ev-d.json: line 1, byte 21, element 1: trailing comma in an object
SELECT count(*) FROM json_stream('["ev-a.ndjson", "day-1.csv"]');
-- error: json_stream: day-1.csv: line 1
