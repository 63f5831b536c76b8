"""The authoring kit: what every transform, built-in or plugin, uses besides the engine —
site choice, hazards, program facts, fresh names and the Z3 term translator.

Built-in families import only :mod:`codemorph.engine` and this package, never each other,
so a plugin author has exactly what the built-ins have.
"""

from codemorph.authoring.sites import SiteChoice, WHICH, check_which, choose_sites

__all__ = ["WHICH", "check_which", "choose_sites", "SiteChoice"]
