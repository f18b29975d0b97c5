#!/usr/bin/python3
"""Write tests/fuzz/badinput/TARGET/: every bad (and edge) input the bats
tests give perfgate's parsers, one a file, named after the bats file it
comes from. These are seeds for the fuzzers and regression inputs for
tests/fuzz.bats; unlike tests/fuzz/corpus they are never minimized away.
Run again when a bats test adds a bad input: python3 tests/fuzz/badinput.py
"""
import os
import shutil
import struct

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.path.join(TOP, "tests", "fuzz", "badinput")


def data(name):
    with open(os.path.join(TOP, "tests", "data", name), "rb") as f:
        return f.read()


DEEP511 = b'{"side":"a","x":1,"d":' + b"[" * 511 + b"]" * 511 + b"}"
DEEP513 = b'{"side":"a","d":' + b"[" * 513 + b"]" * 513 + b"}"

# JSON lines: tests/minjson.bats, tests/cmpbudget.bats, tests/bestof.bats.
JSONL = {
    "minjson": [
        b'{"side":"a","x":1e400}', b'{"side":"a","x":-1e400}', b'{"side":"a","x":NaN}',
        b'{"side":"a","x":Infinity}', b'{"side":"a","x":-Infinity}', b'{"side":"a","x":+1}',
        b'{"side":"a","x":01}', b'{"side":"a","x":0x10}', b'{"side":"a","x":1.}',
        b'{"side":"a","x":1,"x":2}', b'{"side":"a","side":"b"}', b'{"side":"a\xff","x":1}',
        b'{"side":"a","s":"\xc0\xaf","x":1}', b'{"side":"a","s":"\\ud800","x":1}',
        b'{"side":"a","s":"\\q"}', b'{"x":1}', b'{"side":1,"x":1}', b'{"side":null,"x":1}',
        b'[1,2]', b'{"side":"a"} {}', b'{"side":"a",}', b'{"side" "a"}', b'{"side":"a","n":1}',
        b'{"side":"a","x":1}\n{"side":"a","x":}', b"\n \n\r\n",
        b'{"side":"a","x":1.50,"y":1e3,"z":-0}\n{"side":"a","x":2,"y":2e3,"z":0.0}',
        b'{"side":"a","x":1e-400}\n{"side":"a","x":1}',
        b'{"side":"a","x":3,"y":4,"z":5,"s":"str","o":{"k":1},"l":[1],"b":true,"u":null}',
        b'{"side":"a","x":1,"y":2}\n{"side":"a","x":3,"y":4}\n{"side":"a","x":5,"x":6}',
        b'{"side":"a","x":1,"y":2}\n{"side":"a","x":3,"y":NaN}',
        b'{"side":"a","x":1,"y":2}\n{"side":"a","x":1.50,"y":-0}\n{"side":"a","x":1.5e0,"y":0}',
        data("minjson/runs.jsonl"), data("minjson/runs.jsonl").replace(b"\n", b"\r\n"),
        data("minjson/runs.jsonl") + b'{"side":"base","matmul_ns":1',
        DEEP511, DEEP513,
    ],
    "cmpbudget": [
        b'{"side":"base","round":1,"a_ns":8}', b'{"side":"base","stat":"min","a_ns":8,"a_ns":9}',
        b'{"side":"base","stat":"min","a_ns":NaN}', b'{"side":"base","stat":"min","a_ns":-Infinity}',
        b'{"side":"base","stat":"min","a_ns":1e400}', b'{"side":"base\xff","stat":"min"}',
        b'{"side":"base","stat":"min","x_ns":1.50e2}\n{"side":"head","stat":"min","x_ns":0.0000151E7}',
        data("cmpbudget/worked.jsonl"), data("cmpbudget/quart.jsonl"),
        data("cmpbudget/worked.jsonl") + b'{"side":"head","stat":"q1","a_ns":9',
        data("cmpbudget/worked.jsonl").replace(b'"d_ns":10.01', b'"d_ns":"fast"'),
        data("cmpbudget/worked.jsonl").replace(b'"a_ns":8.0', b'"a_ns":-0'),
    ],
    "bestof": [
        b'{"a": 1,', b'{"a": "fast"}', b'{"a": {"b": 1}}', b'{"a": NaN}', b'{"a": Infinity}',
        b'{"a": 1e400}', b'{"a": 1, "a": 2}', b'{"\xff": 1}', b'{"a": ' + b"[" * 600,
        b'{"a": 1}\r\n', b'{"a": 2}', b'{"a":' + b" " * 1500 + b"3}",
    ],
}

