"""Process helpers of the tests that check no worker or sandbox process outlives a run
(Linux: they read ``/proc``).  Test files import them as ``from processes import ...``
(tests/ is on ``sys.path`` through tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path


def descendants(pid: int) -> set[int]:
    """The ids of every process below ``pid`` (children, their children...), now."""
    kids: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            kids.setdefault(int(fields[1]), []).append(int(d.name))
    out, todo = set(), [pid]
    while todo:
        for k in kids.get(todo.pop(), []):
            out.add(k)
            todo.append(k)
    return out


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
