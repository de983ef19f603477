#!/usr/bin/env python3
"""The weekly-report functions against PyICU (Debian's python3-icu) as an outside oracle.

locale_week_of_month must be ICU's WEEK_OF_MONTH (the pattern letter W) and
locale_week_label ICU's DateIntervalFormat of the week's first and last day
(skeletons yMd, yMMMd, yMMMMd for the styles short, medium, long), for every
locale below over every day of a few years around month and year ends, and
random days from 1583 (ICU is Julian before 1582) to 9999.

In the calendars whose weeks ICU counts itself (persian, hebrew, islamic,
coptic, ethiopic, indian, chinese, dangi) the five functions of a report
agree with ICU in that calendar: locale_week (YEAR_WOY-WEEK_OF_YEAR),
locale_week_parse (the key back to the week's first day), locale_week_of_month
(WEEK_OF_MONTH in that calendar's month), locale_week_label (the interval
format in that calendar) and every row of locale_weeks.

    python3 scripts/check-ext-week-report-oracle.py build/streamqlite.so
"""
import datetime
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extcheck import connect_sqlite3, ext_path, require_pyicu  # noqa: E402

icu = require_pyicu("check-ext-week-report-oracle")

LOCALES = ["en_US", "de_DE", "fr_FR", "en_GB", "pt_PT", "ar_EG", "he_IL", "ja_JP", "zh_CN",
           "ru_RU", "fa_IR", "es_ES", "sv_SE", "ko_KR", "th_TH", "en_US@fw=mon", "de_DE@fw=sun"]
STYLES = {"short": "yMd", "medium": "yMMMd", "long": "yMMMMd"}
DAY = 86400  # PyICU times are in seconds


def oracle_calendar(locale):
    base, _, kw = locale.partition("@")
    cal = icu.Calendar.createInstance(icu.TimeZone.getGMT(), icu.Locale(base + "@calendar=gregorian"))
    if kw == "fw=mon":
        cal.setFirstDayOfWeek(icu.Calendar.MONDAY)
    elif kw == "fw=sun":
        cal.setFirstDayOfWeek(icu.Calendar.SUNDAY)
    return cal


def main():
    icu.TimeZone.setDefault(icu.TimeZone.getGMT())  # the interval formats' zone
    con = connect_sqlite3(ext_path())
    rng = random.Random(20261125)
    days = []
    for year in (1584, 1900, 2010, 2011, 2012, 2024, 2025):
        first = datetime.date(year, 1, 1).toordinal()
        days += [datetime.date.fromordinal(n).timetuple()[:3] for n in range(first, first + 366)]
    days += [(rng.randint(1584, 9999), rng.randint(1, 12), rng.randint(1, 28)) for _ in range(1500)]
    checked = failed = 0

    def check(what, ours, want):
        nonlocal checked, failed
        checked += 1
        if ours != want:
            failed += 1
            if failed <= 10:
                print(f"MISMATCH {what}: ours {ours!r}, ICU {want!r}")

    for locale in LOCALES:
        cal = oracle_calendar(locale)
        base = locale.partition("@")[0]
        formats = {s: icu.DateIntervalFormat.createInstance(sk, icu.Locale(base + "@calendar=gregorian"))
                   for s, sk in STYLES.items()}
        first = cal.getFirstDayOfWeek()
        for i, (y, m, d) in enumerate(days):
            text = "%04d-%02d-%02d" % (y, m, d)
            cal.clear()
            cal.set(y, m - 1, d)
            millis = cal.getTime()
            want_wom = cal.get(icu.Calendar.WEEK_OF_MONTH)
            start = millis - ((cal.get(icu.Calendar.DAY_OF_WEEK) - first) % 7) * DAY
            style = ("short", "medium", "long")[i % 3]
            want_label = formats[style].format(icu.DateInterval(start, start + 6 * DAY))
            row = con.execute("SELECT locale_week_of_month(?1, ?2), locale_week_label(?1, ?2, 'UTC', ?3)",
                              (text, locale, style)).fetchone()
            check(f"locale_week_of_month({text}, {locale})", row[0], want_wom)
            check(f"locale_week_label({text}, {locale}, {style})", row[1], want_label)
    check_other_calendars(con, rng, check)
    print(f"check-ext-week-report-oracle: {checked - failed} passed, {failed} failed")
    return 1 if failed else 0


