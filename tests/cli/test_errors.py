"""Command-line errors a user meets: each exits 2 with a message naming the path, option or
argument and what was expected (nothing runs in this process; the CLI is a subprocess)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from paths import PACKAGE_DATA

CLI = Path(sys.executable).parent / "codemorph"
DEFAULT = PACKAGE_DATA / "default.jsonl"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(CLI), *args], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    (tmp_path / "p.py").write_text("def f(xs):\n    return [x for x in xs if x > 2]\n")
    shutil.copy(DEFAULT, tmp_path / "x.jsonl")
    return tmp_path


def test_verify_refuses_an_input_that_is_not_an_argument_list(work):
    res = run("verify", "p.py", "p.py", "--input", "[1,,", cwd=work)
    assert res.returncode == 2
    assert "--input #1: not a valid argument list: '[1,,'" in res.stderr
    assert "expected an argument-list literal" in res.stderr


def test_verify_says_which_bracket_of_the_input_is_open_not_the_parsers_wrapper(work):
    res = run("verify", "p.py", "p.py", "--input", "[1,", cwd=work)
    assert res.returncode == 2
    assert " ".join(res.stderr.split()) == ("error: --input #1: not a valid argument list: '[1,' ('[' was never "
                                            "closed); expected an argument-list literal such as \"'abc', [1, 2]\"")


def test_verify_refuses_a_missing_entry_point(work):
    res = run("verify", "p.py", "p.py", "--input", "[1]", "--entry", "g", cwd=work)
    assert res.returncode == 2
    assert "p.py: defines no top-level function 'g'" in res.stderr


def test_generate_refuses_a_directory_as_output(work):
    (work / "adir").mkdir()
    res = run("generate", "x.jsonl", "-o", "adir", cwd=work)
    assert res.returncode == 2
    assert "adir: is a directory; expected an output file path" in res.stderr
    assert not list((work / "adir").iterdir())


def test_generate_refuses_to_overwrite_its_input(work):
    before = (work / "x.jsonl").read_bytes()
    res = run("generate", "x.jsonl", "-o", "x.jsonl", cwd=work)
    assert res.returncode == 2
    assert "is one of the input files" in res.stderr
    assert (work / "x.jsonl").read_bytes() == before
    # also when the input is a directory of shards that holds the output path
    (work / "shards").mkdir()
    shutil.copy(DEFAULT, work / "shards" / "a.jsonl")
    res = run("generate", "shards", "-o", "shards/a.jsonl", cwd=work)
    assert res.returncode == 2 and "is one of the input files" in res.stderr


@pytest.mark.parametrize("command", ["generate", "perturb"])
@pytest.mark.parametrize("name, what", [("out.rejects.jsonl", "rejects file"), ("out.progress.jsonl", "checkpoint file"),
                                        ("out.lock", "lock file")])
def test_a_job_refuses_an_input_its_rejects_checkpoint_or_lock_file_would_overwrite(work, command, name, what):
    shutil.copy(work / "x.jsonl", work / name)
    before = (work / name).read_bytes()
    res = run(command, name, "-o", "out.jsonl", cwd=work)
    assert res.returncode == 2
    assert (f"{name}: is one of the input files, and it is the {what} that -o out.jsonl writes next to the output; "
            f"writing it would destroy the input (choose another -o, or rename the input)") in " ".join(res.stderr.split())
    assert (work / name).read_bytes() == before
    assert not (work / "out.jsonl").exists()


def test_a_job_refuses_an_input_its_checkpoint_would_overwrite_through_a_hard_link(work):
    """A hard link is the same file under another name: the run would read its own
    checkpoint lines back as rows while writing them, and fill the disk."""
    (work / "h").mkdir()
    shutil.copy(work / "x.jsonl", work / "h" / "data.jsonl")
    os.link(work / "h" / "data.jsonl", work / "h" / "o.progress.jsonl")
    before = (work / "h" / "data.jsonl").read_bytes()
    res = run("generate", "h/data.jsonl", "-o", "h/o.jsonl", "-t", "rename-locals", cwd=work)
    assert res.returncode == 2
    assert ("h/o.progress.jsonl: is one of the input files, and it is the checkpoint file that -o h/o.jsonl writes "
            "next to the output") in " ".join(res.stderr.split())
    assert (work / "h" / "data.jsonl").read_bytes() == before
    os.link(work / "h" / "data.jsonl", work / "h" / "same.jsonl")
    res = run("generate", "h/data.jsonl", "-o", "h/same.jsonl", cwd=work)
    assert res.returncode == 2 and "h/same.jsonl: is one of the input files" in res.stderr


def test_evaluate_refuses_predictions_given_twice(work):
    """click keeps the last of a repeated option: the first file's model would vanish."""
    (work / "a.jsonl").write_text("")
    (work / "b.jsonl").write_text("")
    res = run("evaluate", "x.jsonl", "-p", "a.jsonl", "-p", "b.jsonl", cwd=work)
    assert res.returncode == 2
    assert ("error: --predictions is given 2 times (a.jsonl, b.jsonl); expected one file or folder per run: run "
            "evaluate once per file (and analyze their score files together, --results A --results B), or put the "
            "models in one JSON Lines file with a 'model' field") in " ".join(res.stderr.split())


