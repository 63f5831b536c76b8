"""``python -m codemorph.cli``: the same as the ``codemorph`` command."""

from codemorph.cli.main import main

main()
