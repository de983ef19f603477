"""sqlite-utils plugin: StreamQLite's functions in ``sqlite-utils query``, ``memory``
and every other command.  sqlite-utils runs on the user's own machine and files,
so it loads the full entry point (``json_stream`` and ``csv_stream`` too).
Install with ``sqlite-utils install sqlite-utils-streamqlite``."""

import sqlite_utils

import streamqlite


@sqlite_utils.hookimpl
def prepare_connection(conn):
    streamqlite.load(conn, files=True)