def test_generate_refuses_a_transform_given_twice(work):
    res = run("generate", "x.jsonl", "-o", "y.jsonl", "-t", "rename-locals", "-t", "invert-if", "-t", "rename-locals",
              cwd=work)
    assert res.returncode == 2
    assert ("error: the variant 'rename-locals' is given twice: each variant writes the row id '<id>:rename-locals', "
            "so two would write duplicate ids; give each transform once (-t)") in " ".join(res.stderr.split())
    assert not (work / "y.jsonl").exists()


@pytest.mark.parametrize("opt", [["--workers", "-1"], ["--extra-inputs", "-5"]])
def test_generate_refuses_negative_counts(work, opt):
    res = run("generate", "x.jsonl", "-o", "y.jsonl", *opt, cwd=work)
    assert res.returncode == 2
    assert "must be >= 0" in res.stderr
    assert not (work / "y.jsonl").exists()


def test_help_keeps_extra_names_in_brackets(work):
    res = run("generate", "--help", cwd=work)
    assert res.returncode == 0
    assert "codemorph[dask]" in " ".join(res.stdout.split())


def test_analyze_refuses_a_file_as_report_folder_and_explains_unscored_rows(work):
    (work / "one.jsonl").write_text("{}\n")
    res = run("analyze", "x.jsonl", "--results", "one.jsonl", "-o", "one.jsonl", cwd=work)
    assert res.returncode == 2 and "one.jsonl: exists and is not a folder" in res.stderr
    (work / "preds.jsonl").write_text('{"id": "demo_0_running_total", "prediction": "1"}\n')
    res = run("analyze", "x.jsonl", "--results", "preds.jsonl", "-o", "rep", "--no-dynamic", "--no-plots", cwd=work)
    assert res.returncode == 2
    assert "preds.jsonl:1: not a scored row: missing field 'correct'" in res.stderr
    assert "expected the -o output of `codemorph evaluate`" in " ".join(res.stderr.split())


def test_outputs_inside_the_input_directory_or_pattern_are_refused(work):
    (work / "g").mkdir()
    shutil.copy(DEFAULT, work / "g" / "a.jsonl")
    for cmd, inp in (("generate", "g"), ("generate", "g/*.jsonl"), ("perturb", "g")):
        res = run(cmd, inp, "-o", "g/out.jsonl", cwd=work)
        assert res.returncode == 2, (cmd, inp, res.stderr)
        assert "would be read as input" in res.stderr
    assert sorted(p.name for p in (work / "g").iterdir()) == ["a.jsonl"]


def test_apply_names_the_transform_the_unknown_option_and_the_options_it_takes(work):
    res = run("apply", "p.py", "-t", "invert-if", "-O", "empty_brnch=true", cwd=work)
    assert res.returncode == 2
    assert " ".join(res.stderr.split()) == ("error: bad options for 'invert-if': unknown option 'empty_brnch' (did you "
                                            "mean 'empty_branch'?); invert-if takes: which, simplify, empty_branch")
    assert "Traceback" not in res.stderr and "__init__" not in res.stderr


def test_apply_names_the_transform_of_a_bad_option_value(work):
    res = run("apply", "p.py", "-t", "invert-if", "-O", "invert-if.empty_branch=yes", cwd=work)
    assert res.returncode == 2
    assert ("error: bad options for 'invert-if': invert-if: option empty_branch must be true or false, got 'yes'"
            in " ".join(res.stderr.split()))


def test_apply_explains_an_option_written_with_a_colon(work):
    res = run("apply", "p.py", "-t", "invert-if", "-O", "invert-if:empty_branch=true", cwd=work)
    assert res.returncode == 2
    assert ("expected KEY=VALUE or TRANSFORM.KEY=VALUE (a dot after the transform, e.g. "
            "invert-if.empty_branch=true)" in " ".join(res.stderr.split()))


