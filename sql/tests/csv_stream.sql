-- csv_stream: records from CSV files as JSON objects, typed columns through
-- the ingest core, inferred types, options, errors, security.
-- The data files are written by the test itself (cwd is a temporary folder).

SELECT writefile('people.csv', 'id,name,amount,note,created_at
1,"Smith, John",12.50,"say ""hi""",2024-05-01 12:00:00
2,Doe,,"",2024-05-02
3,"two
lines",7,NA,
') > 0;
-- => 1

-- one row per record (the header not counted), with index, line and byte offset
SELECT idx, line, offset, value FROM csv_stream('people.csv');
-- => 0|2|31|{"id":"1","name":"Smith, John","amount":"12.50","note":"say \"hi\"","created_at":"2024-05-01 12:00:00"}
-- => 1|3|86|{"id":"2","name":"Doe","amount":null,"note":"","created_at":"2024-05-02"}
-- => 2|4|107|{"id":"3","name":"two\nlines","amount":"7","note":"NA","created_at":null}

-- ->> works on value; values are the text as written (an empty field: NULL, "": '')
SELECT value->>'id', value->>'amount', quote(value->>'note'), typeof(value->>'amount') FROM csv_stream('people.csv');
-- => 1|12.50|'say "hi"'|text
-- => 2|NULL|''|null
-- => 3|7|'NA'|text

-- value carries the JSON subtype: json_array() embeds it as JSON
SELECT json_array(value) FROM csv_stream('people.csv') WHERE idx = 1;
-- => [{"id":"2","name":"Doe","amount":null,"note":"","created_at":"2024-05-02"}]

-- hidden argument columns
SELECT DISTINCT filename, options FROM csv_stream('people.csv', 'null=NA');
-- => people.csv|null=NA

-- ---------------------------------------------------------------- options
SELECT value->>'note' FROM csv_stream('people.csv', 'null=NA') WHERE idx = 2;
-- => NULL
SELECT quote(value->>'amount') FROM csv_stream('people.csv', 'empty=text') WHERE idx = 1;
-- => ''
SELECT value FROM csv_stream('people.csv', 'header=0') WHERE idx = 0;
-- => {"c1":"id","c2":"name","c3":"amount","c4":"note","c5":"created_at"}
SELECT count(*) FROM csv_stream('people.csv', 'header=no');
-- => 4

SELECT writefile('semi.csv', 'a;b' || char(13,10) || '1;"x;y"' || char(13,10)) > 0;
-- => 1
SELECT line, value FROM csv_stream('semi.csv', 'delimiter=;');
-- => 2|{"a":"1","b":"x;y"}
SELECT value FROM csv_stream('semi.csv', 'delimiter=";"');
-- => {"a":"1","b":"x;y"}

SELECT writefile('tabs.tsv', 'a' || char(9) || 'b' || char(10) || '"q' || char(9) || '\N' || char(10)) > 0;
-- => 1
SELECT value FROM csv_stream('tabs.tsv', 'delimiter=tab, quote=none, null=''\N''');
-- => {"a":"\"q","b":null}
SELECT value FROM csv_stream('tabs.tsv', 'delimiter="\t", quote=''''');
-- => {"a":"\"q","b":"\\N"}
SELECT value FROM csv_stream('tabs.tsv', 'delimiter=tab');
-- error: csv_stream: tabs.tsv: line 2, byte 4, field 1 (a): unterminated quoted field

SELECT writefile('pipe.csv', 'a|b
''x|y''|z
') > 0;
-- => 1
SELECT value FROM csv_stream('pipe.csv', 'delimiter=|, quote="''"');
-- => {"a":"x|y","b":"z"}

-- options say what they mean or are an error: no empty values (an empty one is
-- written ''), no empty items, no unclosed quotes, no column type that names no type
SELECT value FROM csv_stream('pipe.csv', 'delimiter=|, quote=''');
-- error: csv_stream: option 'quote='': a quote that is not closed
SELECT value FROM csv_stream('pipe.csv', 'header=0, quote=,');
-- error: csv_stream: option 'quote=': no value (an empty value is written '')
SELECT value FROM csv_stream('pipe.csv', 'header=1,,,');
-- error: csv_stream: options: item 2 is empty in 'header=1,,,' (a comma too many?)
SELECT value FROM csv_stream('pipe.csv', 'delimiter=|, quote=''''');
-- error: csv_stream: pipe.csv: line 2, byte 10, field 3: record has 3 fields, the first record has 2
CREATE VIRTUAL TABLE temp.o1 USING csv_stream(filename='pipe.csv', columns='a INTEGER,,');
-- error: csv_stream: columns: item 2 is empty in 'a INTEGER,,' (a comma too many?)
CREATE VIRTUAL TABLE temp.o2 USING csv_stream(filename='pipe.csv', header=0, columns='a b c d');
-- error: csv_stream: bad column definition 'a b c d': the type names no type (INTEGER, REAL, TEXT, BLOB, NUMERIC, DATE, …): a comma left out?
SELECT value FROM csv_stream('pipe.csv', 'delimiter=''');
-- error: csv_stream: option 'delimiter='': a quote that is not closed
CREATE VIRTUAL TABLE temp.o4 USING json_stream(filename='x.json', columns='a b c d');
-- error: json_stream: bad column definition 'a b c d': the type names no type
CREATE VIRTUAL TABLE temp.o5 USING json_stream(filename='x.json', columns='a TEXT', path=);
-- error: json_stream: option 'path=': no value (an empty value is written '')
CREATE VIRTUAL TABLE temp.o6 USING csv_stream(filename='pipe.csv', header=0, columns='a VARCHAR(10), b DECIMAL(10,2), "c d" BOOLEAN'); SELECT name, type FROM pragma_table_info('o6');
-- => a|TEXT
-- => b|NUMERIC
-- => c d|NUMERIC

-- ragged records: an error by default, padded on request
SELECT writefile('ragged.csv', 'a,b,c
1,2
') > 0;
-- => 1
SELECT value FROM csv_stream('ragged.csv', 'ragged=pad');
-- => {"a":"1","b":"2","c":null}
SELECT value FROM csv_stream('ragged.csv');
-- error: csv_stream: ragged.csv: line 2, byte 9, field 3 (c): record has 2 fields, the first record has 3

-- a BOM is skipped (offsets count it); CR, CRLF; blank lines skipped
SELECT writefile('bom.csv', x'efbbbf' || CAST('k,v' || char(13) || '1,2' || char(13,10) || char(10) || '3,4' AS BLOB)) > 0;
-- => 1
SELECT idx, line, offset, value FROM csv_stream('bom.csv');
-- => 0|2|7|{"k":"1","v":"2"}
-- => 1|4|13|{"k":"3","v":"4"}

-- empty names are cN; an empty file and a header-only file give no rows
SELECT writefile('names.csv', ',x,
1,2,3
') > 0;
-- => 1
SELECT value FROM csv_stream('names.csv');
-- => {"c1":"1","x":"2","c3":"3"}
SELECT writefile('empty.csv', '') >= 0, writefile('header.csv', 'a,b
') > 0;
-- => 1|1
SELECT count(*) FROM csv_stream('empty.csv');
-- => 0
SELECT count(*) FROM csv_stream('header.csv');
-- => 0

-- ---------------------------------------------------------------- bad input
SELECT writefile('unterminated.csv', 'a,b
1,"open
2,3
') > 0;
-- => 1
SELECT * FROM csv_stream('unterminated.csv');
-- error: csv_stream: unterminated.csv: line 2, byte 6, field 2 (b): unterminated quoted field (the input ends before its closing quote)

SELECT writefile('quote_in.csv', 'a,b
1,5" pipe
') > 0;
-- => 1
SELECT * FROM csv_stream('quote_in.csv');
-- error: csv_stream: quote_in.csv: line 2, byte 7, field 2 (b): quote character inside an unquoted field (quote the whole field and double the quote)

SELECT writefile('after_quote.csv', 'a,b
"x"y,1
') > 0;
-- => 1
SELECT * FROM csv_stream('after_quote.csv');
-- error: csv_stream: after_quote.csv: line 2, byte 7, field 1 (a): expected a delimiter or a line end after the closing quote

SELECT writefile('bad_utf8.csv', CAST('a,b' || char(10) || '1,caf' AS BLOB) || x'e9' || CAST(char(10) AS BLOB)) > 0;
-- => 1
SELECT * FROM csv_stream('bad_utf8.csv');
-- error: csv_stream: bad_utf8.csv: line 2, byte 9, field 2 (b): invalid UTF-8

SELECT writefile('dup.csv', 'id,Name,NAME
1,2,3
') > 0;
-- => 1
SELECT * FROM csv_stream('dup.csv');
-- error: csv_stream: dup.csv: line 1, byte 8, field 3: header name 'NAME' repeats field 2 ('Name'): header names must differ, also ignoring case

SELECT * FROM csv_stream('missing.csv');
-- error: csv_stream: missing.csv: cannot open: No such file or directory
SELECT * FROM csv_stream('.');
-- error: csv_stream: .: cannot read: is a directory
SELECT * FROM csv_stream(NULL);
-- error: csv_stream: the filename argument is NULL
SELECT * FROM csv_stream('people.csv', NULL);
-- error: csv_stream: the options argument is NULL
SELECT * FROM csv_stream('people.csv' || char(0) || 'x');
-- error: csv_stream: the filename argument contains a NUL byte
SELECT * FROM csv_stream();
-- error: csv_stream: missing the filename argument
SELECT * FROM csv_stream('people.csv', 'delimiter=ab');
-- error: csv_stream: option delimiter='ab': expected one ASCII character (or tab)
SELECT * FROM csv_stream('people.csv', 'delimiter=''"''');
-- error: csv_stream: the delimiter and the quote are the same character '"'
SELECT * FROM csv_stream('people.csv', 'colour=red');
-- error: csv_stream: unknown option 'colour' (expected header, delimiter, quote, null, empty, ragged)
SELECT * FROM csv_stream('people.csv', 'header');
-- error: csv_stream: expected key=value, got 'header'
SELECT * FROM csv_stream('people.csv', 'header=maybe');
-- error: csv_stream: option header='maybe': expected 1 or 0

-- a field or record beyond SQLITE_LIMIT_LENGTH is an error, not an allocation
SELECT writefile('long.csv', 'a
' || printf('%.1200c', 'x') || '
') > 0;
-- => 1
.limit length 1000
SELECT * FROM csv_stream('long.csv');
-- error: csv_stream: long.csv: line 2, byte 2, field 1 (a): field longer than 1000 bytes

-- ---------------------------------------------------------------- typed columns
CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT, amount REAL, created DATETIME);

CREATE VIRTUAL TABLE temp.incoming USING csv_stream(
  filename='people.csv',
  columns='id INTEGER, name TEXT, amount REAL, created DATETIME',
  keys='created=created_at');
INSERT INTO people SELECT * FROM incoming;
-- a DATETIME column holds instants: a bare date is its midnight, in the one date text
SELECT id, name, amount, typeof(amount), created FROM people;
-- => 1|Smith, John|12.5|real|2024-05-01 12:00:00.000
-- => 2|Doe|NULL|null|2024-05-02 00:00:00.000
-- => 3|two
-- => lines|7.0|real|NULL

-- header names match columns ignoring ASCII case; unknown header names are ignored
SELECT writefile('case.csv', 'ID,Extra,NAME
7,zzz,Seven
') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.c2 USING csv_stream(filename='case.csv', columns='id INTEGER, name TEXT'); SELECT id, typeof(id), name FROM c2;
-- => 7|integer|Seven

-- strict: a header name without a column is an error, and so is a value that does not fit
CREATE VIRTUAL TABLE temp.c3 USING csv_stream(filename='case.csv', columns='id INTEGER, name TEXT', strict=1); SELECT * FROM c3;
-- error: csv_stream: case.csv: line 2, byte 16, field 2 (Extra): field 2 has no column (strict mode)
CREATE VIRTUAL TABLE temp.c4 USING csv_stream(filename='people.csv', columns='id INTEGER, name INTEGER', strict=1); SELECT * FROM c4;
-- error: csv_stream: people.csv: line 2, byte 33, field 2 (name): 'Smith, John' is not an integer, column name is INTEGER (strict mode)
-- lenient (the default): kept as text
CREATE VIRTUAL TABLE temp.c5 USING csv_stream(filename='people.csv', columns='id INTEGER, name INTEGER'); SELECT name, typeof(name) FROM c5 WHERE id = 2;
-- => Doe|text

-- header=0: field i feeds column i
CREATE VIRTUAL TABLE temp.c6 USING csv_stream(filename='semi.csv', header=0, delimiter=';', columns='x TEXT, y TEXT'); SELECT * FROM c6;
-- => a|b
-- => 1|x;y

-- typed-table errors name file, line, byte and field
CREATE VIRTUAL TABLE temp.c7 USING csv_stream(filename='unterminated.csv', columns='a TEXT, b TEXT'); SELECT * FROM c7;
-- error: csv_stream: unterminated.csv: line 2, byte 6, field 2 (b): unterminated quoted field
CREATE VIRTUAL TABLE temp.c8 USING csv_stream(filename='dup.csv', columns='id INTEGER'); SELECT * FROM c8;
-- error: csv_stream: dup.csv: line 1, byte 8, field 3: header name 'NAME' repeats field 2 ('Name')
CREATE VIRTUAL TABLE temp.c9 USING csv_stream(filename='empty.csv', columns='a TEXT'); SELECT * FROM c9;
-- error: csv_stream: empty.csv: empty file: no header
CREATE VIRTUAL TABLE temp.c10 USING csv_stream(filename='people.csv', columns='id INTEGER', keys='nope=x');
-- error: csv_stream: keys: no column named 'nope'
CREATE VIRTUAL TABLE temp.c11 USING csv_stream(columns='id INTEGER');
-- error: csv_stream: missing filename= option
CREATE VIRTUAL TABLE temp.c12 USING csv_stream(filename='people.csv', colour=red);
-- error: csv_stream: unknown option 'colour' (expected filename, columns, keys, header, delimiter, quote, null, empty, ragged, strict, infer, on_error, max_errors, reject_table)

-- ---------------------------------------------------------------- inferred types
CREATE VIRTUAL TABLE temp.inf USING csv_stream(filename='people.csv');
SELECT name, type FROM pragma_table_info('inf');
-- => id|INTEGER
-- => name|TEXT
-- => amount|REAL
-- => note|TEXT
-- => created_at|DATETIME
SELECT id, typeof(id), amount, typeof(amount), created_at FROM inf;
-- => 1|integer|12.5|real|2024-05-01 12:00:00.000
-- => 2|integer|NULL|null|2024-05-02 00:00:00.000
-- => 3|integer|7.0|real|NULL
-- timestamps with offsets are inferred DATETIME and stored as UTC date text: text order is
-- time order and = matches the text a Swift Date binds; a column of bare dates is DATE
SELECT writefile('sold.csv', 'sold_at,day,note
2025-01-01T08:51:00Z,2025-01-01,2025-01-01T08:51:00Z
2025-01-01T06:30:00+05:00,2024-12-31,soon
2025-01-01 01:00,2025-02-28,
') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.sold USING csv_stream(filename='sold.csv'); SELECT name, type FROM pragma_table_info('sold');
-- => sold_at|DATETIME
-- => day|DATE
-- => note|TEXT
SELECT sold_at, day FROM sold ORDER BY sold_at;
-- => 2025-01-01 01:00:00.000|2025-02-28
-- => 2025-01-01 01:30:00.000|2024-12-31
-- => 2025-01-01 08:51:00.000|2025-01-01
SELECT count(*) FROM sold WHERE sold_at >= '2025-01-01 05:00:00.000';
-- => 1

-- never lossy: zip codes with leading zeros and integers no INTEGER or REAL holds exactly stay
-- TEXT, and so does a negative zero (SQLite keeps no sign on a zero in a table); a decimal is a
-- REAL, its nearest double, whatever its number of digits (as SQLite's REAL affinity reads it)
SELECT writefile('zip.csv', 'zip,big,pi,n,neg
02134,12345678901234567890,3.14159265358979323,1,-0
90210,1,2,2,-1
') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.zip USING csv_stream(filename='zip.csv'); SELECT name, type FROM pragma_table_info('zip');
-- => zip|TEXT
-- => big|TEXT
-- => pi|REAL
-- => n|INTEGER
-- => neg|TEXT
SELECT zip, big, pi = CAST('3.14159265358979323' AS REAL) FROM zip WHERE n = 1;
-- => 02134|12345678901234567890|1
CREATE TABLE zipped AS SELECT * FROM zip; SELECT neg, typeof(neg) FROM zipped WHERE n = 1;
-- => -0|text

-- doubles as R and Python write them (up to 17 significant digits, the shortest text that is
-- the double again) are REAL columns, each value the double SQLite's own REAL conversion gives
SELECT writefile('airports.csv', 'faa,lat,lon,alt
04G,41.1304722,-80.6195833,1044
06A,32.4605722,-85.6800278,264
0G6,41.432908900000004,-84.06712029999999,6
1C9,37.003334999999996,-121.56666699999999,9
ZYZ,-17.58333,174.11362,0
') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.airports USING csv_stream(filename='airports.csv'); SELECT group_concat(name || ' ' || type, ', ') FROM pragma_table_info('airports');
-- => faa TEXT, lat REAL, lon REAL, alt INTEGER
SELECT count(*) FROM airports a JOIN (SELECT 1) WHERE a.lat IS NOT NULL;
-- => 5
SELECT max(lon), min(lat), typeof(max(lon)) FROM airports;
-- => 174.11362|-17.58333|real
SELECT faa FROM airports WHERE lat = CAST('41.432908900000004' AS REAL) AND lon = CAST('-84.06712029999999' AS REAL);
-- => 0G6

-- a later value that does not fit its inferred column: an error with its line
SELECT writefile('late.csv', 'id,qty
1,10
2,20
3,N/A
') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.late USING csv_stream(filename='late.csv', infer=2); SELECT type FROM pragma_table_info('late') WHERE name = 'qty';
-- => INTEGER
CREATE VIRTUAL TABLE temp.late_e USING csv_stream(filename='late.csv', infer=2); SELECT * FROM late_e;
-- error: csv_stream: late.csv: line 4, byte 19, field 2 (qty): 'N/A' is not an integer written canonically (no leading zeros, no sign +, within 64 bits), and the column's type INTEGER was inferred from the first 2 records (declare the column's type to accept such values)
CREATE VIRTUAL TABLE temp.late2 USING csv_stream(filename='late.csv'); SELECT qty, typeof(qty) FROM late2;
-- => 10|text
-- => 20|text
-- => N/A|text

-- without a header: c1, c2, …; header-only: TEXT columns; empty: an error
CREATE VIRTUAL TABLE temp.nh USING csv_stream(filename='semi.csv', header=0, delimiter=';'); SELECT group_concat(name || ' ' || type, ', ') FROM pragma_table_info('nh');
-- => c1 TEXT, c2 TEXT
CREATE VIRTUAL TABLE temp.ho USING csv_stream(filename='header.csv'); SELECT group_concat(name || ' ' || type, ', '), (SELECT count(*) FROM ho) FROM pragma_table_info('ho');
-- => a TEXT, b TEXT|0
CREATE VIRTUAL TABLE temp.em USING csv_stream(filename='empty.csv');
-- error: csv_stream: empty.csv: empty file: no header to name the columns
CREATE VIRTUAL TABLE temp.md USING csv_stream(filename='missing.csv');
-- error: csv_stream: missing.csv: cannot open: No such file or directory
CREATE VIRTUAL TABLE temp.dd USING csv_stream(filename='dup.csv');
-- error: csv_stream: dup.csv: line 1, byte 8, field 3: header name 'NAME' repeats field 2

-- ---------------------------------------------------------------- security
-- a csv_stream table reads a file: only in temp, never from a database file
CREATE VIRTUAL TABLE attempt USING csv_stream(filename='people.csv', columns='id INTEGER');
-- error: csv_stream: table main.attempt: csv_stream tables read files, so they can only live in the temp schema, never in a database file: CREATE VIRTUAL TABLE temp.attempt USING csv_stream(...)

PRAGMA writable_schema = ON;
INSERT INTO sqlite_master(type, name, tbl_name, rootpage, sql) VALUES
  ('table', 'planted', 'planted', 0,
   'CREATE VIRTUAL TABLE planted USING csv_stream(filename=''people.csv'', columns=''id INTEGER, name TEXT'')'),
  ('view', 'v_planted', 'v_planted', 0, 'CREATE VIEW v_planted AS SELECT value FROM csv_stream(''people.csv'')');
PRAGMA writable_schema = OFF;

SELECT * FROM planted;
-- error: csv_stream: table main.planted: csv_stream tables read files, so they can only live in the temp schema

PRAGMA trusted_schema = ON; SELECT * FROM v_planted;
-- error: unsafe use of virtual table "csv_stream"

-- the user's own statements still work
SELECT value->>'name' FROM csv_stream('people.csv') WHERE idx = 1;
-- => Doe

-- ---------------------------------------------------------------- numbers a column would change
-- (sq_number.h, docs/sql/conversions.md): beyond the range of a double, so close
-- to zero that it would be 0.0, a negative zero — an error in every mode, since kept as
-- text SQLite's column affinity would change them all the same on INSERT
SELECT writefile('big.csv', 'id,amount
3,1e400
') + writefile('tiny.csv', 'id,amount
6,1e-400
') + writefile('negzero.csv', 'id,amount
7,-0.0
') + writefile('fine.csv', 'id,amount
8,2.5e-308
9,N/A
10,4.9e-324
') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.s1 USING csv_stream(filename='big.csv', columns='id INTEGER, amount REAL'); SELECT * FROM s1;
-- error: csv_stream: big.csv: line 2, byte 12, field 2 (amount): '1e400' is beyond the range of a REAL (it would be stored as infinity), column amount is REAL
CREATE VIRTUAL TABLE temp.s2 USING csv_stream(filename='tiny.csv', columns='id INTEGER, amount REAL', strict=1); SELECT * FROM s2;
-- error: csv_stream: tiny.csv: line 2, byte 12, field 2 (amount): '1e-400' is too close to zero for a REAL (it would be stored as 0.0), column amount is REAL
CREATE VIRTUAL TABLE temp.s3 USING csv_stream(filename='negzero.csv', columns='id INTEGER, amount REAL'); SELECT * FROM s3;
-- error: csv_stream: negzero.csv: line 2, byte 12, field 2 (amount): '-0.0' is a negative zero (SQLite keeps no sign on a zero: it would be stored as 0), column amount is REAL
CREATE VIRTUAL TABLE temp.s4 USING csv_stream(filename='big.csv', columns='id INTEGER, amount NUMERIC'); SELECT * FROM s4;
-- error: '1e400' is beyond the range of a REAL (it would be stored as infinity), column amount is NUMERIC
CREATE VIRTUAL TABLE temp.s5 USING csv_stream(filename='big.csv', columns='id INTEGER, amount'); SELECT amount, typeof(amount) FROM s5;
-- => 1e400|text
CREATE VIRTUAL TABLE temp.fine USING csv_stream(filename='fine.csv', columns='id INTEGER, amount REAL');
SELECT id, amount, typeof(amount) FROM fine;
-- => 8|2.5e-308|real
-- => 9|N/A|text
-- => 10|4.94065645841247e-324|real
SELECT writefile('range.json', '[{"i":1E-400}]') + writefile('negzero.json', '[{"i":-0.0}]') + writefile('two.json', '[{"i":2.0,"r":2}]') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.j1 USING json_stream(filename='range.json', columns='i INTEGER'); SELECT * FROM j1;
-- error: json_stream: range.json: line 1, byte 6, element 0, key 'i': 1E-400 is too close to zero for a REAL
CREATE VIRTUAL TABLE temp.j2 USING json_stream(filename='negzero.json', columns='i INTEGER'); SELECT * FROM j2;
-- error: -0.0 is a negative zero (SQLite keeps no sign on a zero: it would be stored as 0), column i is INTEGER
CREATE VIRTUAL TABLE temp.j3 USING json_stream(filename='two.json', columns='i INTEGER, r REAL');
SELECT i, typeof(i), r, typeof(r) FROM j3;
-- => 2|integer|2.0|real

-- ---------------------------------------------------------------- header names
-- a name made for an empty header name never takes a name the header has
SELECT writefile('gen.csv', 'a,,c2
1,2,3
') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.gen USING csv_stream(filename='gen.csv'); SELECT name FROM pragma_table_info('gen');
-- => a
-- => c2_2
-- => c2
SELECT * FROM gen;
-- => 1|2|3
SELECT value FROM csv_stream('gen.csv');
-- => {"a":"1","c2_2":"2","c2":"3"}
-- a NUL byte in a header name: an error naming it (no column name can hold one)
SELECT writefile('nul.csv', CAST(x'6100622c630a312c320a' AS BLOB)) > 0;
-- => 1
CREATE VIRTUAL TABLE temp.nul USING csv_stream(filename='nul.csv'); SELECT * FROM nul;
-- error: csv_stream: nul.csv: line 1, byte 0, field 1: header name 'a\x00b' holds a NUL byte, which no column name can
SELECT writefile('nul2.csv', CAST(x'612c61000a310a' AS BLOB)) > 0;
-- => 1
SELECT * FROM csv_stream('nul2.csv');
-- error: csv_stream: nul2.csv: line 1, byte 2, field 2: header name 'a\x00' holds a NUL byte, which no column name can

-- ---------------------------------------------------------------- inference reads at most 16 MiB
-- 1000 records of 18 KB: inference stops inside record 933, which is no error
SELECT writefile('long.csv', 'a,b,c' || char(10) || (WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 999)
  SELECT group_concat(i || ',"' || replace(hex(zeroblob(9000)), '0', 'x') || '",' || i || '.5', char(10)) FROM s) || char(10)) > 0;
-- => 1
CREATE VIRTUAL TABLE temp.long USING csv_stream(filename='long.csv'); SELECT name, type FROM pragma_table_info('long');
-- => a|INTEGER
-- => b|TEXT
-- => c|REAL
SELECT count(*), sum(length(b)), max(c) FROM long;
-- => 1000|18000000|999.5
