-- json_stream: rows from JSON arrays, paths, NDJSON, typed columns, errors.
-- The data files are written by the test itself (cwd is a temporary folder).

SELECT writefile('tasks.json', '[
  {"id": 1, "title": "milk", "done": true, "tags": ["a", "b"]},
  {"id": 2, "title": "eggs \"large\"", "done": false, "extra": {"k": [1, 2.5e3]}},
  {"title": "no id", "done": null}
]') > 0;
-- => 1

-- one row per element, with index, line and byte offset; value is minified JSON
SELECT idx, line, offset, value FROM json_stream('tasks.json');
-- => 0|2|4|{"id":1,"title":"milk","done":true,"tags":["a","b"]}
-- => 1|3|68|{"id":2,"title":"eggs \"large\"","done":false,"extra":{"k":[1,2.5e3]}}
-- => 2|4|151|{"title":"no id","done":null}

-- ->> and json_each work on value
SELECT value->>'id', value->>'title', value->>'done' FROM json_stream('tasks.json');
-- => 1|milk|1
-- => 2|eggs "large"|0
-- => NULL|no id|NULL

SELECT j.value FROM json_stream('tasks.json') AS t, json_each(t.value, '$.tags') AS j;
-- => a
-- => b

-- value carries the JSON subtype: json_array() embeds it as JSON, not as a string
SELECT json_array(value) FROM json_stream('tasks.json') WHERE idx = 0;
-- => [{"id":1,"title":"milk","done":true,"tags":["a","b"]}]

-- scalars are JSON text too (strings keep their quotes)
SELECT writefile('scalars.json', '[1, -2.5, "x\ty", true, null, [], {}]') > 0;
-- => 1
SELECT idx, value, value->>'$' FROM json_stream('scalars.json');
-- => 0|1|1
-- => 1|-2.5|-2.5
-- => 2|"x\ty"|x	y
-- => 3|true|1
-- => 4|null|NULL
-- => 5|[]|[]
-- => 6|{}|{}

-- hidden argument columns
SELECT DISTINCT filename, path FROM json_stream('tasks.json', '$');
-- => tasks.json|$

-- an empty array: no rows
SELECT writefile('empty.json', ' [ ] ') > 0;
-- => 1
SELECT count(*) FROM json_stream('empty.json');
-- => 0

-- a BOM at the start is accepted (offsets count it)
SELECT writefile('bom.json', x'efbbbf' || CAST('[7]' AS BLOB)) > 0;
-- => 1
SELECT offset, value FROM json_stream('bom.json');
-- => 4|7

-- ---------------------------------------------------------------- paths
SELECT writefile('doc.json', '{"meta": {"n": 2, "items": "not this"},
 "data": {"skip": [9, 9], "items": [{"a": 1}, {"a": 2}]},
 "rows": [[10, 11], [20, 21, {"b": ["x", "y"]}]],
 "odd key.": [true]}') > 0;
-- => 1
SELECT idx, value FROM json_stream('doc.json', '$.data.items');
-- => 0|{"a":1}
-- => 1|{"a":2}
SELECT value FROM json_stream('doc.json', '$.rows[1]');
-- => 20
-- => 21
-- => {"b":["x","y"]}
SELECT value FROM json_stream('doc.json', '$.rows[1][2].b');
-- => "x"
-- => "y"
SELECT value FROM json_stream('doc.json', '$."odd key."');
-- => true
SELECT idx, line FROM json_stream('doc.json', '$.rows');
-- => 0|3
-- => 1|3

SELECT * FROM json_stream('doc.json', '$.data.nothing');
-- error: json_stream: doc.json: path '$.data.nothing' not found

SELECT * FROM json_stream('doc.json', '$.meta');
-- error: json_stream: doc.json: line 1, byte 9: path '$.meta' selects an object, not an array

SELECT * FROM json_stream('doc.json', '$.meta.items');
-- error: path '$.meta.items' selects a scalar, not an array

SELECT * FROM json_stream('doc.json', 'data.items');
-- error: json_stream: invalid path 'data.items'

SELECT * FROM json_stream('doc.json', '$.rows[x]');
-- error: json_stream: invalid path '$.rows[x]'