@pytest.mark.parametrize("given, close", [("ValueErr", "ValueError"), ("keyerror", "KeyError"),
                                          ("Value Error", "ValueError")])
def test_perturb_refuses_a_misspelt_exception_class_before_the_run(work, given, close):
    res = run("perturb", "x.jsonl", "-o", "out.jsonl", "-e", given, cwd=work)
    assert res.returncode == 2
    message = " ".join(res.stderr.split())
    assert (f"-e/--exception {given!r} is not a built-in exception class (did you mean {close}?); expected a "
            "built-in exception class name such as ValueError, 'any-exception', or the exact name of an exception "
            "class the programs define") in message
    assert not (work / "out.jsonl").exists()


def test_generate_refuses_a_misspelt_perturb_exception_class_before_the_run(work):
    res = run("generate", "x.jsonl", "-o", "out.jsonl", "--perturb-inputs", "--perturb-exception", "KeyErorr",
              cwd=work)
    assert res.returncode == 2
    assert "--perturb-exception 'KeyErorr' is not a built-in exception class (did you mean KeyError?)" in res.stderr
    assert not (work / "out.jsonl").exists()


def test_perturb_refuses_an_exception_name_that_is_no_class_name(work):
    res = run("perturb", "x.jsonl", "-o", "out.jsonl", "-e", "3 things", cwd=work)
    assert res.returncode == 2
    assert "-e/--exception '3 things' is not a built-in exception class (not a class name)" in res.stderr


def test_perturb_warns_of_a_class_name_only_a_program_can_define_and_still_searches_it(work):
    import json

    code = "class MyAppError(Exception):\n    pass\n\ndef f(x):\n    if x > 3:\n        raise MyAppError()\n    return x"
    (work / "one.jsonl").write_text(json.dumps({"id": "a", "code": code, "input": "1", "output": "1"}) + "\n")
    res = run("perturb", "one.jsonl", "-o", "out.jsonl", "-e", "MyAppError", "--output-changes", "0",
              "--budget", "200", "--workers", "1", cwd=work)
    assert res.returncode == 0, res.stderr
    assert ("warning: 'MyAppError' is not a builtin exception class; only programs that define and raise a class "
            "of exactly that name can reach it") in " ".join(res.stderr.split())
    [row] = [json.loads(ln) for ln in (work / "out.jsonl").read_text().splitlines() if '"input-perturbation"' in ln]
    assert row["exception"]["type"] == "MyAppError"


@pytest.mark.parametrize("opt, value, message", [("--budget", "0", "--budget must be >= 1, got 0"),
                                                 ("--per-exception", "0", "--per-exception must be >= 1, got 0"),
                                                 ("--output-changes", "-1", "--output-changes must be >= 0, got -1")])
def test_perturb_names_the_one_bad_count_and_its_value(work, opt, value, message):
    res = run("perturb", "x.jsonl", "-o", "out.jsonl", opt, value, cwd=work)
    assert res.returncode == 2 and message in res.stderr


@pytest.mark.parametrize("args, message", [
    (("--workers", "-1"), "error: --workers must be >= 0 (0 = one more than the CPUs this process may use), got -1"),
    (("--extra-inputs", "-2"), "error: --extra-inputs must be >= 0, got -2")])
def test_generate_names_only_the_bad_count(work, args, message):
    res = run("generate", "x.jsonl", "-o", "out.jsonl", *args, cwd=work)
    assert res.returncode == 2
    assert res.stderr.strip() == message
    assert not (work / "out.jsonl").exists()


def test_perturb_note_gives_standard_library_subclasses_as_examples_never_codemorphs_own(work):
    import zoneinfo

    from codemorph.cli.common import _subclass_examples

    assert issubclass(zoneinfo.ZoneInfoNotFoundError, KeyError)
    assert _subclass_examples("KeyError") == ["zoneinfo.ZoneInfoNotFoundError"]
    assert _subclass_examples("ValueError") == ["UnicodeError", "json.JSONDecodeError"]
    res = run("perturb", "x.jsonl", "-o", "out.jsonl", "-e", "KeyError", "--budget", "0", cwd=work)
    note = " ".join(res.stderr.split())
    assert ("note: targets match the exact class name: KeyError does not match its subclasses "
            "(e.g. zoneinfo.ZoneInfoNotFoundError)") in note
    assert "UnknownTransformError" not in note
