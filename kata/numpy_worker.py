#!/usr/bin/python3
"""numpy_worker: the kata's four cases in NumPy, timed by bench.h's rule.

Run by `make compare` as the numpy side. It builds the same inputs as
bench/bench.c (same sizes, same values, float32), times each case in its
own process with a calibrated loop: one warm-up call; a batch grown until it
lasts BENCH_MIN_S (the first that does counts); then batches up to
BENCH_REPS in all, or until BENCH_MAX_S is spent; the smallest time per call
is the metric, on the thread's CPU clock (BENCH_CLOCK=wall: the monotonic
clock). BENCH_CASES picks the cases; BENCH_SHA256=1 adds each case's input
digest (the same bytes bench.c hashes). The last stdout line is one JSON
object: {"sum_ns":812.5,"sum_input_sha256":"..."}. BENCH_EVAL=path instead
evaluates the one case of BENCH_CASES once and writes its results there as
bench.c does (float32, or int32 for count_below), timing nothing.

With --about it prints instead what it runs with, one JSON object: Python,
NumPy, the BLAS library loaded, OpenBLAS's kernel (core name) and thread
count where the BLAS is OpenBLAS, and OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE
and the thread variables as set (null when unset). It never changes them.
It refuses (exit 2) a NumPy on the reference BLAS, unless
COMPARE_REFERENCE_BLAS=1: then blas_kind says "reference".

With --worker it is a long-lived worker instead, speaking the worker
protocol (bench/worker.h's L W T E V) as JSON lines on stdin and stdout,
its fns the four cases on the argument files wside writes from bench.c's
BENCH_INPUT (float64, column-major, the values in bench.c's order). With
--lock it prints what a run loads, one JSON object: numpy, its version,
and every shared object mapped once each case has run, for docs/refs.lock.

Exit 0, or 2 with one line on stderr for a bad environment value.
"""
import hashlib
import json
import os
import sys
import time

import numpy as np

MM_N = 192
SUM_N = 8192
RMS_ROWS = 16
RMS_D = 1024
CB_N = 1 << 18
CB_Q = 1024
EPS = np.float32(1e-5)


def die(msg):
    sys.stderr.write("numpy_worker: %s\n" % msg)
    sys.exit(2)


def env_num(var, default, lo, hi, whole):
    s = os.environ.get(var)
    if s is None:
        return default
    try:
        v = float(s)
    except ValueError:
        die("%s=%s: not a number" % (var, s))
    if v != v or not lo <= v <= hi:
        die("%s=%s: out of range" % (var, s))
    if whole and v != int(v):
        die("%s=%s: not a whole number" % (var, s))
    return int(v) if whole else v


def inputs():
    """The inputs of bench.c's setup(), value for value."""
    i = np.arange(MM_N * MM_N, dtype=np.int64)
    a = ((i % 17 - 8) / 8.0).astype(np.float32).reshape(MM_N, MM_N)
    b = ((i % 13 - 6) / 4.0).astype(np.float32).reshape(MM_N, MM_N)
    i = np.arange(SUM_N, dtype=np.int64)
    sx = ((i % 11 - 5) * 0.25).astype(np.float32)
    i = np.arange(RMS_ROWS * RMS_D, dtype=np.int64)
    rx = ((i % 19 - 9) * 0.125).astype(np.float32).reshape(RMS_ROWS, RMS_D)
    i = np.arange(RMS_D, dtype=np.int64)
    rw = (1.0 + (i % 7) / 16.0).astype(np.float32)
    cb = (np.arange(CB_N, dtype=np.int64) * 0.5).astype(np.float32)
    i = np.arange(CB_Q, dtype=np.uint64)
    cbq = ((i * np.uint64(2654435761) % np.uint64(CB_N)).astype(np.float64) * 0.5
           + 0.25).astype(np.float32)
    return a, b, sx, rx, rw, cb, cbq


def digest(*arrays):
    h = hashlib.sha256()
    for x in arrays:
        h.update(np.ascontiguousarray(x, dtype="<f4").tobytes())
    return h.hexdigest()


