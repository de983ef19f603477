-- gzip and zstd input (sq_decompress.c): json_stream and csv_stream read a
-- compressed file as the plain one, told by its first bytes; positions (line,
-- offset) are in the decompressed stream.  scripts/check-ext-compressed.py
-- checks whole suites, pipes, FIFOs and interrupt.

SELECT writefile('people.csv', 'id,name
1,ann
2,"b, c"
') > 0;
SELECT writefile('people.csv.gz', X'1F8B0800000000000203CB4CD1C94BCC4DE532D449CCCBE332D2514AD2514856E202002799423217000000') > 0;
SELECT writefile('two.csv.gz', X'1F8B0800000000000203CB4CD1C94BCC4DE532D449CCCBE332D2514AD2514856E2020027994232170000001F8B0800000000000203CB4CD1C94BCC4DE532D449CCCBE332D2514AD2514856E202002799423217000000') > 0;
SELECT writefile('people.ndjson.zst', X'28B52FFD045855010014027B226964223A20312C20226E616D65223A2022616E6E227D0A32622C2063227D0A0200C088389B63FC2D7D03') > 0;
SELECT writefile('cut.ndjson.gz', X'1F8B0800000000000203AB56CA4C51B25230D45150CA4BCC4D05329512F3F2946AB9AA2112464812493A0AC94019000914C2') > 0;
SELECT writefile('tail.csv.gz', X'1F8B0800000000000203CB4CD1C94BCC4DE532D449CCCBE332D2514AD2514856E202002799423217000000' || 'junk') > 0;

SELECT idx, line, offset, value FROM csv_stream('people.csv.gz');
-- => 0|2|8|{"id":"1","name":"ann"}
-- => 1|3|14|{"id":"2","name":"b, c"}

-- two gzip members are one stream (the second header is a record, as zcat shows it)
SELECT count(*), max(line) FROM csv_stream('two.csv.gz');
-- => 5|6

SELECT idx, line, offset, value->>'name' FROM json_stream('people.ndjson.zst');
-- => 0|1|0|ann
-- => 1|2|25|b, c

CREATE VIRTUAL TABLE temp.p USING json_stream(filename='people.ndjson.zst', columns='id INTEGER, name TEXT');
SELECT id, name, typeof(id) FROM p;
-- => 1|ann|integer
-- => 2|b, c|integer

CREATE VIRTUAL TABLE temp.c USING csv_stream(filename='people.csv.gz');
SELECT id, name, typeof(id) FROM c;
-- => 1|ann|integer
-- => 2|b, c|integer

SELECT count(*) FROM json_stream('cut.ndjson.gz');
-- error: json_stream: cut.ndjson.gz: gzip: truncated: the input ends inside a member after 50 compressed bytes

SELECT count(*) FROM csv_stream('tail.csv.gz');
-- error: csv_stream: tail.csv.gz: gzip: corrupt data after 45 compressed bytes: incorrect header check

-- a zstd stream that begins with a skippable frame (as pzstd writes) is zstd
SELECT writefile('skip.csv.zst', X'502A4D18040000006162636428B52FFD240C610000612C620A312C320A332C340AE1B3CB2E') > 0;
-- => 1
SELECT group_concat(value->>'b') FROM csv_stream('skip.csv.zst');
-- => 2,4

-- a corrupt small zstd file: the error counts the bytes it lies in
SELECT writefile('bad.csv.zst', X'28B52FFD240C610000612C620A312C320A332C340AE1B3342E') > 0;
-- => 1
SELECT count(*) FROM csv_stream('bad.csv.zst');
-- error: csv_stream: bad.csv.zst: zstd: corrupt data after 25 compressed bytes: Restored data doesn't match checksum