OTHER_CALENDARS = ["fa_IR@calendar=persian", "en_US@calendar=persian", "he_IL@calendar=hebrew",
                   "ar_SA@calendar=islamic", "ar_SA@calendar=islamic-umalqura", "en_US@calendar=coptic",
                   "am_ET@calendar=ethiopic", "hi_IN@calendar=indian", "zh_CN@calendar=chinese",
                   "ko_KR@calendar=dangi"]


def check_other_calendars(con, rng, check):
    days = []
    for year in (1600, 2023, 2024):
        first = datetime.date(year, 1, 1).toordinal()
        days += [datetime.date.fromordinal(n) for n in range(first, first + 366)]
    days += [datetime.date(rng.randint(1583, 9990), rng.randint(1, 12), rng.randint(1, 28)) for _ in range(300)]
    epoch = datetime.date(1970, 1, 1).toordinal()
    for locale in OTHER_CALENDARS:
        loc = icu.Locale(locale)
        cal = icu.Calendar.createInstance(icu.TimeZone.getGMT(), loc)
        formats = {s: icu.DateIntervalFormat.createInstance(sk, loc) for s, sk in STYLES.items()}
        first = cal.getFirstDayOfWeek()
        for i, day in enumerate(days):
            text = day.isoformat()
            cal.setTime(float((day.toordinal() - epoch) * DAY))
            want_key = "%04d-%02d" % (cal.get(icu.Calendar.YEAR_WOY), cal.get(icu.Calendar.WEEK_OF_YEAR))
            want_wom = cal.get(icu.Calendar.WEEK_OF_MONTH)
            start = day - datetime.timedelta(days=(cal.get(icu.Calendar.DAY_OF_WEEK) - first) % 7)
            start_s = float((start.toordinal() - epoch) * DAY)
            style = ("short", "medium", "long")[i % 3]
            want_label = formats[style].format(icu.DateInterval(start_s, start_s + 6 * DAY))
            try:
                row = con.execute("SELECT locale_week(?1, ?2), locale_week_parse(locale_week(?1, ?2), ?2), "
                                  "locale_week_of_month(?1, ?2), locale_week_label(?1, ?2, 'UTC', ?3)",
                                  (text, locale, style)).fetchone()
            except Exception as e:
                check(f"the four functions on {text}, {locale}", str(e), None)
                continue
            check(f"locale_week({text}, {locale})", row[0], want_key)
            check(f"locale_week_parse(locale_week({text}), {locale})", row[1], start.isoformat())
            check(f"locale_week_of_month({text}, {locale})", row[2], want_wom)
            check(f"locale_week_label({text}, {locale}, {style})", row[3], want_label)
        # a series across a year end of that calendar: every row as ICU has it
        a = datetime.date(2024, 1, 1)
        rows = con.execute("SELECT week, week_start, week_end, label FROM locale_weeks(?1, ?2, ?3)",
                           (a.isoformat(), (a + datetime.timedelta(days=800)).isoformat(), locale)).fetchall()
        for week, ws, we, label in rows:
            d = datetime.date.fromisoformat(ws)
            cal.setTime(float((d.toordinal() - epoch) * DAY))
            want = ("%04d-%02d" % (cal.get(icu.Calendar.YEAR_WOY), cal.get(icu.Calendar.WEEK_OF_YEAR)),
                    (d + datetime.timedelta(days=6)).isoformat(),
                    formats["medium"].format(icu.DateInterval(float((d.toordinal() - epoch) * DAY),
                                                              float((d.toordinal() - epoch + 6) * DAY))),
                    cal.get(icu.Calendar.DAY_OF_WEEK) == first)
            check(f"locale_weeks row {ws}, {locale}", (week, we, label, True), want)
        check(f"locale_weeks rows, {locale}", len(rows) in (115, 116, 117), True)


if __name__ == "__main__":
    sys.exit(main())