# Each case's input arrays, in the order bench.c digests them, by shape.
SHAPES = {
    "matmul": ((MM_N, MM_N), (MM_N, MM_N)),
    "sum": ((SUM_N,),),
    "rmsnorm": ((RMS_ROWS, RMS_D), (RMS_D,)),
    "count_below": ((CB_N,), (CB_Q,)),
}


def make_case(name, arrs):
    """(one call, its results evaluated once as bench.c's BENCH_EVAL writes
    them) of the case name on its input arrays arrs."""
    if name == "matmul":
        a, b = arrs
        c = np.empty((MM_N, MM_N), dtype=np.float32)

        def matmul():
            np.matmul(a, b, out=c)

        def results():
            matmul()
            return c
        return matmul, results
    if name == "sum":
        sx, = arrs
        return sx.sum, lambda: np.asarray([sx.sum()], dtype=np.float32)
    if name == "rmsnorm":
        rx, rw = arrs

        def rmsnorm():
            return rx / np.sqrt((rx * rx).mean(axis=1, keepdims=True) + EPS) * rw
        return rmsnorm, rmsnorm
    cb, cbq = arrs
    q = [0]

    def count_below():
        # One search a call, the queries in turn, as bench.c does.
        t = cbq[q[0] % CB_Q]
        q[0] += 1
        return np.searchsorted(cb, t)

    def results():
        # Every query in turn, one search each, as the timed calls make.
        return np.asarray([np.searchsorted(cb, t) for t in cbq], dtype="<i4")
    return count_below, results


def cases():
    """name -> (one call, its results, the arrays it reads)."""
    a, b, sx, rx, rw, cb, cbq = inputs()
    arrs = {"matmul": (a, b), "sum": (sx,), "rmsnorm": (rx, rw), "count_below": (cb, cbq)}
    return {n: make_case(n, arrs[n]) + (arrs[n],) for n in SHAPES}


def batch(fn, iters, clock):
    t0 = clock()
    for _ in range(iters):
        fn()
    return clock() - t0


def measure(fn, reps, min_s, max_s, clock):
    """bench.h's rule: the best ns a call."""
    w = time.perf_counter_ns()
    t0 = clock()
    fn()
    warm = clock() - t0
    min_ns, max_ns = min_s * 1e9, max_s * 1e9
    if warm >= max_ns:
        return float(warm)
    iters = 1 if warm >= min_ns or warm <= 0 else max(1, int(min_ns / warm))
    while True:
        t = batch(fn, iters, clock)
        if t >= min_ns:
            break
        mult = min(10.0, max(1.1, 1.1 * min_ns / t if t > 0 else 10.0))
        iters = int(iters * mult) + 1
    best, batches = t / iters, 1
    while batches < reps and time.perf_counter_ns() - w < max_ns:
        t = batch(fn, iters, clock)
        batches += 1
        best = min(best, t / iters)
    return best