-- ---------------------------------------------------------------- NDJSON
SELECT writefile('tasks.ndjson', '{"id": 1, "title": "a"}
{"id": 2, "title": "b"}

{"id": 3, "title": "c"}
') > 0;
-- => 1
SELECT idx, line, offset, value->>'title' FROM json_stream('tasks.ndjson');
-- => 0|1|0|a
-- => 1|2|24|b
-- => 2|4|49|c

-- lines that are arrays: force NDJSON with the path 'ndjson'
SELECT writefile('arrays.ndjson', '[1, 2]
[3]
') > 0;
-- => 1
SELECT idx, value FROM json_stream('arrays.ndjson', 'ndjson');
-- => 0|[1,2]
-- => 1|[3]
SELECT * FROM json_stream('arrays.ndjson');
-- error: more than one top-level value after the top-level array (for NDJSON whose lines are arrays, pass 'ndjson' as the path)

-- NDJSON values must be separated by newlines
SELECT writefile('oneline.ndjson', '{"a":1} {"a":2}') > 0;
-- => 1
SELECT * FROM json_stream('oneline.ndjson');
-- error: json_stream: oneline.ndjson: line 1, byte 8, element 1: expected a newline between top-level values

-- ---------------------------------------------------------------- typed columns
CREATE VIRTUAL TABLE temp.incoming USING json_stream(
  filename='tasks.json',
  columns='id INTEGER, name TEXT, done INTEGER, tags, extra TEXT',
  keys='name=title');

SELECT id, name, done, tags, extra FROM incoming;
-- => 1|milk|1|["a","b"]|NULL
-- => 2|eggs "large"|0|NULL|{"k":[1,2.5e3]}
-- => NULL|no id|NULL|NULL|NULL

SELECT typeof(id), typeof(name), typeof(done), typeof(tags) FROM incoming WHERE id = 1;
-- => integer|text|integer|text

-- nested values keep the JSON subtype
SELECT json_array(tags) FROM incoming WHERE id = 1;
-- => [["a","b"]]

CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT, done INTEGER);
INSERT INTO tasks SELECT id, name, done FROM incoming WHERE id IS NOT NULL;
SELECT * FROM tasks ORDER BY id;
-- => 1|milk|1
-- => 2|eggs "large"|0

-- numbers (the ingest core's one coercion table, as importJSON's): INTEGER
-- keeps 64-bit integers, a bigger one stays its literal as TEXT (an
-- INTEGER table column then stores it as REAL, a TEXT one exactly);
-- TEXT keeps the literal; REAL converts, also a string that is a number
SELECT writefile('nums.json', '[{"i": 9223372036854775807, "t": 1.50, "r": 3},
 {"i": 9223372036854775808, "t": 12345678901234567890123, "r": -0.5},
 {"i": 2.5, "t": "s", "r": "7"}]') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.nums USING json_stream(filename="nums.json", columns='i INT, t VARCHAR(30), r DOUBLE');
SELECT i, typeof(i), t, typeof(t), r, typeof(r) FROM nums;
-- => 9223372036854775807|integer|1.50|text|3.0|real
-- => 9223372036854775808|text|12345678901234567890123|text|-0.5|real
-- => 2.5|real|s|text|7.0|real
CREATE TABLE nums_t(i INTEGER, t TEXT, r REAL);
INSERT INTO nums_t SELECT * FROM nums;
SELECT i, typeof(i) FROM nums_t;
-- => 9223372036854775807|integer
-- => 9.22337203685478e+18|real
-- => 2.5|real

-- NDJSON and paths work with typed columns too
CREATE VIRTUAL TABLE temp.nd USING json_stream(filename='tasks.ndjson', columns='title TEXT, id INTEGER');
SELECT * FROM nd;
-- => a|1
-- => b|2
-- => c|3
CREATE VIRTUAL TABLE temp.items USING json_stream(filename='doc.json', path='$.data.items', columns='a INTEGER');
SELECT sum(a) FROM items;
-- => 3

-- an empty string is '' (not NULL), also in the first row, before any
-- other text was stored, and when a field is always ""
SELECT writefile('empty_str.json', '[{"id":1,"name":""},{"id":2,"name":"x"},{"id":3,"name":""}]') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.es USING json_stream(filename='empty_str.json', columns='id INTEGER, name TEXT');
SELECT id, quote(name), typeof(name) FROM es;
-- => 1|''|text
-- => 2|'x'|text
-- => 3|''|text
SELECT writefile('always_empty.json', '[{"a":""},{"a":""}]') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.ae USING json_stream(filename='always_empty.json', columns='a TEXT');
CREATE TABLE not_null_t(a TEXT NOT NULL);
INSERT INTO not_null_t SELECT a FROM ae;
SELECT count(*), quote(min(a)) FROM not_null_t;
-- => 2|''
-- an empty string in a column without affinity, and the untyped value
CREATE VIRTUAL TABLE temp.ae2 USING json_stream(filename='always_empty.json', columns='a');
SELECT quote(a) FROM ae2;
-- => ''
-- => ''
SELECT value, quote(value->>'$.a') FROM json_stream('always_empty.json');
-- => {"a":""}|''
-- => {"a":""}|''

-- one key, several columns: every column mapped to the key is filled
-- (each with its own affinity), also for nested values
SELECT writefile('one_key.json', '[{"n":5,"o":{"k":[1]}},{"o":"s","n":"7"}]') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.ok1 USING json_stream(filename='one_key.json',
  columns='n INTEGER, n_text TEXT, n_real REAL, o, o2 TEXT', keys='n_text=n, n_real=n, o2=o');
SELECT n, typeof(n), n_text, typeof(n_text), n_real, typeof(n_real), o, o2 FROM ok1;
-- => 5|integer|5|text|5.0|real|{"k":[1]}|{"k":[1]}
-- => 7|integer|7|text|7.0|real|s|s
SELECT json_array(o, o2) FROM ok1 WHERE n = 5;
-- => [{"k":[1]},{"k":[1]}]
-- a rename onto another column's key, that column declared later
CREATE VIRTUAL TABLE temp.ok2 USING json_stream(filename='one_key.json', columns='a TEXT, n INTEGER', keys='a=n');
SELECT a, n FROM ok2;
-- => 5|5
-- => 7|7

-- keys to columns: a key equal to a column's key byte for byte, else equal
-- ignoring ASCII case (as SQLite compares column names)
SELECT writefile('case.json', '[{"ID": 1, "Title": "a"}, {"id": 2, "TITLE": "b"}]') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.cs USING json_stream(filename='case.json', columns='id INTEGER, title TEXT');
SELECT id, title FROM cs;
-- => 1|a
-- => 2|b
-- the same through a rename and a key feeding two columns
CREATE VIRTUAL TABLE temp.cs2 USING json_stream(filename='case.json', columns='n INTEGER, n_text TEXT, t TEXT', keys='n=id, n_text=id, t=title');
SELECT n, n_text, t FROM cs2;
-- => 1|1|a
-- => 2|2|b
-- exact wins over case-insensitive: Name and NAME are distinct keys
SELECT writefile('names.json', '[{"Name": "x", "NAME": "y"}, {"NAME": "z"}]') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.nm USING json_stream(filename='names.json', columns='a TEXT, b TEXT', keys='a=Name, b=NAME');
SELECT a, b FROM nm;
-- => x|y
-- => NULL|z
-- … but "name" would match both only by case: an error naming them
SELECT writefile('names2.json', '[{"Name": "x"}, {"name": "y"}]') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.nm2 USING json_stream(filename='names2.json', columns='a TEXT, b TEXT', keys='a=Name, b=NAME'); SELECT * FROM nm2;
-- error: json_stream: names2.json: line 1, byte 17, element 1: key 'name' matches both 'Name' and 'NAME' ignoring case (map it exactly)
-- ASCII only: 'É' is not 'é'
SELECT writefile('accent.json', '[{"É": 1, "é": 2}]') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.ac USING json_stream(filename='accent.json', columns='"é" INTEGER');
SELECT * FROM ac;
-- => 2
-- two members of one object for the same column: which one?  An error
-- (SQLite's ->> would take the first, JavaScript's JSON.parse the last)
SELECT writefile('two.json', '[{"id": 1, "ID": 2}]') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.two USING json_stream(filename='two.json', columns='id INTEGER'); SELECT * FROM two;
-- error: json_stream: two.json: line 1, byte 11, element 0: keys 'id' and 'ID' of one object both match column 'id'
SELECT writefile('dup.json', '[{"a": 1}, {"a": 1, "b": 0, "a": 2}]') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.dup USING json_stream(filename='dup.json', columns='a INTEGER'); SELECT * FROM dup;
-- error: json_stream: dup.json: line 1, byte 28, element 1: key 'a' appears twice in one object (column 'a')
CREATE VIRTUAL TABLE temp.dup2 USING json_stream(filename='dup.json', columns='x, y', keys='x=a, y=A'); SELECT * FROM dup2;
-- error: key 'a' appears twice in one object (column 'x')
-- a repeated key that feeds no column is ignored like any unknown key
CREATE VIRTUAL TABLE temp.dup3 USING json_stream(filename='dup.json', columns='b INTEGER');
SELECT b FROM dup3;
-- => NULL
-- => 0

-- the rest of the one coercion table (sq_ingest.h): booleans, strings in
-- INTEGER and REAL columns, integral numbers in INTEGER columns, dates in
-- DATE/DATETIME/TIME columns normalized to the one date text, nested values
-- minified by the one escaper (\b stays \b), empty strings stay ''
SELECT writefile('coerce.json', '[{"b": true, "br": false, "bt": true, "si": "12", "sr": "2.5", "ni": 12.0, "e": 1e3,
  "d": "2024-05-01T14:00:00+02:00", "dd": "2024-05-01", "dt": "soon", "s": "", "o": {"k": "a\bb\u0001\u00e9", "n": [1.50, -0]}}]') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.co USING json_stream(filename='coerce.json',
  columns='b INTEGER, br REAL, bt TEXT, si INTEGER, sr REAL, ni INTEGER, e INTEGER, d DATETIME, dd DATE, dt TIMESTAMP, s TEXT, o');