# Budget files: tests/cmpbudget.bats.
BUDGET = [
    b"[budget]\na_ns = 0.25\n\na_ns = 0.3\n", b"[budget]\na_ns = 0.25\n[budget]\n",
    b"[budget]\na_ns = 0\n", b"[budget]\na_ns = -0.1\n", b'[budget]\na_ns = "0.25"\n',
    b"[budget]\na_ns = 1e400\n", b"[budget]\na_ns = nan\n", b"[budget]\na_ns = 0x10\n",
    b"[budget]\na_ns = .5\n", b"# only runs\nruns = 3\n[budget]\n# nothing\n", b"runs = 3\n",
    b"[budget]\na_ns 0.25\n", b"[budget\n", b"[]\n", b"[budget] x\n", b"[budget]\na_ns = 0.25 0.3\n",
    b"[budget]\na_ns =\n", b'[budget]\n"a_ns" = 1\n', b'name = "open\n[budget]\n',
    b'name = "a\\q"\n', b"# \xff\n", b"runs = 2.5\n[budget]\na_ns = 1\n",
    b"runs = 0\n[budget]\na_ns = 1\n",
    b'# top\r\nruns = 3 # rounds\r\nname = "a # not a comment \\" \\u00e9"\r\n\r\n[gate]\r\n'
    b'cc = "gcc"\r\n[budget]   # here\r\n  a_ns=0.25\t# worked\r\n',
    b"[budget]\nx_ns = 0.25\n", b"[budget]\nb_ns = 1\nd_ns = 0.3\n",
    data("cmpbudget/budget.toml"), data("cmpbudget/quart.toml"), data("cmpbudget/alt.toml"),
    b"[budget]\na_ns = 0.25\x00\n",
    b"runs = 1\n[budget]\na_ns = 0.5\n", b"[budget]\na_ns = 0.5\nb_ns = 1\n",
    b"allow_loose = 1\n[budget]\na_ns = 1\n", b"allow_loose = true\n[budget]\na_ns = 1\nb_ns = 99\n",
    b"allow_loose = true\n[higher]\na_ns = 1\n", b"[budget]\nallow_loose = true\n",
    b"[budget]\na_ns = 0.5\n[accuracy]\nsum = -1\n", b"[budget]\na_ns = 0.5\n[accuracy]\nsum = 1e999\n",
    b"\xef\xbb\xbfruns = 4\n[budget]\na_ns = 0.5\n", b"[budget]\n\xef\xbb\xbfa_ns = 0.5\n",
    b"[budget]\ngr\xc3\xb6\xc3\x9fe_ns = 0.5\n",
]

# Sides, name=command: tests/alternate.bats (one argument a line).
SIDE = [
    b"./bench", b"a=true\na=false", b"=true", b"a=", b'a"b=true', b"-r", b"a=true",
    b"base=./build/gate/base/bench\nhead=./build/gate/head/bench",
    b"old=bestof -n 3 -- ./old x\nnew=bestof -n 3 -- ./new x", b"a.b+c-d_e=x",
]

# Benchmark stdout, the metrics line last: tests/bestof.bats, tests/alternate.bats.
JMETRICS = [
    b'{"b_ns":1.50,"a":-0,"c":1e-3}\n', b"hello\n", b'{"t":"x"}\n', b"", b'{"t":1,"side":2}\n',
    b'noise\n{"t_ns":1}\n\n  \r\n', b'{"a": 1,\n', b'{"a": {"b": 1}}\n', b'{"pressure":1}\n',
    b'{"' + b"k" * 70 + b'":"long key"}\n',
]

