import pytest

from shortlinks.app import create_app


@pytest.fixture
def client(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "test.sqlite3"), "RATE_LIMIT": "1000/minute"})
    return app.test_client()
