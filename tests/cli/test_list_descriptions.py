"""`codemorph list` describes every built-in transform alike: a sentence that starts with a
capital letter and ends with a period."""

from __future__ import annotations

from codemorph.engine.registry import default_registry


def test_every_built_in_transform_description_is_a_capitalised_sentence():
    reg = default_registry()
    built_in = [n for n in reg.names() if reg.origin(n) == "codemorph"]
    assert "rename-locals" in built_in and "misleading-print" in built_in
    odd = {n: reg.cls(n).description for n in built_in
           if not (reg.cls(n).description[:1].isupper() and reg.cls(n).description.endswith("."))}
    assert odd == {}
    assert reg.cls("rename-locals").description == (
        "Rename local variables and parameters (scope-aware, symbol-table checked).")
