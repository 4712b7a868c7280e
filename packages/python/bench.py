"""Times the Python package for `slotwise bench`: encoding, the component's encoded call and decoding, round by round.

Usage: python bench.py INPUT.json ROUNDS. Prints one JSON line: the nanoseconds
of every round of the whole reconcile and of each of its parts. The input is
encoded as ``Reconciler.reconcile`` sends it (content 3, allocations as records).
"""

import json
import sys
import time

import slotwise


def main() -> None:
    path, rounds = sys.argv[1], int(sys.argv[2])
    with open(path) as f:
        input = json.load(f)
    reconciler = slotwise.Reconciler()
    wire = reconciler.wire
    times = {"encoded": [], "encode": [], "call": [], "decode": []}
    reconciler.reconcile(input)
    for _ in range(rounds):
        started = time.perf_counter_ns()
        encoded = reconciler.encode(input)
        encoded_at = time.perf_counter_ns()
        outcome = reconciler.reconcile_encoded(encoded)
        called_at = time.perf_counter_ns()
        plan = wire.decode_outcome(outcome)
        done = time.perf_counter_ns()
        assert "Ok" in plan, plan
        times["encoded"].append(done - started)
        times["encode"].append(encoded_at - started)
        times["call"].append(called_at - encoded_at)
        times["decode"].append(done - called_at)
    times["bytes"] = [len(encoded), len(outcome)]
    print(json.dumps(times))


if __name__ == "__main__":
    main()
