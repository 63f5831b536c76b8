import json
import math
import sys


class Fake:
    def dumps(self, obj):
        return "fake"


def f():
    math.sqrt = lambda x: -1.0
    json.dumps = lambda obj: "patched"
    sys.modules["json"] = Fake()
    sys.modules["collections"] = None
    return math.sqrt(16.0)
