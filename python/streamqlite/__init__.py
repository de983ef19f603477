"""StreamQLite for Python: the SQLite extension, ready to load.

    import sqlite3, streamqlite
    conn = sqlite3.connect("data.db")
    streamqlite.load(conn)                 # every function, json_stream/csv_stream too
    streamqlite.load(conn, files=False)    # everything except what reads files

``load`` takes a ``sqlite3.Connection`` or an ``apsw.Connection``.  The
extension (``streamqlite.so`` in this package, with ICU, zlib and zstd inside the
wheel) is the same file ``.load`` takes in the sqlite3 shell:
``loadable_path()`` gives its path.  The SQL functions are documented in
docs/sql/ of the project.
"""

from __future__ import annotations

import os
import sqlite3
from typing import Any

__all__ = ["load", "loadable_path", "entry_point", "__version__", "MINIMUM_SQLITE"]

#: The version of the extension inside this package: ``SELECT streamqlite_version()``.
__version__ = "@VERSION@"

#: The oldest SQLite the extension runs on (Debian 12's).
MINIMUM_SQLITE = (3, 40, 0)

_HERE = os.path.dirname(os.path.abspath(__file__))


def loadable_path(files: bool = True) -> str:
    """The path of the extension, without its ``.so`` suffix, as SQLite's loaders take it.

    With ``files=True`` the name makes SQLite call the full entry point; with
    ``files=False``, the no-read one (``streamqlite_noread``: no ``json_stream``
    or ``csv_stream``, for hosts where others type the SQL)."""
    return os.path.join(_HERE, "streamqlite" if files else "streamqlite_noread")


def entry_point(files: bool = True) -> str:
    """The name of the C entry point ``load`` calls: ``sqlite3_streamqlite_init``, or
    ``sqlite3_streamqlite_noread_init`` with ``files=False``."""
    return "sqlite3_streamqlite_init" if files else "sqlite3_streamqlite_noread_init"


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".")[:3])


def _check_sqlite(version: str, host: str) -> None:
    if _version_tuple(version) < MINIMUM_SQLITE:
        need = ".".join(map(str, MINIMUM_SQLITE))
        raise RuntimeError(
            f"streamqlite.load: {host} uses SQLite {version}; the extension needs {need} or newer"
            " (apsw bundles a current SQLite: pip install apsw)")


def _no_loading(host: str) -> RuntimeError:
    return RuntimeError(
        f"streamqlite.load: {host} was built without extension loading"
        " (SQLITE_OMIT_LOAD_EXTENSION, as the python.org macOS builds and some pyenv builds are);"
        " use a Python whose sqlite3 can load extensions (Debian's python3, or one built with"
        " --enable-loadable-sqlite-extensions), or apsw (pip install apsw), which always can")


def load(conn: Any, files: bool = True) -> None:
    """Loads StreamQLite into ``conn``, a ``sqlite3.Connection`` or an ``apsw.Connection``.

    ``files=True`` (the default) registers every function, including the
    ``json_stream`` and ``csv_stream`` tables that read any file the process can
    read; ``files=False`` loads everything else (for Datasette, web SQL consoles,
    servers where other people type SQL).  Extension loading is switched on only
    while the extension loads, and off again afterwards.  Raises ``RuntimeError``
    when the host's SQLite cannot load extensions or is too old, and the host's
    own error when SQLite refuses the file."""
    path = loadable_path()
    entry = entry_point(files)
    if isinstance(conn, sqlite3.Connection):
        _check_sqlite(sqlite3.sqlite_version, "Python's sqlite3 module")
        enable = getattr(conn, "enable_load_extension", None)
        if not callable(enable):
            raise _no_loading("Python's sqlite3 module")
        enable(True)
        try:
            # SQL's load_extension(path, entry) takes an entry point on every Python.
            conn.execute("SELECT load_extension(?, ?)", (path, entry)).fetchall()
        finally:
            enable(False)
        return
    if type(conn).__module__ == "apsw" and type(conn).__name__ == "Connection":
        import apsw  # the caller's own: not a dependency of this package
        _check_sqlite(apsw.sqlite_lib_version(), "apsw")
        enable = getattr(conn, "enable_load_extension", None) or getattr(conn, "enableloadextension", None)
        loadext = getattr(conn, "load_extension", None) or getattr(conn, "loadextension", None)
        if not callable(enable) or not callable(loadext):
            raise _no_loading("apsw")
        enable(True)
        try:
            loadext(path, entry)
        finally:
            enable(False)
        return
    raise TypeError(
        f"streamqlite.load: conn must be a sqlite3.Connection or an apsw.Connection, not {type(conn).__name__}")
