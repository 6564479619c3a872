"""The deploy guide's nginx site (docs/deploy/nginx-ponte.conf), run by Debian's nginx in front of the web
process as the Procfile starts it, with PONTE_HTTPS=1 and PONTE_TRUSTED_PROXIES=127.0.0.1 as
docs/deploy.md says: TLS answers, HTTP redirects, an IP-restricted key is judged by the real client
address and cannot be fooled by a client's own X-Forwarded-For, the admin's cookies are Secure, HSTS is
sent, the body limit matches Ponte's, /ws is upgraded and MCP answers.

nginx runs unprivileged-style: its own prefix, pid, temp paths and log in a temporary folder, on free
ports of 127.0.0.1, with a self-signed certificate made for the test. CI installs nginx (.ci/run);
outside CI the module is skipped when nginx is missing, in CI it fails.
"""

from __future__ import annotations

import datetime
import http.client
import ipaddress
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from django.conf import global_settings, settings
from django.contrib.auth import get_user_model

from accounts.models import ApiKey
from accounts.services import api_key_create
from tests.conftest import IN_CI
from tests.deploy.support import free_port, start_web, stop, wait_for_port

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "docs" / "deploy" / "nginx-ponte.conf"
NGINX = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.path.exists(p)), None)
OTHER_ADDRESS = "203.0.113.7"

if NGINX is None:
    if IN_CI:
        raise RuntimeError("nginx is missing: .ci/run installs Debian's nginx; CI must run this test")
    pytest.skip("nginx is not installed (apt-get install nginx); CI installs it", allow_module_level=True)


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 (and localhost), valid for a day."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "ponte test proxy")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


def render_site(*, http_port: int, https_port: int, upstream_port: int, cert: Path, key: Path) -> str:
    """The shipped site with the test's ports, certificate and upstream; each replaced text must be
    there exactly once, so the file and this test cannot drift apart unnoticed."""
    text = SITE.read_text()
    replacements = {
        "listen 80;": f"listen 127.0.0.1:{http_port};",
        "listen [::]:80;": "",
        "listen 443 ssl http2;": f"listen 127.0.0.1:{https_port} ssl http2;",
        "listen [::]:443 ssl http2;": "",
        "server 127.0.0.1:8000;": f"server 127.0.0.1:{upstream_port};",
        "/etc/letsencrypt/live/ponte.example.com/fullchain.pem": str(cert),
        "/etc/letsencrypt/live/ponte.example.com/privkey.pem": str(key),
    }
    for old, new in replacements.items():
        assert text.count(old) == 1, f"{SITE.name} should contain {old!r} once"
        text = text.replace(old, new)
    return text


def main_config(folder: Path, site: Path) -> str:
    """What /etc/nginx/nginx.conf gives the site, with every path in `folder`."""
    # As root (CI) the workers would switch to `nobody`, who cannot use the temporary folder.
    user = "user root;" if os.geteuid() == 0 else ""
    kinds = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    temp = "\n".join(f"    {kind}_temp_path {folder / kind};" for kind in kinds)
    return f"""
{user}
daemon off;
worker_processes 1;
pid {folder / "nginx.pid"};
error_log {folder / "error.log"} warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
{temp}
    include {site};
}}
"""


