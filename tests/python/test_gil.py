"""Long calls release the GIL: another Python thread keeps running while they work."""

import threading
import time

import gatescope
from conftest import SOURCE


class Ticker:
    """A thread that records when it runs."""

    def __init__(self):
        self.times = []
        self.stop = False
        self.thread = threading.Thread(target=self.run)

    def run(self):
        while not self.stop:
            self.times.append(time.perf_counter())
            time.sleep(0)  # a yield: ticks come ~continuously whenever the GIL is free

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop = True
        self.thread.join()

    def ticks_between(self, begin, end):
        return sum(begin <= t <= end for t in self.times)


def middle(begin, end):
    quarter = (end - begin) / 4
    return begin + quarter, end - quarter


def test_tile_releases_the_gil(fox_full):
    t = gatescope.open(fox_full)
    t.tile(0, 0, range(0, 16))  # the head's factors loaded: the call below is compute only
    with Ticker() as ticker:
        time.sleep(0.01)
        begin = time.perf_counter()
        for head in range(4):
            t.tile(0, head, range(0, len(t)), map="product")
        end = time.perf_counter()
    assert ticker.ticks_between(*middle(begin, end)) > 10, (end - begin)


def test_trace_releases_the_gil(tmp_path):
    with Ticker() as ticker:
        begin = time.perf_counter()
        gatescope.trace(SOURCE / "resources" / "models" / "fox",
                        (SOURCE / "resources" / "samples" / "forgetting.txt").read_text(),
                        tmp_path / "x.h5")
        end = time.perf_counter()
    assert ticker.ticks_between(*middle(begin, end)) > 100
