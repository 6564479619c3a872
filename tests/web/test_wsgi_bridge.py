"""core/wsgi_bridge.py on a real uvicorn (in a thread of this process, on a free port): the pool bound,
streamed responses, request bodies, and what the WSGI app sees of the request."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest
import uvicorn

from core.wsgi_bridge import WsgiBridge


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def serving(app, *, lifespan: str = "off", root_path: str = "") -> Iterator[int]:
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=_free_port(),
        lifespan=lifespan,
        log_level="warning",
        access_log=False,
        root_path=root_path,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="uvicorn-bridge", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield config.port
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def bridge(app: Callable, *, threads: int = 4, body_limit: int | None = 1000) -> WsgiBridge:
    return WsgiBridge(app, threads=threads, body_limit=lambda: body_limit)


def echo_app(environ, start_response):
    """Answers with what it was given: the environ's strings and the body's length."""
    body = environ["wsgi.input"].read()
    seen = {key: value for key, value in environ.items() if isinstance(value, str)}
    seen["body_length"] = len(body)
    start_response("200 OK", [("Content-Type", "application/json")])
    return [json.dumps(seen).encode()]


def request(port: int, method: str, path: str, body: bytes | None = None, headers=None):
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    client.request(method, path, body=body, headers=headers or {})
    response = client.getresponse()
    return response.status, response.read()


def test_the_pool_runs_at_most_its_number_of_threads_at_once_and_queues_the_rest():
    active = 0
    most = 0
    lock = threading.Lock()

    def slow_app(environ, start_response):
        nonlocal active, most
        with lock:
            active += 1
            most = max(most, active)
        time.sleep(0.05)
        with lock:
            active -= 1
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]

    with serving(bridge(slow_app, threads=2)) as port:
        statuses: list[int] = []
        clients = [
            threading.Thread(target=lambda: statuses.append(request(port, "GET", "/")[0])) for _ in range(20)
        ]
        for client in clients:
            client.start()
        for client in clients:
            client.join()
    assert statuses == [200] * 20
    assert most == 2


def test_the_app_sees_the_method_path_query_headers_and_body_the_client_sent():
    with serving(bridge(echo_app)) as port:
        status, body = request(
            port,
            "POST",
            "/caf%C3%A9/x?a=1&b=%C3%A9",
            body=b'{"n": 1}',
            headers={"Content-Type": "application/json", "X-API-Key": "k1", "X-Request-Id": "r1"},
        )
    seen = json.loads(body)
    assert status == 200
    assert seen["REQUEST_METHOD"] == "POST"
    assert seen["PATH_INFO"] == "/café/x".encode().decode("latin-1")  # PEP 3333: bytes as latin-1
    assert seen["QUERY_STRING"] == "a=1&b=%C3%A9"
    assert (seen["CONTENT_TYPE"], seen["CONTENT_LENGTH"], seen["body_length"]) == ("application/json", "8", 8)
    assert (seen["HTTP_X_API_KEY"], seen["HTTP_X_REQUEST_ID"]) == ("k1", "r1")
    assert seen["REMOTE_ADDR"] == "127.0.0.1"
    assert seen["wsgi.url_scheme"] == "http"


def test_behind_a_mount_prefix_the_app_gets_it_as_script_name_and_the_rest_as_path_info():
    with serving(bridge(echo_app), root_path="/ponte") as port:
        _, body = request(port, "GET", "/api/me")
    seen = json.loads(body)
    assert (seen["SCRIPT_NAME"], seen["PATH_INFO"]) == ("/ponte", "/api/me")


def test_a_body_over_the_limit_is_not_read_past_it_and_the_app_is_told_its_real_length():
    with serving(bridge(echo_app, body_limit=1000)) as port:
        _, declared = request(
            port, "POST", "/", body=b"x" * 5000, headers={"Content-Type": "application/json"}
        )
        _, chunked = request(
            port,
            "POST",
            "/",
            body=iter([b"x" * 800, b"x" * 800, b"x" * 800]),
            headers={"Content-Type": "a/b"},
        )
    # A declared length over the limit: nothing is read, Django refuses on the declared length.
    assert (json.loads(declared)["CONTENT_LENGTH"], json.loads(declared)["body_length"]) == ("5000", 0)
    # Chunked: reading stops past the limit; the length given is over the limit, so Django refuses too.
    assert int(json.loads(chunked)["CONTENT_LENGTH"]) > 1000


def test_a_multipart_upload_is_read_whole_whatever_the_body_limit():
    upload = (
        b"--b\r\nContent-Disposition: form-data; name=f; filename=a.csv\r\n\r\n"
        + b"x" * 50_000
        + b"\r\n--b--\r\n"
    )
    with serving(bridge(echo_app, body_limit=1000)) as port:
        status, body = request(
            port, "POST", "/", body=upload, headers={"Content-Type": "multipart/form-data; boundary=b"}
        )
    assert status == 200
    assert json.loads(body)["body_length"] == len(upload)


def test_a_streamed_response_reaches_the_client_while_the_app_is_still_producing_it():
    go_on = threading.Event()

    def streaming_app(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/csv")])
        yield b"header\n"
        yield b"row 1\n"
        assert go_on.wait(20), "the client never saw the first rows"
        yield b"row 2\n"

    with serving(bridge(streaming_app)) as port:
        client = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        client.request("GET", "/export.csv")
        response = client.getresponse()
        first = response.read1()
        go_on.set()
        rest = response.read()
    assert response.status == 200
    assert first == b"header\nrow 1\n"
    assert first + rest == b"header\nrow 1\nrow 2\n"


def test_a_client_that_goes_away_stops_a_streamed_response():
    stopped = threading.Event()

    def endless_app(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/plain")])
        try:
            while True:
                yield b"x" * 65536
        finally:
            stopped.set()

    with serving(bridge(endless_app)) as port:
        client = socket.create_connection(("127.0.0.1", port))
        client.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert client.recv(65536).startswith(b"HTTP/1.1 200")
        client.close()
        assert stopped.wait(15)


def test_an_app_that_raises_gets_a_500_and_the_server_goes_on():
    def broken_app(environ, start_response):
        if environ["PATH_INFO"] == "/broken":
            raise RuntimeError("boom")
        return echo_app(environ, start_response)

    with serving(bridge(broken_app)) as port:
        assert request(port, "GET", "/broken")[0] == 500
        assert request(port, "GET", "/fine")[0] == 200


@pytest.mark.django_db(transaction=True)
def test_ponte_answers_an_over_limit_body_as_django_does_without_the_bridge(admin_key, api_client, settings):
    """The bridge leaves the refusal to Django (and its error shapes): declared or chunked, an over-limit
    body gets the answer Django's own test client gets, and the server goes on serving."""
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    from config.asgi import application

    body = json.dumps({"name": "x" * 5000}).encode()
    headers = {"X-API-Key": admin_key, "Content-Type": "application/json"}
    django_says = api_client.post(
        "/api/keys", data=body, content_type="application/json", HTTP_X_API_KEY=admin_key
    ).status_code
    with serving(application, lifespan="on") as port:
        declared, _ = request(port, "POST", "/api/keys", body=body, headers=headers)
        chunked, _ = request(port, "POST", "/api/keys", body=iter([body[:900], body[900:]]), headers=headers)
        after, _ = request(port, "GET", "/api/me", headers=headers)
    assert declared == chunked == django_says
    assert after == 200


def test_a_server_goes_on_serving_when_another_in_the_same_process_stops():
    """Each server (event loop) has its own pool; stopping one shuts down only its own."""
    from config.asgi import application

    with serving(application, lifespan="on") as first:
        with serving(application, lifespan="on") as second:
            assert request(second, "GET", "/healthz")[0] == 200
        assert request(first, "GET", "/healthz")[0] == 200
