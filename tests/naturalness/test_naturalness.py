"""The naturalness model (:mod:`codemorph.naturalness`): abstracted tokens, smoothed
probabilities, code a person writes scoring lower than machine-made constructs, determinism,
and the on-disk cache.

The model here is trained on a fixed handful of standard-library modules (``SMALL``) to keep
the tests fast; the full standard-library model is measured by ``benchmarks/naturalness.py``.
"""

from __future__ import annotations

import math
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from codemorph.errors import ParseError
from codemorph.naturalness import (
    NgramModel,
    abstract_tokens,
    default_model,
    model_cache_path,
    naturalness_delta,
    stdlib_files,
)

STDLIB = Path(sysconfig.get_paths()["stdlib"])
#: ordinary algorithmic modules of the standard library (loops, constants, conditionals)
SMALL_NAMES = ["bisect.py", "heapq.py", "textwrap.py", "difflib.py", "fnmatch.py", "shlex.py",
               "string.py", "statistics.py", "json/decoder.py", "json/encoder.py",
               "collections/__init__.py", "glob.py", "posixpath.py", "copy.py", "pprint.py"]
SMALL = [STDLIB / n for n in SMALL_NAMES if (STDLIB / n).exists()]


@pytest.fixture(scope="module")
def model() -> NgramModel:
    if len(SMALL) < 10:
        pytest.skip(f"standard library sources not found under {STDLIB}")
    return default_model(files=SMALL, use_cache=False)


# ---------------------------------------------------------------------------------------
# what the model sees


def test_identifiers_and_strings_become_placeholders_keywords_builtins_small_ints_stay():
    src = ("def f(x, y=10, z=0x1, w=1.5, big=11):\n"
           "    '''doc'''\n"
           "    # a comment\n"
           "    return len(x) + f'{y}' + b'z', (w\n"
           "        + big)\n")
    assert abstract_tokens(src) == [
        "def", "<id>", "(", "<id>", ",", "<id>", "=", "10", ",", "<id>", "=", "1", ",",
        "<id>", "=", "<num>", ",", "<id>", "=", "<num>", ")", ":", "<newline>",
        "<indent>", "<str>", "<newline>",
        "return", "len", "(", "<id>", ")", "+", "<str>", "+", "<str>", ",", "(", "<id>",
        "+", "<id>", ")", "<newline>", "<dedent>", "</s>"]


def test_source_that_cannot_be_lexed_raises_parse_error():
    with pytest.raises(ParseError) as info:
        abstract_tokens("def f(x):\n    return (x\n", "row-7")
    assert info.value.filename == "row-7"


def test_training_corpus_is_the_stdlib_without_tests_or_site_packages():
    files = stdlib_files()
    rel = {p.relative_to(STDLIB).as_posix() for p in files}
    assert "json/decoder.py" in rel and "collections/__init__.py" in rel
    assert all(p.suffix == ".py" for p in files)
    for r in rel:
        parts = r.split("/")
        assert not any(d in ("test", "tests", "idle_test", "site-packages") for d in parts[:-1]), r
        assert not parts[-1].startswith("test_"), r
    assert [p.relative_to(STDLIB).as_posix() for p in files] == sorted(rel)


def test_training_corpus_lists_what_rglob_lists_without_tests_or_third_party(tmp_path):
    # stdlib_files prunes the directories it leaves out; the list is rglob's, filtered
    for d in ("a/test", "b/site-packages/x", "c.py", "real/sub", "d/test_pkg"):
        (tmp_path / d).mkdir(parents=True)
    for f in ("x.py", "test_y.py", "a/z.py", "a/test/q.py", "b/site-packages/x/w.py", "b/k.py", "real/sub/m.py",
              ".h.py", "a/test_n.py", "d/test_pkg/e.py", "notes.txt"):
        (tmp_path / f).write_text("pass\n")
    (tmp_path / "link").symlink_to(tmp_path / "real")  # a linked directory is not entered
    (tmp_path / "lnk.py").symlink_to(tmp_path / "x.py")
    got = [p.relative_to(tmp_path).as_posix() for p in stdlib_files(tmp_path)]
    assert got == [".h.py", "a/z.py", "b/k.py", "c.py", "lnk.py", "real/sub/m.py", "x.py"]


