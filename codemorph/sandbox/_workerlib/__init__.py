"""The sandbox worker's modules (standard library only), loaded by ``codemorph/sandbox/_worker.py``.

When the worker runs as a script, this package is imported under a random name
(``_codemorph_sandbox_<hex>._workerlib``) and never by a name a program could guess; its
modules import each other (and :mod:`codemorph.sandbox.guard`) relatively only.
"""
