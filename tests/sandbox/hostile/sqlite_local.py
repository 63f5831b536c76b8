import sqlite3


def f():
    # a database in the sandbox's own temporary directory is fine
    con = sqlite3.connect("local.db")
    con.execute("CREATE TABLE IF NOT EXISTS t (x)")
    con.execute("INSERT INTO t VALUES (1)")
    con.commit()
    return con.execute("SELECT count(*) FROM t").fetchone()[0]
