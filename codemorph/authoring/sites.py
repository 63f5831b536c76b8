"""Helpers shared by the built-in transforms, written only against the public API a plugin
author also has (:class:`codemorph.Transform`, :class:`codemorph.RewriteContext`).

The ``which`` option: many transforms rewrite either every eligible site (``which="all"``,
the default) or one site chosen with the context's random generator (``which="one"``).
:class:`SiteChoice` gives a transform that option; :func:`check_which` and
:func:`choose_sites` are the same logic as plain functions.
"""

from __future__ import annotations

from typing import Sequence, TypeVar

from codemorph.engine.transform import RewriteContext

__all__ = ["WHICH", "check_which", "choose_sites", "SiteChoice"]

#: the values of the ``which`` option
WHICH: tuple[str, ...] = ("all", "one")

T = TypeVar("T")


def check_which(transform: str, which: object) -> str:
    """Validate the ``which`` option of the transform named ``transform``.

    Returns:
        ``which`` itself (``"all"`` or ``"one"``).

    Raises:
        ValueError: when ``which`` is anything else.
    """
    if which not in WHICH:
        raise ValueError(f"{transform}: option which must be 'all' or 'one', got {which!r}")
    return which  # type: ignore[return-value]


def choose_sites(ctx: RewriteContext, sites: Sequence[T], which: str) -> list[T]:
    """The sites to rewrite: all of ``sites`` (in their order) for ``which="all"``, or one
    of them drawn with ``ctx.rng.choice`` for ``which="one"`` (exactly one draw, so the same
    program, options and seed always pick the same site).  An empty ``sites`` gives ``[]``
    without drawing."""
    if which == "one" and sites:
        return [ctx.rng.choice(sites)]
    return list(sites)


class SiteChoice:
    """Mixin for a :class:`~codemorph.Transform` subclass with the ``which`` option.

    Put it before ``Transform`` in the bases (``class MyTransform(SiteChoice, Transform)``).
    Its constructor takes only ``which``; a transform with more options defines its own
    ``__init__`` and calls ``SiteChoice.__init__(self, which)``.  In ``rewrite``, call
    :meth:`choose` on the eligible sites.

    Args:
        which: ``"all"`` (default) rewrites every eligible site; ``"one"`` one site chosen
            with the context's random generator.

    Raises:
        ValueError: on construction, when ``which`` is not ``"all"`` or ``"one"``.
    """

    name: str = ""
    which: str = "all"

    def __init__(self, which: str = "all") -> None:
        self.which = check_which(self.name, which)

    def choose(self, ctx: RewriteContext, sites: Sequence[T]) -> list[T]:
        """The sites to rewrite under this transform's ``which`` (see :func:`choose_sites`)."""
        return choose_sites(ctx, sites, self.which)
