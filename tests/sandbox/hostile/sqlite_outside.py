import sqlite3


def f(bait):
    # sqlite3 opens its database file itself (no "open" audit event): checked at connect
    con = sqlite3.connect(bait)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    return "written"
