-- entry: sqlite3_streamqlite_noread_init
-- The no-read entry point leaves csv_stream out (it reads files), as it
-- leaves out json_stream: neither the function, nor a table, nor a table
-- planted in the database file can read a file.

SELECT writefile('secret.csv', 'user,token
alice,s3cr3t
') > 0;
-- => 1

SELECT * FROM csv_stream('secret.csv');
-- error: no such table: csv_stream

CREATE VIRTUAL TABLE temp.t USING csv_stream(filename='secret.csv');
-- error: no such module: csv_stream

PRAGMA writable_schema = ON;
INSERT INTO sqlite_master(type, name, tbl_name, rootpage, sql) VALUES
  ('table', 'innocent', 'innocent', 0,
   'CREATE VIRTUAL TABLE innocent USING csv_stream(filename=''secret.csv'', columns=''user TEXT, token TEXT'')');
PRAGMA writable_schema = OFF;

SELECT * FROM innocent;
-- error: no such module: csv_stream
