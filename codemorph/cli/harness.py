"""``codemorph harness ...``: run codemorph data sets through the evaluation harnesses."""

from __future__ import annotations

from pathlib import Path

import typer

from codemorph.errors import InputError

app = typer.Typer(help="Harness integrations: write lm-evaluation-harness task folders (the Inspect AI task "
                       "codemorph/execution_prediction needs no files).", no_args_is_help=True)


@app.command("lm-eval")
def lm_eval_command(
    dataset: Path = typer.Argument(..., help="Data set: CRUXEval/codemorph JSON Lines, or a CodeMind dataset/<bench> folder."),
    output: Path = typer.Option(..., "--output", "-o", help="Task folder to write (pass it to lm_eval --include_path)."),
    samples: int = typer.Option(10, help="Generations per row (lm-eval repeats; CRUXEval: 10)."),
    temperature: float = typer.Option(0.2, help="Sampling temperature (CRUXEval: 0.2 for pass@1, 0.8 for pass@5)."),
    exceptions: str = typer.Option("auto", help="Exception-answer protocol: auto, off (CRUXEval's prompts verbatim), "
                                                "may-raise or class-list."),
    strict: bool = typer.Option(False, help="Score as `codemorph evaluate --strict`."),
) -> None:
    """Write an lm-evaluation-harness task folder for DATASET: tasks codemorph_output, codemorph_input,
    codemorph_output_cot, codemorph_input_cot (CRUXEval's prompts and settings, codemorph's
    sandboxed scorer)."""
    from rich.console import Console

    from codemorph.harness.lm_eval_tasks import write_task_folder

    try:
        files = write_task_folder(dataset, output, samples=samples, temperature=temperature, exceptions=exceptions,
                                  strict=strict)
    except (InputError, ValueError) as exc:
        Console(stderr=True).print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(2)
    tasks = sorted(n[:-5] for n in files if n.endswith(".yaml"))
    Console().print(f"{len(files)} files written to {output}; tasks: {', '.join(tasks)}\n"
                    f"run: lm_eval --model <backend> --model_args ... --include_path {output} --tasks {tasks[0]} "
                    f"--confirm_run_unsafe_code --log_samples --output_path RESULTS", highlight=False, soft_wrap=True)
