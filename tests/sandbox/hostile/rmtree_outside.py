import shutil


def f(bait_dir):
    shutil.rmtree(bait_dir)
    return "deleted"
