"""storage_options is a per-call configuration (io::StoreOptions passed down to io::OpenUrl for
rap.scan): the call's endpoint is used, the process environment is neither read for a set key nor
changed, and two calls with different settings in one process each get their own."""

from __future__ import annotations

import os
import socket

import pytest

import rap


def closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_scan_uses_the_calls_endpoint_and_leaves_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    env_port, call_port = closed_port(), closed_port()
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{env_port}")
    monkeypatch.setenv("RAP_HTTP_MAX_ATTEMPTS", "1")
    before = dict(os.environ)
    opts = {"endpoint": f"http://127.0.0.1:{call_port}", "anonymous": True, "max_attempts": 1, "timeout": 5}
    with pytest.raises(rap.Error) as e:
        rap.scan("s3://bkt/t", storage_options=opts)
    assert str(call_port) in str(e.value) and str(env_port) not in str(e.value), str(e.value)
    assert dict(os.environ) == before
    # Without storage_options the environment's endpoint is the default.
    with pytest.raises(rap.Error) as e2:
        rap.scan("s3://bkt/t", storage_options={"anonymous": True, "timeout": 5})
    assert str(env_port) in str(e2.value), str(e2.value)


def test_unknown_key_and_bad_value_raise_before_io() -> None:
    with pytest.raises(rap.errors.InvalidArgument, match="unknown key 'endpont'"):
        rap.scan("s3://bkt/t", storage_options={"endpont": "http://x"})
    with pytest.raises(rap.errors.InvalidArgument, match="expected a dict"):
        rap.scan("s3://bkt/t", storage_options=[("endpoint", "x")])