def blas_about():
    """The BLAS library this process loaded, and OpenBLAS's own words."""
    about = {"blas": None, "openblas_corename": None, "openblas_config": None,
             "openblas_threads": None}
    try:
        with open("/proc/self/maps") as f:
            libs = sorted({ln.split()[-1] for ln in f
                           if "blas" in ln.split()[-1] and "/" in ln})
    except OSError:
        libs = []
    about["blas"] = " ".join(libs) or None
    for lib in libs:
        try:
            import ctypes
            d = ctypes.CDLL(lib)
        except OSError:
            continue
        for name, key in (("openblas_get_corename", "openblas_corename"),
                          ("openblas_get_config", "openblas_config")):
            fn = getattr(d, name, None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                about[key] = fn().decode()
        fn = getattr(d, "openblas_get_num_threads", None)
        if fn is not None:
            about["openblas_threads"] = fn()
    return about


# The optimized BLAS libraries, by a symbol each exports (suffixed in
# the wheels' builds); a BLAS with none of them is taken for the reference
# one, netlib's, which NumPy as pip or conda installs it never runs on.
OPTIMIZED = ("openblas_get_config", "openblas_get_config64_",
             "scipy_openblas_get_config64_", "mkl_get_version_string",
             "bli_info_get_version_str")


def sgemm_library():
    """The file whose cblas_sgemm NumPy's matmul calls, by dladdr: looked up
    from NumPy's own extension, so the search order is the one it links
    with. None where that cannot be told."""
    import ctypes
    core = getattr(np, "_core", None) or np.core
    ext = getattr(core, "_multiarray_umath", None)

    class DlInfo(ctypes.Structure):
        _fields_ = [("fname", ctypes.c_char_p), ("fbase", ctypes.c_void_p),
                    ("sname", ctypes.c_char_p), ("saddr", ctypes.c_void_p)]
    try:
        m = ctypes.CDLL(ext.__file__)
        libc = ctypes.CDLL(None)
        for name in ("cblas_sgemm", "cblas_sgemm64_", "scipy_cblas_sgemm64_"):
            fn = getattr(m, name, None)
            if fn is None:
                continue
            info = DlInfo()
            if libc.dladdr(ctypes.cast(fn, ctypes.c_void_p), ctypes.byref(info)):
                return os.path.realpath(info.fname.decode())
    except (AttributeError, OSError):
        pass
    return None


def blas_kind(lib):
    """'optimized' when lib exports an optimized BLAS's symbol."""
    import ctypes
    try:
        d = ctypes.CDLL(lib)
    except (OSError, TypeError):
        return "reference"
    if any(getattr(d, s, None) is not None for s in OPTIMIZED):
        return "optimized"
    return "reference"


def refuse_reference_blas(out):
    """make compare measures NumPy as people run it, unless asked otherwise."""
    if os.environ.get("COMPARE_REFERENCE_BLAS") == "1":
        return
    if out["blas_kind"] == "reference":
        die("NumPy's cblas_sgemm is the reference BLAS's (%s):"
            " apt-get install libopenblas0-serial, or COMPARE_REFERENCE_BLAS=1 to"
            " measure it anyway"
            % (out["blas_sgemm"] or "no BLAS library found"))


def about():
    out = {"python": sys.version.split()[0], "numpy": np.__version__}
    out.update(blas_about())
    out["blas_sgemm"] = sgemm_library()
    out["blas_kind"] = blas_kind(out["blas_sgemm"])
    refuse_reference_blas(out)
    for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS",
                "OMP_NUM_THREADS"):
        out[var.lower()] = os.environ.get(var)
    return out


# The worker protocol: the reference-benchmark contract's rbw1 (bench/worker.h
# has it whole) as JSON lines, as the contract has a Python worker speak:
# one request object a line, one reply object a line, at most LINE_MAX
# bytes with the newline.
#   {"op":"L","key":k,"path":p,"cols":c,"rows":r} -> {"ok":true,"sha256":"..."}
#     (c x r float64, little-endian, column-major)
#   {"op":"W","key":k,"fn":f}                    -> {"ok":true}
#   {"op":"T","key":k,"fn":f,"iters":n}          -> {"ok":true,"ns":t}
#   {"op":"E","key":k,"fn":f,"path":p}           -> {"ok":true,"n_nonfinite":a,"n_raised":b}
#     (the results written as float64, little-endian)
#   {"op":"V"}                                   -> {"ok":true,"threads":1,...}
#   anything refused                             -> {"ok":false,"error":"why"}
LINE_MAX = 4096
NAME_OK = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
ARG_MAX = 256 << 20
ITERS_MAX = 1000000000
FIELDS = {"V": (), "L": ("key", "path", "cols", "rows"), "W": ("key", "fn"),
          "T": ("key", "fn", "iters"), "E": ("key", "fn", "path")}


