#!/usr/bin/env python3
"""The week functions against PyICU (Debian's python3-icu) as an outside oracle.

For every locale below and a few thousand dates (every day around each New Year
from 1583 to 2100, where week numbering is subtle, plus random days), the
extension's locale_week, locale_week_start, locale_weekday and format_date must
give what ICU's own Calendar and SimpleDateFormat give. Dates from 1583 on only:
ICU's Gregorian calendar is Julian before October 1582, ours is proleptic.

    python3 scripts/check-ext-icu-oracle.py build/streamqlite.so
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extcheck import connect_sqlite3, ext_path, require_pyicu  # noqa: E402

icu = require_pyicu("check-ext-icu-oracle")

LOCALES = ["en_US", "de_DE", "fr_FR", "en_GB", "pt_BR", "ar_EG", "he_IL", "ja_JP", "zh_CN",
           "ru_RU", "fa_IR", "hi_IN", "es_ES", "sv_SE", "nl_NL", "ar_SA", "en_AU", "ko_KR"]
PATTERNS = ["EEEE, d. MMMM y", "EEE YYYY-ww", "d MMM y G", "e EEEE", "QQQ y"]
# Locales with keywords: (ours, ICU's locale for the oracle, first day forced on the oracle).
# ICU 72 ignores the `fw` keyword, which the extension honours: the oracle sets it by hand.
KEYWORD_LOCALES = [
    ("th_TH@calendar=buddhist", "th_TH@calendar=buddhist", None),
    ("ja_JP@calendar=japanese", "ja_JP@calendar=japanese", None),
    ("he-IL-u-ca-hebrew", "he_IL@calendar=hebrew", None),
    ("fa_IR@calendar=persian", "fa_IR@calendar=persian", None),
    ("en_US@fw=mon", "en_US@calendar=gregorian", icu.Calendar.MONDAY),
    ("de_DE@fw=sun", "de_DE@calendar=gregorian", icu.Calendar.SUNDAY),
]


def icu_calendar(oracle_locale, first_day=None):
    cal = icu.Calendar.createInstance(icu.TimeZone.getGMT(), icu.Locale(oracle_locale))
    if first_day is not None:
        cal.setFirstDayOfWeek(first_day)
    cal.clear()
    return cal


def gregorian_date(millis):
    g = icu.Calendar.createInstance(icu.TimeZone.getGMT(), icu.Locale("en_US@calendar=gregorian"))
    g.setTime(millis)
    return "%04d-%02d-%02d" % (g.get(icu.Calendar.YEAR), g.get(icu.Calendar.MONTH) + 1, g.get(icu.Calendar.DATE))


def main():
    con = connect_sqlite3(ext_path())
    rng = random.Random(20261123)
    days = []
    for year in range(1583, 2101):
        days += [(year, 12, d) for d in range(25, 32)] + [(year + 1, 1, d) for d in range(1, 9)]
    days += [(rng.randint(1583, 9999), rng.randint(1, 12), rng.randint(1, 28)) for _ in range(3000)]
    checked = failed = 0
    cases = [(loc, loc + "@calendar=gregorian", None) for loc in LOCALES] + KEYWORD_LOCALES
    greg = icu.Calendar.createInstance(icu.TimeZone.getGMT(), icu.Locale("en_US@calendar=gregorian"))
    for locale, oracle_locale, first_day in cases:
        cal = icu_calendar(oracle_locale, first_day)
        first = cal.getFirstDayOfWeek()
        formats = {}
        if first_day is None:  # SimpleDateFormat cannot be given a first day of its own
            for p in PATTERNS:
                f = icu.SimpleDateFormat(p, icu.Locale(oracle_locale))
                f.setTimeZone(icu.TimeZone.getGMT())
                formats[p] = f
        sample = days if locale in ("en_US", "de_DE", "ar_EG", "fa_IR") else days[::7]
        for (y, m, d) in sample:
            if "@" in locale or "-u-" in locale:
                if y < 1600:
                    continue
            text = "%04d-%02d-%02d" % (y, m, d)
            greg.clear()
            greg.set(y, m - 1, d)
            millis = greg.getTime()
            cal.clear()
            cal.setTime(millis)
            want_week = "%04d-%02d" % (cal.get(icu.Calendar.YEAR_WOY), cal.get(icu.Calendar.WEEK_OF_YEAR))
            want_weekday = (cal.get(icu.Calendar.DAY_OF_WEEK) - first) % 7 + 1
            want_start = gregorian_date(millis - (want_weekday - 1) * 86400)  # PyICU times are in seconds
            row = con.execute("SELECT locale_week(?1, ?2), locale_weekday(?1, ?2), locale_week_start(?1, ?2)",
                              (text, locale)).fetchone()
            want = (want_week, want_weekday, want_start)
            checked += 1
            if tuple(row) != want:
                failed += 1
                if failed <= 10:
                    print(f"MISMATCH {locale} {text}: ours {tuple(row)}, ICU {want}")
            if y <= 2100 and (d % 3 == 0 or m == 1):
                for p, f in formats.items():
                    ours = con.execute("SELECT format_date(?, ?, ?)", (p, text, locale)).fetchone()[0]
                    theirs = f.format(millis)
                    checked += 1
                    if ours != theirs:
                        failed += 1
                        if failed <= 10:
                            print(f"MISMATCH format_date({p!r}, {text}, {locale}): ours {ours!r}, ICU {theirs!r}")
    print(f"check-ext-icu-oracle: {checked - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
