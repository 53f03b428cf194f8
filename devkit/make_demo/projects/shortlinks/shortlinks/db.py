"""SQLite storage: one connection per request."""

from __future__ import annotations

import sqlite3
import time

from flask import Flask, current_app, g

SCHEMA = """
create table if not exists links (slug text primary key, url text not null, created real not null);
create table if not exists hits (slug text not null, at real not null);
create index if not exists hits_slug on hits (slug);
"""


def conn() -> sqlite3.Connection:
    if "db" not in g:
        g.db = sqlite3.connect(current_app.config["DATABASE"])
        g.db.row_factory = sqlite3.Row
    return g.db


def init_app(app: Flask) -> None:
    with app.app_context():
        conn().executescript(SCHEMA)

    @app.teardown_appcontext
    def _close(exc):
        db = g.pop("db", None)
        if db is not None:
            db.close()


def add_link(slug: str, url: str) -> None:
    with conn() as c:
        c.execute("insert into links values (?, ?, ?)", (slug, url, time.time()))


def get_link(slug: str) -> sqlite3.Row | None:
    return conn().execute("select * from links where slug = ?", (slug,)).fetchone()


def record_hit(slug: str) -> None:
    with conn() as c:
        c.execute("insert into hits values (?, ?)", (slug, time.time()))


def hit_count(slug: str) -> int:
    return conn().execute("select count(*) from hits where slug = ?", (slug,)).fetchone()[0]
