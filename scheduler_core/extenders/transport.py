"""The HTTP side of an extender call: TLS from tlsConfig, proxies, and Go's error wording.

extender.go's makeTransport: a configured CA replaces the system roots, enableHTTPS without one
skips verification, a client certificate may come from files or inline data; a failed
client.Do is worded as Go's net/http words it, since that is what kube-scheduler logs.
"""
from __future__ import annotations

import ipaddress
import os
import socket
import ssl
import tempfile
import urllib.error
import urllib.request
from http.client import RemoteDisconnected
from urllib.parse import urlsplit

from .config import ExtenderConfig, TLSConfig

# How much of an unexpected response body the trace quotes.
BODY_EXCERPT = 200


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _ServerNameContext(ssl.SSLContext):
    """tls.Config.ServerName: verify (and send SNI for) a name other than the URL's host."""

    server_name = ""

    def wrap_socket(self, sock, *args, server_hostname=None, **kwargs):
        return super().wrap_socket(sock, *args, server_hostname=self.server_name or
                                   server_hostname, **kwargs)


def _load_cert_chain(ctx: ssl.SSLContext, tls: TLSConfig) -> None:
    """Client certificate from files or from data (ssl wants files: data goes through temp)."""
    paths, temps = [], []
    try:
        for file, data in ((tls.cert_file, tls.cert_data), (tls.key_file, tls.key_data)):
            if data:
                fd, path = tempfile.mkstemp(suffix=".pem")
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                temps.append(path)
                paths.append(path)
            else:
                paths.append(file or None)
        ctx.load_cert_chain(paths[0], paths[1])
    finally:
        for path in temps:
            os.unlink(path)


def ssl_context(ext: ExtenderConfig) -> ssl.SSLContext | None:
    """makeTransport: TLS settings from tlsConfig; enableHTTPS without a CA skips verification."""
    tls = ext.tls or TLSConfig()
    if tls.has_ca() and tls.insecure:
        raise ValueError("specifying a root certificates file with the insecure flag is not "
                         "allowed")
    insecure = tls.insecure or (ext.enable_https and not tls.has_ca())
    has_cert = bool(tls.cert_file or tls.cert_data)
    has_key = bool(tls.key_file or tls.key_data)
    if has_cert != has_key:
        raise ValueError("client certificate and key must be given together "
                         "(certFile/certData with keyFile/keyData)")
    if ext.tls is None and not ext.enable_https:
        return None
    ctx = _ServerNameContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.server_name = tls.server_name
    if insecure:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    elif tls.has_ca():
        # A configured CA replaces the system roots, as a Go RootCAs pool does.
        ctx.load_verify_locations(cafile=tls.ca_file or None,
                                  cadata=tls.ca_data.decode() if tls.ca_data else None)
    else:
        ctx.load_default_certs()
    if has_cert:
        _load_cert_chain(ctx, tls)
    return ctx


def opener(ext: ExtenderConfig, ctx: ssl.SSLContext | None):
    handlers = [urllib.request.HTTPSHandler(context=ctx)] if ctx is not None else []
    host = urlsplit(ext.url_prefix).hostname or ""
    if _is_loopback(host):
        # Go's ProxyFromEnvironment never proxies loopback; urllib would, from http_proxy.
        handlers.append(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener(*handlers)


def transport_error(url: str, exc: BaseException) -> str:
    """The error text of a failed client.Do, worded as Go's net/http words it."""
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if isinstance(reason, ConnectionRefusedError):
        return f'Post "{url}": dial tcp {address}: connect: connection refused'
    if isinstance(reason, socket.gaierror):
        return f'Post "{url}": dial tcp: lookup {host}: no such host'
    if isinstance(reason, TimeoutError):
        return (f'Post "{url}": context deadline exceeded (Client.Timeout exceeded while '
                "awaiting headers)")
    if isinstance(reason, RemoteDisconnected):
        return f'Post "{url}": EOF'
    if isinstance(reason, ssl.SSLError):
        return f'Post "{url}": tls: {reason}'
    if isinstance(reason, str) and "unknown url type" in reason:
        return f'Post "{url}": unsupported protocol scheme "{parts.scheme}"'
    return f'Post "{url}": {reason}'


def excerpt(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace")
    return text if len(text) <= BODY_EXCERPT else text[:BODY_EXCERPT] + "..."
