import subprocess


def f(bait):
    return subprocess.run(["rm", "-f", bait]).returncode
