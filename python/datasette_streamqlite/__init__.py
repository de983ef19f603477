"""Datasette plugin: StreamQLite's functions in every Datasette connection.

It loads the no-read entry point: locale-week reports, fiscal calendars and
labels work on the SQL page and in the JSON API, while ``json_stream`` and
``csv_stream`` (which read any file the server can read) do not exist for
visitors.  Install with ``datasette install datasette-streamqlite``."""

from datasette import hookimpl

import streamqlite


@hookimpl
def prepare_connection(conn):
    streamqlite.load(conn, files=False)
