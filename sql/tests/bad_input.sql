-- Bad input gets the same clear error on every connection and path, and
-- error messages stay short, valid UTF-8 text whatever the value.

-- ------------------------------------------------ embedded NUL bytes
-- 'en_US' || NUL || 'x' is not 'en_US', even once 'en_US' is cached
SELECT locale_week('2011-01-02', 'en_US'), locale_week('2011-01-02', 'en_US' || char(0) || 'x');
-- error: locale_week: ill-formed locale 'en_US\x00x'
SELECT locale_week('2011-01-02', 'en_US' || char(0) || 'x');
-- error: locale_week: ill-formed locale 'en_US\x00x'
SELECT locale_week('2011-01-02T10:00Z', 'en_US', 'Europe/Berlin'),
       locale_week('2011-01-02T10:00Z', 'en_US', 'Europe/Berlin' || char(0) || 'junk');
-- error: locale_week: unknown time zone 'Europe/Berlin\x00junk'
SELECT format_date('yyyy', '2011-01-02'), format_date('yyyy' || char(0) || 'MM', '2011-01-02');
-- error: format_date: invalid pattern 'yyyy\x00MM'
SELECT locale_week('2011-01-02' || char(0) || 'x', 'en_US');
-- error: locale_week: invalid time '2011-01-02\x00x'

-- ------------------------------------------------ invalid UTF-8
-- in a pattern: an error on both paths, never invalid text in a result
SELECT format_date(CAST(x'79797979ff' AS TEXT), '2011-01-02');
-- error: format_date: invalid pattern 'yyyy\xFF'
SELECT format_date(CAST(x'45454545ff' AS TEXT), '2011-01-02');
-- error: format_date: invalid pattern 'EEEE\xFF'
SELECT format_date(CAST(x'792027c3a927' AS TEXT), '2011-01-02');
-- => 2011 é
-- echoed values are escaped: the message is valid UTF-8
SELECT locale_week('2011-01-02', CAST(x'656eff' AS TEXT));
-- error: locale_week: ill-formed locale 'en\xFF'
SELECT locale_week(CAST(x'323031312d30312d3032c0af' AS TEXT));
-- error: locale_week: invalid time '2011-01-02\xC0\xAF'
SELECT locale_week('2011-01-02', 'en' || char(10) || 'US');
-- error: locale_week: ill-formed locale 'en\x0AUS'

-- ------------------------------------------------ huge values are cut in messages
SELECT locale_week(printf('%.10000000c', 'x'));
-- error: …' (10000000 bytes)
SELECT length(CAST(format_date(printf('%.5000000c', 'j'), '2011-01-02') AS BLOB));
-- error: format_date: pattern too long 'jjjj
SELECT locale_week('2011-01-02', printf('%.300c', 'é'));
-- error: …' (600 bytes)

-- ------------------------------------------------ limits (documented in sq_week.c)
-- a pattern of up to 159 bytes, any output length
SELECT length(format_date('yyyy' || printf('%.155c', '.'), '2011-01-02'));
-- => 159
SELECT format_date(printf('%.160c', 'y'), '2011-01-02');
-- error: format_date: pattern too long 'yyyy
SELECT length(format_date(rtrim(replace(printf('%.31c', 'x'), 'x', 'EEEE ')), '2011-01-05', 'en_US'));
-- => 309
SELECT length(format_date(rtrim(replace(printf('%.31c', 'x'), 'x', 'EEEE ')), '2011-01-05', 'ar_EG')),
       format_date('EEEE', '2011-01-05', 'ar_EG');
-- => 278|الأربعاء
SELECT substr(format_date(rtrim(replace(printf('%.31c', 'x'), 'x', 'EEEE ')), '2011-01-05', 'en_US'), 1, 19);
-- => Wednesday Wednesday

-- ------------------------------------------------ json_stream
SELECT writefile('t.json', '[1, 2]') > 0;
-- => 1
SELECT writefile('trail.json', '[1,2]x') > 0;
-- => 1
SELECT count(*) FROM json_stream('trail.json');
-- error: json_stream: trail.json: line 1, byte 5: unexpected data after the top-level array
SELECT writefile('trail2.json', '[1,2] [3]') > 0;
-- => 1
SELECT count(*) FROM json_stream('trail2.json');
-- error: json_stream: trail2.json: line 1, byte 6: unexpected data after the top-level array
SELECT writefile('trail3.json', '[{"a": 1}]x') > 0;
-- => 1
CREATE VIRTUAL TABLE temp.tr USING json_stream(filename='trail3.json', columns='a'); SELECT * FROM tr;
-- error: unexpected data after the top-level array
-- NDJSON keeps its own message
SELECT writefile('nd.json', '{"a":1} {"a":2}') > 0;
-- => 1
SELECT count(*) FROM json_stream('nd.json');
-- error: json_stream: nd.json: line 1, byte 8, element 1: expected a newline between top-level values
-- a NUL would cut the file name: another file than the one asked for
SELECT count(*) FROM json_stream('t.json' || char(0) || '.bak');
-- error: json_stream: the filename argument contains a NUL byte: 't.json\x00.bak'
SELECT count(*) FROM json_stream('t.json', '$' || char(0) || '.a');
-- error: json_stream: the path argument contains a NUL byte: '$\x00.a'
SELECT count(*) FROM json_stream('t.json', NULL);
-- error: json_stream: the path argument is NULL
SELECT count(*) FROM json_stream(printf('%.5000c', 'd') || '.json');
-- error: …: cannot open: File name too long
SELECT count(*) FROM json_stream('t.json', '$.' || CAST(x'ff' AS TEXT));
-- error: json_stream: t.json: path '$.\xFF' not found
SELECT count(*) FROM json_stream('t.json', printf('$.%.1000c', 'k'));
-- error: …' (1002 bytes) not found
SELECT count(*) FROM json_stream('t.json', 'x' || CAST(x'ff' AS TEXT));
-- error: json_stream: invalid path 'x\xFF'
