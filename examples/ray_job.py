#!/usr/bin/env python3
"""A whole job on Ray: the map step (one summary per rank) runs as Ray tasks,
the reduce (opguard's associative, commutative merge) as a tree of Ray tasks,
and the result is the same JSON document `opguard job --json` prints for the
same files, byte for byte.

    python examples/ray_job.py rank*.json.gz                   # a local Ray
    python examples/ray_job.py --address ray://head:10001 ...  # a cluster

Uses the installed `opguard` Python package (the C ABI through ctypes); on a
cluster every worker needs it and must see the trace paths. Exit status as
`opguard job`: 0, or 2 when a rank could not be read (the others are still
reported; each unreadable rank is also named on stderr).
"""

import argparse
import json
import sys

import ray

import opguard


@ray.remote
def summarize(path, top):
    return opguard.job_summary(path, top=top)


@ray.remote
def merge(*parts):
    return opguard.job_merge(parts)


def run(paths, top, fan_in):
    """Summaries as tasks, then merges of at most `fan_in` parts per task
    until one job is left. The merge's grouping does not change the result."""
    level = [summarize.remote(path, top) for path in paths]
    while len(level) > 1:
        level = [merge.remote(*level[i:i + fan_in]) for i in range(0, len(level), fan_in)]
    return ray.get(merge.remote(*level))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("traces", nargs="+", metavar="TRACE", help="one trace per rank")
    parser.add_argument("--address", help="a Ray cluster to join (default: start a local Ray)")
    parser.add_argument("--top", type=int, default=10, help="Top-N rows per rank (as --top)")
    parser.add_argument("--fan-in", type=int, default=8, help="parts merged per reduce task")
    args = parser.parse_args(argv)
    if args.fan_in < 2:
        parser.error("--fan-in must be at least 2")

    if args.address:
        ray.init(address=args.address, log_to_driver=False)
    else:
        ray.init(log_to_driver=False, include_dashboard=False)
    try:
        job = run(args.traces, args.top, args.fan_in)
    finally:
        ray.shutdown()

    # The CLI prints serde_json's compact form: no spaces, UTF-8 as is.
    sys.stdout.write(json.dumps(job, separators=(",", ":"), ensure_ascii=False) + "\n")
    status = 0
    for rank in job["ranks"]:
        if rank["error"]:
            error = rank["error"]
            where = [f"at byte {error['offset']}"] if error["offset"] is not None else []
            if error["encoded_offset"] is not None:
                where.append(f"at compressed byte {error['encoded_offset']}")
            if error["json_path"] is not None:
                where.append(error["json_path"])
            elif error["event_index"] is not None:
                where.append(f"traceEvents[{error['event_index']}]")
            place = f" ({', '.join(where)})" if where else ""
            print(f"error[{error['code']}]: {rank['file']}: {error['message']}{place}", file=sys.stderr)
            status = 2
    return status


if __name__ == "__main__":
    sys.exit(main())