def test_default_training_files_are_resolved_paths():
    from codemorph.naturalness import _default_files

    files = _default_files()
    assert files == tuple(p.resolve() for p in stdlib_files())
    assert len(files) > 100


# ---------------------------------------------------------------------------------------
# the smoothed distribution


@pytest.mark.parametrize("history", [[], ["def", "<id>", "("], ["for", "<id>", "in"],
                                     ["<id>", "=", "("], ["never-seen", "<unk>", ":="]])
def test_probabilities_after_any_history_sum_to_one(model, history):
    probs = [model.probability(w, history) for w in model.vocabulary]
    assert math.isclose(sum(probs), 1.0, rel_tol=1e-9)
    assert min(probs) > 0


def test_the_usual_continuation_is_likelier_than_an_odd_one(model):
    loop = ["<newline>", "for", "<id>"]
    assert model.probability("in", loop) + model.probability(",", loop) > 0.95
    assert model.probability(":=", loop) < 0.01
    assert model.probability("(", ["<indent>", "def", "<id>"]) > 0.9


def test_cross_entropy_is_the_mean_surprisal(model):
    src = "def f(xs):\n    return len(xs)\n"
    bits = model.surprisals(src)
    assert [s for s, _ in bits] == abstract_tokens(src)
    assert model.cross_entropy(src) == pytest.approx(sum(b for _, b in bits) / len(bits))
    history = ["<s>"] * 3
    for sym, b in bits:  # each surprisal is -log2 of the model's conditional probability
        assert b == pytest.approx(-math.log2(model.probability(sym, history[-3:])))
        history.append(sym)


# ---------------------------------------------------------------------------------------
# natural code scores lower than machine-made constructs

PLAIN_CONSTANTS = """\
def f(text, length):
    index = 0
    while length > 0:
        index += 1
        length -= 1
    return text[index:]
"""
UNFOLDED_CONSTANTS = """\
def f(text, length):
    index = (7 - 7)
    while length > (4 - 4):
        index += 1
        length -= (8 - 7)
    return text[index:]
"""
FOR_LOOP = """\
def f(nums):
    output = []
    for n in nums:
        output.append((nums.count(n), n))
    output.sort(reverse=True)
    return output
"""
SENTINEL_LOOP = """\
def f(nums):
    output = []
    _it = iter(nums)
    _end = object()
    while (_item := next(_it, _end)) is not _end:
        n = _item
        output.append((nums.count(n), n))
    output.sort(reverse=True)
    return output
"""
INDEX_LOOP = """\
def f(nums):
    output = []
    i = 0
    while i < len(nums):
        n = nums[i]
        output.append((nums.count(n), n))
        i += 1
    output.sort(reverse=True)
    return output
"""
DEAD_GUARD = """\
def f(nums):
    output = []
    if type(nums) is list and len(nums) * len(nums) < len(nums) - 1:
        tmp = str(output)
        tmp = tmp.strip()
        return tmp
    for n in nums:
        output.append((nums.count(n), n))
    output.sort(reverse=True)
    return output
"""


def test_plain_constants_are_more_natural_than_unfolded_arithmetic(model):
    assert model.cross_entropy(PLAIN_CONSTANTS) < model.cross_entropy(UNFOLDED_CONSTANTS)
    assert naturalness_delta(PLAIN_CONSTANTS, UNFOLDED_CONSTANTS, model) > 0.3


def test_a_for_loop_is_more_natural_than_the_walrus_sentinel_loop(model):
    assert naturalness_delta(FOR_LOOP, SENTINEL_LOOP, model) > 0.3


def test_a_hand_written_index_loop_is_more_natural_than_the_sentinel_loop(model):
    assert model.cross_entropy(INDEX_LOOP) < model.cross_entropy(SENTINEL_LOOP)


def test_an_impossible_type_guard_is_less_natural_than_the_plain_program(model):
    assert naturalness_delta(FOR_LOOP, DEAD_GUARD, model) > 0


def test_delta_of_identical_sources_is_zero(model):
    assert naturalness_delta(SENTINEL_LOOP, SENTINEL_LOOP, model) == 0.0


def test_names_comments_and_string_contents_do_not_change_the_figure(model):
    renamed = FOR_LOOP.replace("output", "acc").replace("nums", "values") \
        .replace("    return", "    # sorted by count\n    return")
    assert renamed != FOR_LOOP
    assert naturalness_delta(FOR_LOOP, renamed, model) == 0.0
    assert naturalness_delta("x = 'a'\n", "x = 'a longer string'\n", model) == 0.0


