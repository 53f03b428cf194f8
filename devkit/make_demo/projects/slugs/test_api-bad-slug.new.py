@pytest.mark.parametrize("slug", ["東京-guide", "café", "ab", "a--b", "-lead", "ﬁle", "x" * 33])
def test_rejects_bad_slug(client, slug):
    resp = client.post("/api/links", json={"url": "https://example.org/", "slug": slug})
    assert resp.status_code == 400
    assert "a-z, 0-9" in resp.json["error"]


def test_duplicate_slug(client):