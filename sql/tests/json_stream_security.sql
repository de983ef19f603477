-- json_stream and database files someone else made: no table stored in a
-- database file may read a file (the reader's private files), whatever the
-- reader's settings; typed tables live only in temp.

SELECT writefile('secret.json', '[{"user": "alice", "token": "s3cr3t"}]') > 0;
-- => 1

-- creating one outside temp is refused, with the way to do it
CREATE VIRTUAL TABLE attempt USING json_stream(filename='secret.json', columns='user TEXT, token TEXT');
-- error: json_stream: table main.attempt: json_stream tables read files, so they can only live in the temp schema, never in a database file: CREATE VIRTUAL TABLE temp.attempt USING json_stream(...)

CREATE VIRTUAL TABLE main.attempt2 USING json_stream(filename='secret.json', columns='user TEXT, token TEXT');
-- error: can only live in the temp schema

-- a named table without arguments too (only the built-in json_stream exists outside temp)
CREATE VIRTUAL TABLE main.js2 USING json_stream;
-- error: json_stream: table main.js2: json_stream tables read files

-- in temp it works
CREATE VIRTUAL TABLE temp.mine USING json_stream(filename='secret.json', columns='user TEXT, token TEXT'); SELECT * FROM mine;
-- => alice|s3cr3t
CREATE VIRTUAL TABLE temp.js USING json_stream; SELECT count(*) FROM js('secret.json');
-- => 1

-- a table planted in the database file (as an attacker would write it:
-- straight into sqlite_master).  Each error case below runs in a new
-- sqlite3 process that opens this file as a victim would.
PRAGMA writable_schema = ON;
INSERT INTO sqlite_master(type, name, tbl_name, rootpage, sql) VALUES
  ('table', 'innocent', 'innocent', 0,
   'CREATE VIRTUAL TABLE innocent USING json_stream(filename=''secret.json'', columns=''user TEXT, token TEXT'')'),
  ('table', 'plain', 'plain', 0, 'CREATE VIRTUAL TABLE plain USING json_stream');
PRAGMA writable_schema = OFF;

SELECT * FROM innocent;
-- error: json_stream: table main.innocent: json_stream tables read files, so they can only live in the temp schema

PRAGMA trusted_schema = OFF; SELECT * FROM innocent;
-- error: json_stream: table main.innocent: json_stream tables read files

.dbconfig defensive on
SELECT token FROM innocent;
-- error: json_stream: table main.innocent

SELECT count(*) FROM sqlite_master WHERE name = 'innocent'; SELECT * FROM main.innocent;
-- error: can only live in the temp schema

SELECT * FROM plain('secret.json');
-- error: json_stream: table main.plain: json_stream tables read files

-- the same planted in an attached database
ATTACH 'other.db' AS o;
PRAGMA writable_schema = ON;
CREATE TABLE o.t(x);
INSERT INTO o.sqlite_master(type, name, tbl_name, rootpage, sql) VALUES
  ('table', 'innocent2', 'innocent2', 0,
   'CREATE VIRTUAL TABLE innocent2 USING json_stream(filename=''secret.json'', columns=''user TEXT, token TEXT'')');
PRAGMA writable_schema = OFF;
DETACH o;

ATTACH 'other.db' AS o; SELECT * FROM o.innocent2;
-- error: json_stream: table o.innocent2: json_stream tables read files

-- views and triggers of a schema cannot use json_stream at all
-- (SQLITE_VTAB_DIRECTONLY), whatever trusted_schema says
PRAGMA writable_schema = ON;
INSERT INTO sqlite_master(type, name, tbl_name, rootpage, sql) VALUES
  ('view', 'v_secret', 'v_secret', 0, 'CREATE VIEW v_secret AS SELECT value FROM json_stream(''secret.json'')');
PRAGMA writable_schema = OFF;

SELECT * FROM v_secret;
-- error: unsafe use of virtual table "json_stream"

PRAGMA trusted_schema = ON; SELECT * FROM v_secret;
-- error: unsafe use of virtual table "json_stream"

CREATE TABLE log(x); CREATE TRIGGER trg AFTER INSERT ON log BEGIN INSERT INTO log SELECT value FROM json_stream('secret.json'); END; INSERT INTO log VALUES (1);
-- error: unsafe use of virtual table "json_stream"

-- the user's own statements still work on such a file
SELECT value->>'token' FROM json_stream('secret.json');
-- => s3cr3t