SELECT b, br, bt, si, typeof(si), sr, typeof(sr), ni, typeof(ni), e, d, dd, dt, quote(s), o FROM co;
-- => 1|0.0|1|12|integer|2.5|real|12|integer|1000|2024-05-01 12:00:00.000|2024-05-01|soon|''|{"k":"a\bb\u0001é","n":[1.50,-0]}

-- strict=1: what does not fit is an error naming the element, key and value
SELECT writefile('strict.json', '[{"id": 1, "n": "2"}, {"id": 2, "n": "x2"}]') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.st USING json_stream(filename='strict.json', columns='id INTEGER, n INTEGER', strict=1); SELECT * FROM st;
-- error: json_stream: strict.json: line 1, byte 37, element 1, key 'n': 'x2' is not an integer, column n is INTEGER (strict mode)
CREATE VIRTUAL TABLE temp.st2 USING json_stream(filename='strict.json', columns='id INTEGER', strict=true); SELECT * FROM st2;
-- error: json_stream: strict.json: line 1, byte 11, element 0, key 'n': no column for this key (strict mode
CREATE VIRTUAL TABLE temp.st3 USING json_stream(filename='strict.json', columns='id INTEGER, n TEXT', strict=0);
SELECT id, n FROM st3;
-- => 1|2
-- => 2|x2
CREATE VIRTUAL TABLE temp.st4 USING json_stream(filename='strict.json', columns='id INTEGER', strict=yes);
-- error: json_stream: strict: expected 1 or 0, got 'yes'

-- elements must be objects
-- (an error case runs in a shell of its own: its temp table on the same line)
CREATE VIRTUAL TABLE temp.sc USING json_stream(filename='scalars.json', columns='a'); SELECT * FROM sc;
-- error: json_stream: scalars.json: line 1, byte 1, element 0: expected an object

CREATE VIRTUAL TABLE temp.bad1 USING json_stream(filename='tasks.json');
-- error: json_stream: missing columns= option

CREATE VIRTUAL TABLE temp.bad2 USING json_stream(columns='a');
-- error: json_stream: missing filename= option

CREATE VIRTUAL TABLE temp.bad3 USING json_stream(filename='t.json', columns='a', colums='b');
-- error: json_stream: unknown option 'colums'

CREATE VIRTUAL TABLE temp.bad4 USING json_stream(filename='t.json', columns='a', keys='b=c');
-- error: json_stream: keys: no column named 'b'

CREATE VIRTUAL TABLE temp.bad4b USING json_stream(filename='t.json', columns='a, b', keys='a=x, A=y');
-- error: json_stream: keys: column 'A' is given a key twice

CREATE VIRTUAL TABLE temp.bad4c USING json_stream(filename='t.json', columns='a', keys='a');
-- error: json_stream: keys: expected column=key, got 'a'

CREATE VIRTUAL TABLE temp.bad5 USING json_stream(filename='t.json', columns='a', path='$.');
-- error: json_stream: invalid path '$.'

-- ---------------------------------------------------------------- bad input
SELECT writefile('broken.json', '[
  {"id": 10, "title": "ok"},
  {"id": 11, "title": "ok"},
  {"id": 12, "title": "ok"} x
]') > 0;
-- => 1
SELECT count(*) FROM json_stream('broken.json');
-- error: json_stream: broken.json: line 4, byte 88, element 3: expected ',' or ']'

-- an INSERT … SELECT that fails commits nothing, even inside a transaction
-- that goes on: the statement is rolled back as a whole
BEGIN; INSERT INTO tasks SELECT value->>'id', value->>'title', 0 FROM json_stream('broken.json'); COMMIT;
-- error: json_stream: broken.json: line 4, byte 88, element 3: expected ',' or ']'
SELECT count(*), max(id) FROM tasks;
-- => 2|2

CREATE VIRTUAL TABLE temp.broken USING json_stream(filename='broken.json', columns='id INTEGER, title TEXT, done INTEGER'); INSERT INTO tasks SELECT * FROM broken;
-- error: json_stream: broken.json: line 4, byte 88, element 3: expected ',' or ']'
SELECT count(*) FROM tasks;
-- => 2

SELECT writefile('truncated.json', '[{"id": 1}, {"id": 2, "title": "tr') > 0;
-- => 1
SELECT count(*) FROM json_stream('truncated.json');
-- error: json_stream: truncated.json: line 1, byte 34, element 1: unterminated string

SELECT writefile('trunc2.json', '[{"id": 1}, {"id": 2}') > 0;
-- => 1
SELECT count(*) FROM json_stream('trunc2.json');
-- error: json_stream: trunc2.json: line 1, byte 21, element 2: unexpected end of input (expected ']')

SELECT writefile('badutf8.json', CAST('[{"t": "a' AS BLOB) || x'c0af' || CAST('"}]' AS BLOB)) > 0;
-- => 1
SELECT count(*) FROM json_stream('badutf8.json');
-- error: json_stream: badutf8.json: line 1, byte 9, element 0: invalid UTF-8 in a string

SELECT writefile('surrogate.json', CAST('["' AS BLOB) || x'eda080' || CAST('"]' AS BLOB)) > 0;
-- => 1
SELECT count(*) FROM json_stream('surrogate.json');
-- error: invalid UTF-8 in a string

SELECT writefile('deep.json', printf('%.*c', 1001, '[')) > 0;
-- => 1
SELECT count(*) FROM json_stream('deep.json');
-- error: json_stream: deep.json: line 1, byte 1000, element 0: nesting too deep

SELECT writefile('trailing.json', '[1, 2,]') > 0;
-- => 1
SELECT count(*) FROM json_stream('trailing.json');
-- error: element 2: expected a value (trailing comma?)

SELECT writefile('lead0.json', '[01]') > 0;
-- => 1
SELECT count(*) FROM json_stream('lead0.json');
-- error: leading zero in a number

SELECT writefile('nan.json', '[NaN]') > 0;
-- => 1
SELECT count(*) FROM json_stream('nan.json');
-- error: expected a JSON value

SELECT writefile('comment.json', '[1 /* no */]') > 0;
-- => 1
SELECT count(*) FROM json_stream('comment.json');
-- error: expected ',' or ']'

SELECT * FROM json_stream('missing.json');
-- error: json_stream: missing.json: cannot open: No such file or directory

SELECT * FROM json_stream('.');
-- error: json_stream: .: cannot read: is a directory

SELECT * FROM json_stream;
-- error: json_stream: missing the filename argument

SELECT * FROM json_stream(NULL);
-- error: json_stream: the filename argument is NULL

-- ---------------------------------------------------------------- security
-- json_stream reads files: not usable from a schema's views or triggers
CREATE VIEW v AS SELECT value FROM json_stream('tasks.json');
SELECT count(*) FROM v;
-- error: unsafe use of virtual table "json_stream"

-- a file with no JSON value (empty, whitespace, a BOM alone): no rows, as NDJSON with no
-- line (docs/sql/json.md says so; JSONTestSuite's n_structure_no_data and friends); with a
-- path: an error
SELECT writefile('nothing.json', '') >= 0, writefile('blank.json', '  ' || char(10)) > 0, writefile('bomonly.json', x'efbbbf') > 0;
-- => 1|1|1
SELECT count(*) FROM json_stream('nothing.json');
-- => 0
SELECT count(*) FROM json_stream('blank.json');
-- => 0
SELECT count(*) FROM json_stream('bomonly.json');
-- => 0
CREATE VIRTUAL TABLE temp.blankt USING json_stream(filename='blank.json', columns='a'); SELECT count(*) FROM blankt;
-- => 0
SELECT count(*) FROM json_stream('nothing.json', '$.a');
-- error: empty input (expected a JSON value)