# bench.h's environment: first byte, which variables are set (1 BENCH_REPS,
# 2 BENCH_MIN_S, 4 BENCH_MAX_S, 8 BENCH_VERBOSE, 16 BENCH_CLOCK, 32
# BENCH_CASES); then values, then metric names.
BENCHENV = [
    (1, b"abc"), (1, b"0"), (1, b"-3"), (1, b"1.5"), (1, b""), (1, b"1e7"), (2, b"x"), (2, b"0"),
    (2, b"-1"), (2, b"nan"), (2, b"inf"), (2, b"0.1s"), (4, b"0"), (16, b"tsc"), (8, b"2"),
    (6, b"0.1\n0.01"), (3, b"1\n0.001"), (16, b"wall"), (27, b"3\n0.002\n1\ncpu"),
    (15, b"50\n0.000001\n0.000001\n1"), (7, b"1000000\n0.001\n0.01"),
    # BENCH_CASES (32), then the metrics: tests/compare.bats, the kata's metrics.
    (32, b"sum_ns\nsum_ns\nmatmul_ns\nsearch_ns\nsort_ns"),
    (32, b"sum\nsum_ns\nmatmul_ns"), (32, b"nope\nsum_ns\nmatmul_ns"),
    (32, b"sum,matmul\nsum_ns\nmatmul_ns\nsort_ns"), (32, b",sum\nsum_ns"), (32, b"sum,\nsum_ns"),
    (32, b"\nsum_ns"), (35, b"1\n0.0001\nsum\nsum_ns\nsum_input_sha256"),
]

# Number lexemes (tests/*.bats), and doubles as 8 bytes plus a precision byte.
NUMBER = [
    b"1e400", b"-1e400", b"1e-400", b"NaN", b"Infinity", b"-Infinity", b"+1", b"01", b"0x10",
    b"1.", b".5", b"-0", b"0.0", b"1.50", b"1e3", b"1.50e2", b"0.0000151E7", b"10.01", b"9.6",
    b"0.15000000000000002", b"0.006666666666666599", b"1090.3488372093022", b"1045.5",
]
DOUBLES = [0.1, 0.15000000000000002, 1e23, 5e-324, 2.2250738585072014e-308,
           1.7976931348623157e308, -0.0, 4.2269720287992586e19, 9007199254740993.0]


# perf.json documents: tests/perfdoc.bats, docs/perf.json.
PERF = data("perfdoc/perf.json")
PERFJSON = [
    PERF, PERF.replace(b'"schema":1', b'"schema":2'), b'{"schema":1}', b'{"schema":1,"rows":[]}',
    b'{"schema":1,"rows":{}}', b'{"schema":"1","rows":[]}', PERF[:len(PERF) // 2],
    PERF.replace(b'"rows":[', b'"rows":[1,'), open(os.path.join(TOP, "docs", "perf.json"), "rb").read(),
    b'{"schema":1,"rows":[{"a":"x\\u0000y"},{"b":"\\ud83d\\ude00"},[1,[2]],"s,]"]}',
]


def write(target, name, blob):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(blob)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    for origin, lines in JSONL.items():
        for i, line in enumerate(lines):
            write("jsonl", "%s-%02d" % (origin, i), line)
            # The reader sees the same files cut into pieces (first byte: up to 64).
            write("jreader", "%s-%02d" % (origin, i), bytes([i % 64]) + line)
    for i, b in enumerate(BUDGET):
        write("budget", "cmpbudget-%02d" % i, b)
    for i, s in enumerate(SIDE):
        write("side", "alternate-%02d" % i, s)
    for i, s in enumerate(JMETRICS):
        write("jmetrics", "bestof-%02d" % i, s)
    for i, (mask, vals) in enumerate(BENCHENV):
        write("benchenv", "kata-%02d" % i, bytes([mask]) + vals)
    for i, s in enumerate(NUMBER):
        write("number", "bats-%02d" % i, s)
    # minjson's fields and groups (tests/minjson.bats), and enough names to grow the table.
    write("names", "minjson-00", b"side\nround\nslot\nload\nmatmul_ns\nsum_ns\nside\nbase\nhead\nbase\n")
    write("names", "minjson-01", b"\n".join(b"m%d_ns" % i for i in range(200)) + b"\nm7_ns\n\x00\n\n")
    for i, doc in enumerate(PERFJSON):
        write("perfjson", "perfdoc-%02d" % i, doc)
    for i, v in enumerate(DOUBLES):
        write("number", "double-%02d" % i, struct.pack("<d", v) + bytes([17]))


main()
