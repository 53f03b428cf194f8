def test_create_random_slug(client):
    resp = client.post("/api/links", json={"url": "https://example.org/a"})
    assert resp.status_code == 201
    assert len(resp.json["slug"]) == 7


def test_create_custom_slug(client):
    resp = client.post("/api/links", json={"url": "https://example.org/sale", "slug": "Summer-Sale"})
    assert resp.status_code == 201
    assert resp.headers["Location"] == "/Summer-Sale"


def test_duplicate_slug(client):
    client.post("/api/links", json={"url": "https://example.org/a", "slug": "taken"})
    resp = client.post("/api/links", json={"url": "https://example.org/b", "slug": "taken"})
    assert resp.status_code == 409


def test_rejects_non_http_url(client):
    resp = client.post("/api/links", json={"url": "javascript:alert(1)"})
    assert resp.status_code == 400


def test_follow(client):
    client.post("/api/links", json={"url": "https://example.org/docs", "slug": "docs"})
    resp = client.get("/docs")
    assert resp.status_code == 302
    assert resp.headers["Location"] == "https://example.org/docs"


def test_stats(client):
    client.post("/api/links", json={"url": "https://example.org/docs", "slug": "docs"})
    client.get("/docs")
    client.get("/docs")
    assert client.get("/api/links/docs/stats").json == {"slug": "docs", "hits": 2}
