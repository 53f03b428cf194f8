"""HTTP API: create short links and redirect to their targets."""

from __future__ import annotations

from flask import Flask, abort, jsonify, redirect, request

from . import config, db, ratelimit, slugs


def create_app(overrides: dict | None = None) -> Flask:
    app = Flask(__name__)
    app.config.update(config.from_env())
    if overrides:
        app.config.update(overrides)
    db.init_app(app)
    ratelimit.init_app(app)

    @app.post("/api/links")
    def create_link():
        body = request.get_json(force=True)
        url = body.get("url", "")
        if not url.startswith(("http://", "https://")):
            return jsonify(error="url must be http(s)"), 400
        slug = body.get("slug") or slugs.random_slug()
        if not slugs.is_valid(slug):
            return jsonify(error="invalid slug"), 400
        if db.get_link(slug) is not None:
            return jsonify(error="slug already taken"), 409
        db.add_link(slug, url)
        resp = jsonify(slug=slug, url=url)
        resp.status_code = 201
        resp.headers["Location"] = f"/{slug}"
        return resp

    @app.get("/<slug>")
    def follow(slug: str):
        link = db.get_link(slug)
        if link is None:
            abort(404)
        db.record_hit(slug)
        return redirect(link["url"], code=302)

    @app.get("/api/links/<slug>/stats")
    def stats(slug: str):
        return jsonify(slug=slug, hits=db.hit_count(slug))

    @app.get("/healthz")
    def healthz():
        return jsonify(status="ok")

    return app
