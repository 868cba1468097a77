"""Errors: the rap.Error class of the Status code with the CLI's message; bad arguments raise before
any I/O (checked against a URL whose store does not exist: an I/O attempt would raise IOError or
NotFound instead)."""

from __future__ import annotations

import pytest

import rap

NOWHERE = "http://127.0.0.1:9/nothing/table"  # port 9 (discard): nothing listens there


def test_hierarchy() -> None:
    for cls in (rap.InvalidArgument, rap.Corrupt, rap.NotFound, rap.AccessDenied, rap.IOError, rap.Timeout,
                rap.Cancelled, rap.Changed, rap.NotSupported, rap.ResourceExhausted, rap.Internal):
        assert issubclass(cls, rap.Error)
    assert issubclass(rap.InvalidArgument, ValueError)
    assert issubclass(rap.NotFound, LookupError)


def test_missing_table_is_not_found(tmp_path) -> None:
    with pytest.raises(rap.NotFound) as e:
        rap.scan(str(tmp_path / "absent"))
    assert str(tmp_path / "absent") in str(e.value)


@pytest.mark.parametrize(
    "kwargs, text",
    [
        ({"where": "a = = 1"}, "where: "),
        ({"warmup": "hot"}, "warmup: 'hot' is not none, raw or decoded"),
        ({"memory_limit": "lots"}, "memory_limit: "),
        ({"prefetch": 0}, "prefetch: 0 is not in [1, 256]"),
        ({"limit": -1}, "limit: -1 is negative"),
        ({"batch_size": 0}, "batch_size: 0 is not positive"),
        ({"plan": "sometimes"}, "plan: "),
        ({"storage_options": {"endpoint_ur": "x"}}, "storage_options: unknown key 'endpoint_ur'"),
        ({"storage_options": {"region": ["a"]}}, "storage_options['region']: expected a str, bool or number"),
        ({"columns": [1]}, "columns: expected column names"),
    ],
)
def test_bad_scan_arguments_raise_before_io(kwargs, text) -> None:
    with pytest.raises(rap.InvalidArgument) as e:
        rap.scan(NOWHERE, **kwargs)
    assert text in str(e.value)


def test_bad_maintenance_arguments_raise_before_io() -> None:
    with pytest.raises(rap.InvalidArgument, match="buckets: 0 is not in"):
        rap.build_index(NOWHERE, "k", buckets=0)
    with pytest.raises(rap.InvalidArgument, match="key: one or two key columns, got 3"):
        rap.build_index(NOWHERE, ["a", "b", "c"])
    with pytest.raises(rap.InvalidArgument, match="retain: "):
        rap.vacuum_index(NOWHERE, retain="soon")
    with pytest.raises(rap.InvalidArgument, match="give the output folder"):
        rap.rewrite(NOWHERE, key="k")
    with pytest.raises(rap.InvalidArgument, match="compression: "):
        rap.rewrite(NOWHERE, "/tmp/x", key="k", compression="zip")


def test_lookup_key_errors(keyed_table) -> None:
    root, _ = keyed_table
    idx = rap.Index.open(str(root))
    with pytest.raises(rap.InvalidArgument, match=r"keys\[1\]: key column 'k' is int64, got str"):
        idx.lookup([1, "2"])
    with pytest.raises(rap.InvalidArgument, match=r"keys\[0\]: 18446744073709551616 is out of range for int64"):
        idx.lookup([2**64])
    with pytest.raises(rap.InvalidArgument, match="expected a sequence of keys"):
        idx.lookup(5)
    with pytest.raises(rap.InvalidArgument, match="limit_per_key: 0 is not positive"):
        idx.lookup([1], limit_per_key=0)
    with pytest.raises(rap.InvalidArgument, match="page_token: 1 tokens for 2 keys"):
        idx.lookup([1, 2], page_token=[""])
    by_s = rap.Index.open(str(root), name="by_s")
    with pytest.raises(rap.InvalidArgument, match=r"keys\[0\]: key column 's' is string, got bytes"):
        by_s.lookup([b"user-0001"])


def test_missing_index_is_not_found(tmp_path) -> None:
    with pytest.raises(rap.NotFound):
        rap.Index.open(str(tmp_path))
