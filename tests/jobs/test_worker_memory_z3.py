"""Under a worker memory cap too small to map ``libz3`` (``GenerateConfig.worker_memory``,
64 MiB: the API's smallest; the CLI's ``--worker-memory`` starts at 256 MiB, where z3
loads), a transform that needs Z3 costs its variant with a reason naming the cap and the
option, and nothing reaches the terminal (the ``z3`` package prints its advice and a raw
list of loader errors when its library does not load; :func:`codemorph.authoring.load_z3`
keeps that quiet)."""

from __future__ import annotations

import dataclasses
import json

from codemorph.jobs.generate import GenerateConfig, generate

MiB = 1024**2
CODE = "def f(nums):\n    total = 0\n    for n in nums:\n        total += n\n    return total\n"


def test_z3_not_loading_under_the_worker_cap_names_the_cap_and_prints_nothing(tmp_path, capfd):
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": i, "code": CODE, "input": x, "output": o}) + "\n"
                           for i, x, o in [("a", "[1, 2]", "3"), ("b", "[4]", "4")]))
    out = tmp_path / "out.jsonl"
    config = dataclasses.replace(GenerateConfig.from_transforms(["dead-code"], seed=0, workers=2),
                                 worker_memory=64 * MiB)
    generate(src, out, config)
    printed = capfd.readouterr()
    assert (printed.out, printed.err) == ("", "")
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["a", "b"]
    rejects = [json.loads(line) for line in (tmp_path / "out.rejects.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rejects] == ["a:dead-code", "b:dead-code"]
    for r in rejects:
        assert r["exception"] == "Z3Unavailable"
        assert r["message"].startswith("z3 could not be loaded (libz3.so")
        assert r["message"].endswith(": failed to map segment from shared object)")
        assert r["reason"] == (
            f"row {r['original_id']!r} (line {r['line']}), variant 'dead-code': transform 'dead-code' (from "
            f"codemorph) raised Z3Unavailable: {r['message']}, with the worker's host process capped at 64 MiB of "
            "address space (--worker-memory 64); the variant is not written, the row's other variants are")
