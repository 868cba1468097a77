"""Threads: 8 Python threads look up on one Index at once; interrupting (Ctrl-C) or closing a scan
leaves no thread behind; a loop of 10,000 lookups keeps RSS flat."""

from __future__ import annotations

import _thread
import os
import random
import threading
import time

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import rap


def os_threads() -> int:
    return len(os.listdir("/proc/self/task"))


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_eight_threads_one_index(keyed_table) -> None:
    root, table = keyed_table
    idx = rap.Index.open(str(root))
    keys = list(range(0, 3000, 7))
    want = {k: table.filter(pc.equal(table["k"], k)).num_rows for k in keys}
    errors = []

    def work(seed: int) -> None:
        rnd = random.Random(seed)
        try:
            for _ in range(60):
                batch = rnd.sample(keys, 5)
                reader, _ = idx.lookup(batch, columns=["row"])
                pa.table(reader)
                assert reader.rows_per_key == [want[k] for k in batch]
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def threads_settle_to(want: int, timeout: float = 5.0) -> int:
    # Thread.join() returns when Python's thread state is released, a moment before the OS thread
    # leaves /proc/self/task; wait (bounded) for that. A leaked thread stays and still fails.
    deadline = time.monotonic() + timeout
    while os_threads() != want and time.monotonic() < deadline:
        time.sleep(0.01)
    return os_threads()


def _warm(url: str) -> int:
    # A full scan first: process-wide pools made on first use are not the scan's threads.
    pa.table(rap.scan(url))
    return os_threads()


def test_ctrl_c_interrupts_a_scan_and_leaves_no_thread(long_table) -> None:
    url = str(long_table)
    before = _warm(url)
    batches = 0
    # Ctrl-C raises KeyboardInterrupt wherever Python notices it: in the loop's own code, or inside the
    # reader's next() when the signal arrived while rap was reading (the reader then closes itself).
    # Either way the `with` block leaves no thread.
    with pytest.raises(KeyboardInterrupt):
        with rap.scan(url, batch_size=1024, prefetch=4, warmup="decoded") as r:
            for _ in r:
                batches += 1
                if batches == 1:
                    assert os_threads() > before  # the next file's warmup is running
                    _thread.interrupt_main()  # what Ctrl-C does
    assert 1 <= batches < 1700
    assert r.closed
    assert os_threads() == before


def test_interrupt_inside_next_closes_the_reader(long_table) -> None:
    # A signal that arrives while rap's next() runs (the GIL released) is found when it returns: the
    # reader closes itself and KeyboardInterrupt propagates. The batches are pulled by C code
    # (list(iter(callable, None))), so no Python code of this thread notices the signal first.
    url = str(long_table)
    total = pa.table(rap.scan(url, columns=["a"])).num_rows
    before = _warm(url)
    r = rap.scan(url, batch_size=64, prefetch=4, warmup="decoded")

    def interrupt() -> None:
        while r.stats["rows_output"] == 0:  # main is inside list(): interrupt it there
            time.sleep(0.001)
        _thread.interrupt_main()

    t = threading.Thread(target=interrupt)
    t.start()
    with pytest.raises(KeyboardInterrupt):
        list(iter(r._r.next, None))
    t.join()
    assert r.closed
    assert r.stats["rows_output"] < total
    assert threads_settle_to(before) == before


def test_close_and_context_manager_leave_no_thread(long_table) -> None:
    url = str(long_table)
    before = _warm(url)
    r = rap.scan(url, batch_size=1024, prefetch=4, warmup="decoded")
    next(iter(r))
    assert os_threads() > before  # the warmup of the next file is running
    r.close()
    assert os_threads() == before
    with rap.scan(url, batch_size=1024, prefetch=4, warmup="decoded") as r2:
        next(iter(r2))
    assert os_threads() == before
    # A reader dropped half-way (garbage collected) joins its threads too.
    r3 = rap.scan(url, batch_size=1024, prefetch=4, warmup="decoded")
    next(iter(r3))
    del r3
    assert os_threads() == before


@pytest.mark.skipif(bool(os.environ.get("RAP_PYTHON_SANITIZER")),
                    reason="under AddressSanitizer freed memory is quarantined, so RSS grows by design")
def test_ten_thousand_lookups_keep_rss_flat(keyed_table) -> None:
    root, _ = keyed_table
    idx = rap.Index.open(str(root))
    rnd = random.Random(5)

    def loop(n: int) -> None:
        for _ in range(n):
            reader, _ = idx.lookup([rnd.randrange(0, 3000)], columns=["row", "name"])
            pa.table(reader)

    loop(1000)  # warm: the page cache and the allocator's pools fill
    warm = rss_bytes()
    loop(10_000)
    grown = rss_bytes() - warm
    assert grown < 8 << 20, f"RSS grew by {grown} bytes over 10,000 lookups"