# ---------------------------------------------------------------------------------------
# determinism and the cache


def test_training_twice_gives_the_same_model_bit_for_bit(model, tmp_path):
    once, again = NgramModel.train(SMALL), NgramModel.train(SMALL)
    assert again.vocabulary == model.vocabulary and again.discounts == model.discounts
    assert again.surprisals(SENTINEL_LOOP) == model.surprisals(SENTINEL_LOOP)
    once.save(tmp_path / "a.bin")
    again.save(tmp_path / "b.bin")
    assert (tmp_path / "a.bin").read_bytes() == (tmp_path / "b.bin").read_bytes()


def test_another_process_with_another_hash_seed_gets_the_same_figures(model):
    code = ("import sys; from codemorph.naturalness import NgramModel\n"
            "m = NgramModel.train(sys.argv[1:])\n"
            f"print(repr(m.cross_entropy({SENTINEL_LOOP!r})), repr(m.cross_entropy({FOR_LOOP!r})))\n")
    out = subprocess.run([sys.executable, "-c", code, *map(str, SMALL)], capture_output=True, text=True,
                         env={"PYTHONHASHSEED": "12345", "PATH": ""}, check=True, timeout=120)
    assert out.stdout.split() == [repr(model.cross_entropy(SENTINEL_LOOP)), repr(model.cross_entropy(FOR_LOOP))]


def test_cache_is_written_once_and_read_back_with_the_same_figures(model, tmp_path, monkeypatch):
    first = default_model(files=SMALL, cache=tmp_path)
    path = model_cache_path(SMALL, 4, tmp_path)
    assert path.exists() and path.parent == tmp_path / "naturalness"
    assert f"-n4-" in path.name and sys.implementation.name in path.name

    def no_training(*args, **kwargs):
        raise AssertionError("trained again instead of reading the cache")

    monkeypatch.setattr(NgramModel, "train", classmethod(no_training))
    loaded = NgramModel.load(path)
    assert loaded.vocabulary == first.vocabulary and loaded.discounts == first.discounts
    assert loaded.surprisals(UNFOLDED_CONSTANTS) == first.surprisals(UNFOLDED_CONSTANTS) \
        == model.surprisals(UNFOLDED_CONSTANTS)
    # the same files spelled as strings: the same cache file, read back (no training)
    again = default_model(files=[str(p) for p in SMALL], cache=str(tmp_path))
    assert again.cross_entropy(FOR_LOOP) == first.cross_entropy(FOR_LOOP)


def test_cache_key_changes_with_the_order_and_the_training_files(tmp_path):
    a = model_cache_path(SMALL, 4, tmp_path)
    assert model_cache_path(SMALL, 3, tmp_path) != a
    assert model_cache_path(SMALL[:-1], 4, tmp_path) != a
    assert model_cache_path(list(SMALL), 4, tmp_path) == a


def test_a_corrupt_cache_file_is_replaced_by_a_fresh_training(model, tmp_path):
    files = SMALL[:3]
    path = model_cache_path(files, 2, tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"CMNGRAM1garbage")
    with pytest.raises(ValueError):
        NgramModel.load(path)
    fresh = default_model(order=2, files=files, cache=tmp_path)
    assert NgramModel.load(path).surprisals(FOR_LOOP) == fresh.surprisals(FOR_LOOP)


def test_a_cache_folder_this_user_cannot_read_means_no_cache_not_an_error(monkeypatch, tmp_path):
    # another user's home (/root/.cache, mode 700): Path.exists raises PermissionError there
    import codemorph.naturalness as nat

    class Unreadable(type(tmp_path)):
        def exists(self, *a, **k):
            raise PermissionError(13, "Permission denied", str(self))

    trained = []
    monkeypatch.setattr(nat, "model_cache_path", lambda files, directory: Unreadable(tmp_path / "m.bin"))
    monkeypatch.setattr(nat, "default_model", lambda cache=None: trained.append(cache))
    nat._prepare.cache_clear()
    try:
        assert nat._prepare("/unreadable/dir") == tmp_path / "m.bin"
    finally:
        nat._prepare.cache_clear()
    assert trained == ["/unreadable/dir"]