def parse_request(line):
    """(op, key, fn, path, cols, rows, iters) of a request line without its
    newline, or raise ValueError with why it is refused; the rules of
    worker_parse, in JSON."""
    def name(t, what):
        if not isinstance(t, str) or not 0 < len(t) <= 64 or not set(t) <= NAME_OK:
            raise ValueError("bad " + what)
        return t

    def num(t, hi, what):
        if type(t) is not int or not 1 <= t <= hi:
            raise ValueError("bad " + what)
        return t

    def path(t):
        if not isinstance(t, str) or not t or t[0] == "/" or \
                any(not 0x21 <= ord(ch) <= 0x7e for ch in t) or ".." in t.split("/"):
            raise ValueError("bad path: relative, printable, no ..")
        return t
    if len(line) + 1 > LINE_MAX:
        raise ValueError("line longer than 4096 bytes")
    try:
        r = json.loads(line)
    except ValueError:
        raise ValueError("not a JSON object")
    if not isinstance(r, dict) or r.get("op") not in FIELDS:
        raise ValueError("unknown request")
    op = r["op"]
    if set(r) != {"op"} | set(FIELDS[op]):
        raise ValueError("wrong fields")
    if op == "V":
        return op, None, None, None, None, None, None
    key = name(r["key"], "key")
    if op == "L":
        cols = num(r["cols"], ARG_MAX // 8, "size: cols and rows from 1")
        rows = num(r["rows"], ARG_MAX // 8, "size: cols and rows from 1")
        if cols * rows * 8 > ARG_MAX:
            raise ValueError("too large: more than 256 MiB")
        return op, key, None, path(r["path"]), cols, rows, None
    fn = name(r["fn"], "fn")
    if op == "T":
        return op, key, fn, None, None, None, num(r["iters"], ITERS_MAX, "iters")
    return op, key, fn, (path(r["path"]) if op == "E" else None), None, None, None


def inside(rel, output):
    """rel's full name inside WORKER_DIR, which it must resolve into."""
    d = os.environ.get("WORKER_DIR")
    if d is None:
        raise ValueError("no run directory (WORKER_DIR)")
    d = os.path.realpath(d)
    full = os.path.join(d, rel)
    real = os.path.join(os.path.realpath(os.path.dirname(full)), os.path.basename(full)) \
        if output else os.path.realpath(full)
    if not (real + "/").startswith(d + "/") or (output and not os.path.isdir(os.path.dirname(real))):
        raise ValueError("outside the run directory" if not (real + "/").startswith(d + "/")
                         else "no such directory")
    return real


def threads():
    with open("/proc/self/status") as f:
        for ln in f:
            if ln.startswith("Threads:"):
                return int(ln.split()[1])
    return -1


def versions():
    """V's reply: versions, the threads observed, and the BLAS's own count."""
    out = {"ok": True, "harness": "python", "name": "numpy", "python": sys.version.split()[0],
           "numpy": np.__version__, "threads": threads(), "threads_source": "proc"}
    n = blas_about()["openblas_threads"]
    if n is not None:
        out["openblas_threads"] = n
    return out


def serve():
    """Serve the protocol on stdin and stdout until stdin ends."""
    keys = {}    # key -> its float64 values, its last load whole; absent otherwise
    made = {}    # (key, fn) -> (call, results)
    clock = time.perf_counter_ns if os.environ.get("BENCH_CLOCK") == "wall" else time.thread_time_ns
    inp, out = sys.stdin.buffer, sys.stdout

    def reply(obj):
        out.write(json.dumps(obj, separators=(",", ":")) + "\n")
        out.flush()

    def refuse(why):
        reply({"ok": False, "error": why})
    while True:
        raw = inp.readline(LINE_MAX + 1)
        if not raw:
            return 0
        if len(raw) > LINE_MAX or (len(raw) == LINE_MAX and not raw.endswith(b"\n")):
            # Skip the rest of the line a chunk at a time, keeping none of it.
            while raw and not raw.endswith(b"\n"):
                raw = inp.readline(65536)
            refuse("line longer than 4096 bytes")
            continue
        try:
            op, key, fn, path, cols, rows, iters = parse_request(raw.rstrip(b"\n").decode("ascii"))
        except UnicodeDecodeError:
            refuse("not ASCII")
            continue
        except ValueError as e:
            refuse(str(e))
            continue
        try:
            if op == "V":
                reply(versions())
            elif op == "L":
                keys.pop(key, None)
                for k in [k for k in made if k[0] == key]:
                    del made[k]
                want = 8 * cols * rows
                with open(inside(path, False), "rb") as f:
                    data = f.read(want + 1)
                if len(data) < want:
                    refuse("truncated: fewer than cols x rows values")
                elif len(data) > want:
                    refuse("the file holds more than cols x rows values")
                else:
                    # Column-major: the values in the file's order are the flat inputs.
                    keys[key] = np.frombuffer(data, dtype="<f8")
                    reply({"ok": True, "sha256": hashlib.sha256(data).hexdigest()})
            elif key not in keys:
                refuse("key %s not loaded" % key)
            elif fn not in SHAPES:
                refuse("no fn %s" % fn)
            else:
                if (key, fn) not in made:
                    v, arrs, at = keys[key], [], 0
                    if len(v) != sum(int(np.prod(sh)) for sh in SHAPES[fn]):
                        raise ValueError("arguments do not fit")
                    for sh in SHAPES[fn]:
                        k = int(np.prod(sh))
                        arrs.append(v[at:at + k].astype(np.float32).reshape(sh))
                        at += k
                    made[key, fn] = make_case(fn, tuple(arrs))
                call, results = made[key, fn]
                if op == "W":
                    call()
                    reply({"ok": True})
                elif op == "T":
                    t0 = clock()
                    for _ in range(iters):
                        call()
                    reply({"ok": True, "ns": (clock() - t0) / iters})
                else:
                    r = np.ascontiguousarray(results(), dtype="<f8")
                    r.tofile(inside(path, True))
                    reply({"ok": True, "n_nonfinite": int((~np.isfinite(r)).sum()), "n_raised": 0})
        except ValueError as e:
            refuse(str(e))
        except OSError as e:
            refuse(e.strerror or "cannot read or write")


def lock():
    """What a run loads: NumPy, its version, and every shared object this
    process has mapped once each case has run (its extension modules, the
    BLAS it dispatches to), for docs/refs.lock."""
    for call, results, _ in cases().values():
        call()
        results()
    files = []
    with open("/proc/self/maps") as f:
        for ln in f:
            p = ln.split(None, 5)[-1].strip() if len(ln.split(None, 5)) == 6 else ""
            if p.startswith("/") and ".so" in os.path.basename(p) and p not in files:
                files.append(p)
    return {"package": "numpy", "version": np.__version__, "files": files}


def main():
    if sys.argv[1:] == ["--about"]:
        print(json.dumps(about(), separators=(",", ":")))
        return 0
    if sys.argv[1:] == ["--worker"]:
        return serve()
    if sys.argv[1:] == ["--lock"]:
        print(json.dumps(lock(), separators=(",", ":")))
        return 0
    if len(sys.argv) > 1:
        sys.stderr.write("usage: numpy_worker [--about | --worker | --lock]\n")
        return 2
    # bench.h's defaults: every side of a comparison spends the same effort.
    reps = env_num("BENCH_REPS", 8, 1, 1e6, True)
    min_s = env_num("BENCH_MIN_S", 0.0005, 1e-6, 3600, False)
    max_s = env_num("BENCH_MAX_S", 4 * reps * min_s, 1e-6, 1e6, False)
    clock_name = os.environ.get("BENCH_CLOCK", "cpu")
    if clock_name not in ("cpu", "wall"):
        die("BENCH_CLOCK=%s: not cpu or wall" % clock_name)
    clock = time.thread_time_ns if clock_name == "cpu" else time.perf_counter_ns
    all_cases = cases()
    wanted = os.environ.get("BENCH_CASES")
    names = list(all_cases)
    if wanted is not None:
        names = []
        for w in wanted.split(","):
            n = w[:-3] if w.endswith("_ns") else w
            if n not in all_cases:
                die("BENCH_CASES=%s: no case '%s'" % (wanted, w))
            if n not in names:
                names.append(n)
        names = [n for n in all_cases if n in names]
    path = os.environ.get("BENCH_EVAL")
    if path is not None:
        if len(names) != 1:
            die("BENCH_EVAL needs one case in BENCH_CASES")
        r = all_cases[names[0]][1]()
        try:
            np.ascontiguousarray(r, dtype="<i4" if r.dtype.kind == "i" else "<f4").tofile(path)
        except OSError as e:
            die("BENCH_EVAL=%s: %s" % (path, e.strerror))
        return 0
    line = {}
    for n in names:
        line[n + "_ns"] = measure(all_cases[n][0], reps, min_s, max_s, clock)
    if os.environ.get("BENCH_SHA256") == "1":
        for n in names:
            line[n + "_input_sha256"] = digest(*all_cases[n][2])
    # repr of a float is its shortest round-trip form, as bench.h prints.
    print("{" + ",".join('"%s":%s' % (k, json.dumps(v)) for k, v in line.items()) + "}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