@dataclass
class Proxy:
    http_port: int
    https_port: int
    tls: ssl.SSLContext

    def https(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        connection = http.client.HTTPSConnection("127.0.0.1", self.https_port, context=self.tls, timeout=60)
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response, response.read()


@pytest.fixture
def proxy(tmp_path, default_plans) -> Iterator[Proxy]:
    web_port, http_port, https_port = free_port(), free_port(), free_port()
    cert, key = self_signed_certificate(tmp_path)
    site = tmp_path / "ponte.conf"
    site.write_text(
        render_site(http_port=http_port, https_port=https_port, upstream_port=web_port, cert=cert, key=key)
    )
    config = tmp_path / "nginx.conf"
    config.write_text(main_config(tmp_path, site))
    web = start_web(web_port, PONTE_HTTPS="1", PONTE_TRUSTED_PROXIES="127.0.0.1")
    nginx = None
    try:
        check = subprocess.run(
            [NGINX, "-t", "-p", str(tmp_path), "-e", str(tmp_path / "error.log"), "-c", str(config)],
            capture_output=True,
            text=True,
        )
        assert check.returncode == 0, check.stderr
        nginx = subprocess.Popen(
            [NGINX, "-p", str(tmp_path), "-e", str(tmp_path / "error.log"), "-c", str(config)],
            start_new_session=True,
        )
        wait_for_port(https_port, nginx, "nginx")
        tls = ssl.create_default_context(cafile=str(cert))
        yield Proxy(http_port=http_port, https_port=https_port, tls=tls)
    finally:
        if nginx is not None:
            stop(nginx)
        stop(web)


def test_https_answers_and_plain_http_is_redirected_to_https(proxy):
    response, body = proxy.https("GET", "/healthz")
    assert response.status == 200, body

    plain = http.client.HTTPConnection("127.0.0.1", proxy.http_port, timeout=30)
    plain.request("GET", "/api/me?x=1")
    redirect = plain.getresponse()
    assert redirect.status == 301
    assert redirect.getheader("Location") == "https://127.0.0.1/api/me?x=1"


def test_an_ip_restricted_key_is_judged_by_the_real_client_address_behind_the_proxy(proxy, account):
    _, from_here = api_key_create(account=account, role=ApiKey.Role.ADMIN, allowed_ips=["127.0.0.1"])
    _, from_elsewhere = api_key_create(account=account, role=ApiKey.Role.ADMIN, allowed_ips=[OTHER_ADDRESS])
    spoofs = [
        {},
        {"X-Forwarded-For": OTHER_ADDRESS},
        {"X-Forwarded-For": f"{OTHER_ADDRESS}, 127.0.0.1"},
        {"X-Real-IP": OTHER_ADDRESS, "Forwarded": f"for={OTHER_ADDRESS}"},
    ]
    for spoof in spoofs:
        allowed, body = proxy.https("GET", "/api/me", headers={"X-API-Key": from_here, **spoof})
        assert allowed.status == 200, (spoof, body)
        refused, body = proxy.https("GET", "/api/me", headers={"X-API-Key": from_elsewhere, **spoof})
        assert refused.status == 403, (spoof, body)


def test_the_admin_login_cookies_are_secure_and_https_replies_carry_hsts(proxy, settings):
    # The web process behind nginx checks the password with the real hashers, not the suite's quick one.
    settings.PASSWORD_HASHERS = global_settings.PASSWORD_HASHERS
    get_user_model().objects.create_superuser("staff", "staff@example.com", "a long test password 1")
    page, _ = proxy.https("GET", "/admin/login/")
    assert page.status == 200
    assert page.getheader("Strict-Transport-Security", "").startswith("max-age=31536000")
    csrf = SimpleCookie(page.getheader("Set-Cookie"))["csrftoken"]
    assert csrf["secure"] is True

    origin = f"https://127.0.0.1:{proxy.https_port}"
    form = urlencode(
        {
            "csrfmiddlewaretoken": csrf.value,
            "username": "staff",
            "password": "a long test password 1",
            "next": "/admin/",
        }
    )
    login, body = proxy.https(
        "POST",
        "/admin/login/",
        body=form.encode(),
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={csrf.value}",
            "Referer": f"{origin}/admin/login/",
            "Origin": origin,
        },
    )
    assert login.status == 302, body[:500]
    cookies = SimpleCookie()
    for header in login.headers.get_all("Set-Cookie"):
        cookies.load(header)
    assert cookies["sessionid"]["secure"] is True
    assert cookies["sessionid"]["httponly"] is True
    assert cookies["csrftoken"]["secure"] is True


def test_the_proxys_body_limit_is_ponte_s(proxy):
    declared = re.search(r"client_max_body_size (\d+)m;", SITE.read_text())
    assert declared is not None
    assert int(declared.group(1)) * 1024 * 1024 == settings.PONTE_MAX_BODY_BYTES == 8 * 1024 * 1024
    limit = settings.PONTE_MAX_BODY_BYTES
    headers = {"Content-Type": "application/json"}
    # Within the limit the body reaches Ponte (its own 401 in the messaging shape).
    within, body = proxy.https("POST", "/api/sessions", body=b" " * (limit - 1024), headers=headers)
    assert within.status == 401, body[:300]
    assert json.loads(body)["statusCode"] == 401
    over, body = proxy.https("POST", "/api/sessions", body=b" " * (limit + 1), headers=headers)
    assert over.status == 413
    assert over.getheader("Server", "").startswith("nginx")


def test_websocket_handshakes_on_ws_reach_the_web_process_and_mcp_answers(proxy):
    raw = socket.create_connection(("127.0.0.1", proxy.https_port), timeout=30)
    with proxy.tls.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
        tls.sendall(
            b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        status_line = tls.recv(4096).split(b"\r\n", 1)[0].decode()
    # Without the upgrade headers the web process would see a plain GET and Django would answer 404;
    # a handshake it received is accepted (101) or refused as a handshake (403, or 401 without a key).
    assert status_line.split()[1] in {"101", "401", "403"}, status_line

    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    response, body = proxy.https(
        "POST",
        "/bonds/mcp",
        body=json.dumps(call).encode(),
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
    )
    assert response.status == 200, body[:300]
    assert "list_bonds" in body.decode()


def test_the_proxy_refuses_a_burst_of_sign_in_posts_to_both_sign_ins_and_still_shows_the_pages(proxy):
    """nginx's zone: a burst of 10 POSTs per client address, to either sign-in, then 429 from nginx
    itself (Ponte's own limits, accounts/signin.py: tests/accounts/test_account_throttles.py)."""
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    refused, passed = [], []
    for n in range(30):
        path = ("/account/login/", "/admin/login/")[n % 2]
        reply, _ = proxy.https("POST", path, body=f"username=u{n}&password=x".encode(), headers=form)
        if reply.status == 429:
            assert reply.getheader("Server", "").startswith("nginx")
            refused.append(path)
        else:
            # Attempts within the burst reach Ponte (here its CSRF refusal).
            assert reply.status == 403, (path, reply.status)
            passed.append(path)
    assert 10 <= len(passed) <= 13, passed  # the burst, and the odd one as the rate allows
    assert set(refused) == {"/account/login/", "/admin/login/"}
    for path in ("/account/login/", "/admin/login/"):
        page, _ = proxy.https("GET", path)
        assert page.status == 200, path
