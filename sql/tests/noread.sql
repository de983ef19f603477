-- entry: sqlite3_streamqlite_noread_init
-- The no-read entry point, for hosts that let other people run SQL
-- (Datasette, web consoles): every function except those that read files.

SELECT streamqlite_version() IS NOT NULL;
-- => 1
SELECT locale_week('2011-01-02', 'en_US'), format_date('EEEE yyyy-MM-dd', '2011-01-02', 'de_DE');
-- => 2011-02|Sonntag 2011-01-02
SELECT locale_week_rules('de_DE');
-- => {"first_day":"monday","min_days":4}

SELECT writefile('secret.json', '[{"user": "alice", "token": "s3cr3t"}]') > 0;
-- => 1

SELECT * FROM json_stream('secret.json');
-- error: no such table: json_stream

CREATE VIRTUAL TABLE temp.t USING json_stream(filename='secret.json', columns='user TEXT');
-- error: no such module: json_stream

-- a table planted in the database file: no module, no read
PRAGMA writable_schema = ON;
INSERT INTO sqlite_master(type, name, tbl_name, rootpage, sql) VALUES
  ('table', 'innocent', 'innocent', 0,
   'CREATE VIRTUAL TABLE innocent USING json_stream(filename=''secret.json'', columns=''user TEXT, token TEXT'')');
PRAGMA writable_schema = OFF;

SELECT * FROM innocent;
-- error: no such module: json_stream
