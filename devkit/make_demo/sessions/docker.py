"""Session 6, shortlinks: a Dockerfile (isError, ``!`` and ``!!``, a name set then cleared)."""

from __future__ import annotations

from devkit.make_demo.sessions import SHORTLINKS_CWD, data, scripted_session
from devkit.simulator import Session
from devkit.tool_calls import bash, read, write


def build(files: dict[str, str]) -> tuple[Session, dict]:
    s = scripted_session(106, SHORTLINKS_CWD, "2026-03-20T11:07:31.090Z", "anthropic/claude-opus-4-5", "medium", files)
    s.user(
        "Add a Dockerfile (python:3.12-slim, gunicorn, non-root user) and a compose.yaml that keeps "
        "the SQLite database in a volume.",
        think=(25, 50),
    )
    s.step(thinking="Check dependencies and the app factory name for gunicorn.", tools=[read("pyproject.toml")])
    s.step(
        "gunicorn is already a dependency. Writing both files.",
        thinking="uv for installs (fast, uses the lock file). App: shortlinks.app:create_app(). "
        "Database path via SHORTLINKS_DATABASE=/data/shortlinks.sqlite3 and a named volume on /data. "
        "One worker, because the rate limiter is per process.",
        tools=[
            write(
                "Dockerfile",
                data("docker", "Dockerfile"),
            ),
            write(
                "compose.yaml",
                data("docker", "compose.yaml"),
            ),
        ],
    )
    s.step(
        tools=[
            bash(
                "docker compose build",
                "Cannot connect to the Docker daemon at unix:///run/user/1000/docker.sock. "
                "Is the docker daemon running?",
                exit_code=1,
                duration=0.3,
            )
        ]
    )
    s.say(
        "The Docker daemon isn't running (this is a rootless setup: the socket is "
        "`/run/user/1000/docker.sock`). Start it with `systemctl --user start docker` and I'll build "
        "again."
    )
    s.session_info("wip docker")
    s.bash_execution(
        "systemctl --user start docker && docker info --format '{{.ServerVersion}}'", "28.0.1\n", duration=2.8
    )
    s.user("started, try again", think=(5, 15))
    s.step(
        tools=[
            bash(
                "docker compose build 2>&1 | tail -n 6",
                data("docker", "compose-build.txt"),
                duration=38.5,
                timeout=600,
            )
        ]
    )
    s.step(
        tools=[
            bash(
                "docker compose up -d && sleep 2 && curl -s localhost:8000/healthz && "
                'curl -s -X POST localhost:8000/api/links -H \'content-type: application/json\' -d \'{"url":"https://example.org","slug":"docker-test"}\'',
                ' Network shortlinks_default  Created\n Volume "shortlinks_data"  Created\n'
                " Container shortlinks-shortlinks-1  Started\n"
                '{"status":"ok"}\n{"slug":"docker-test","url":"https://example.org"}',
                duration=4.2,
            )
        ]
    )
    s.bash_execution(
        "docker compose logs --tail 3",
        "shortlinks-1  | [2026-03-20 11:12:40 +0000] [1] [INFO] Listening at: http://0.0.0.0:8000 (1)\n"
        "shortlinks-1  | [2026-03-20 11:12:40 +0000] [1] [INFO] Using worker: gthread\n"
        "shortlinks-1  | [2026-03-20 11:12:40 +0000] [7] [INFO] Booting worker with pid: 7\n",
        exclude=True,
        duration=0.4,
    )
    s.say(
        "The image builds and the container serves requests: `/healthz` is ok and a link was "
        "created in the `shortlinks_data` volume. It runs as uid 10001 with one gunicorn worker (4 "
        "threads), since the rate limiter is per process."
    )
    s.session_info("")
    expect = {"branch_points": 0, "labels": {}, "name": None}
    return s, expect
