"""`core.jit.njit`: one compilation per argument type, whatever literals the callers pass."""

import os
import subprocess
import sys

import numpy as np
import pytest

from card_envs.core.jit import TypeDispatcher, boundary, njit

pytestmark = pytest.mark.skipif(
    os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="compilation is what is tested"
)


@njit
def _put(row, at, value, flag):
    row[at] = value if flag else -value


@njit
def _callers(row):
    _put(row, 0, 5, True)
    _put(row, 1, 7, False)
    _put(row, np.int64(2), row[0], row[0] > 0)


def test_calls_with_other_literals_share_one_compilation():
    row = np.zeros(3, dtype=np.int64)
    _callers(row)
    assert row.tolist() == [5, -7, 5]
    assert isinstance(_put, TypeDispatcher)
    assert len(_put.signatures) == 1, _put.signatures


def test_the_decorator_takes_numbas_options():
    @njit(inline="always")
    def twice(x):
        return 2 * x

    @njit(cache=False, boundscheck=False)
    def use(x):
        return twice(x) + 1

    assert use(4) == 9
    assert isinstance(use, TypeDispatcher)


BOUNDARY_MODULE = """
import numpy as np
from card_envs.core.jit import boundary, njit


@boundary("int64(int64[::1], int64)")
def add_to(a, x):
    total = 0
    for i in range(a.shape[0]):
        a[i] += x
        total += a[i]
    return total


@njit(cache=True)
def caller(a):
    return add_to(a, 2) * 100 + add_to(a, np.int32(3))
"""

RUN = """
import sys, numpy as np
sys.path.insert(0, sys.argv[1])
import kernels
a = np.arange(3, dtype=np.int64)
print(kernels.caller(a), a.tolist(), kernels.caller.stats.cache_hits.total() > 0)
(sig,) = kernels.caller.signatures
llvm = kernels.caller.inspect_llvm(sig)
print("declare" in llvm and "card_envs.boundary.kernels.add_to." in llvm)
"""


def test_a_boundary_kernel_is_called_not_copied_and_cached_callers_find_it(tmp_path):
    """The caller declares the boundary's symbol instead of linking its code, and a second
    process loads the caller from numba's cache and runs it (the symbol is found again)."""
    (tmp_path / "kernels.py").write_text(BOUNDARY_MODULE)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    runs = [
        subprocess.run(
            [sys.executable, "-c", RUN, str(tmp_path)],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split("\n")
        for _ in range(2)
    ]
    # a = [0, 1, 2] -> +2: [2, 3, 4] sums to 9 -> +3: [5, 6, 7] sums to 18
    assert runs[0][0] == "918 [5, 6, 7] False"
    assert runs[1][0] == "918 [5, 6, 7] True"
    assert runs[0][1] == "True"


def test_a_boundary_kernel_takes_its_declared_types_only():
    from numba.core.errors import TypingError

    @njit
    def misuse(a):
        return _boundary_add(a, 1)

    with pytest.raises(TypingError):
        misuse(np.zeros(2, dtype=np.float64))


@boundary("int64(int64[::1], int64)")
def _boundary_add(a, x):
    return a[0] + x


def test_a_cold_compile_is_announced_once_and_a_cached_load_not_at_all(tmp_path):
    code = (
        "import card_envs\n"
        "for _ in range(2):\n"
        "    env = card_envs.make('no_thanks_v0')\n"
        "    env.reset(seed=0)\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    said = [
        subprocess.run(
            [sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True
        ).stderr
        for _ in range(2)
    ]
    assert said[0].count("card_envs: compiling the no_thanks kernels") == 1, said[0]
    assert "compiling" not in said[1], said[1]


BUILT_ASIDE = """
import gc, os, subprocess, sys, weakref, numpy as np
sys.path.insert(0, sys.argv[1])
from card_envs.core import jit
if sys.argv[2] == "failing builder":
    jit._Build.start_build = lambda self: subprocess.Popen(
        [sys.executable, "-c", "raise SystemExit(3)"], stdout=subprocess.PIPE
    )
import kernels
build = kernels.add_to.build
started = build is not None and build.process is not None
kernels.caller.compile("(int64[::1],)")  # compiling a caller starts the builder
print(not started and build is not None and build.process is not None)
a = np.arange(3, dtype=np.int64)
if sys.argv[2] == "fork":
    pid = os.fork()
    if pid == 0:  # the fork waits for the same builder through the pipe it inherited
        os._exit(0 if kernels.caller(a) == 918 and kernels.add_to.build is None else 1)
    print(os.waitpid(pid, 0)[1] == 0)
if sys.argv[2] == "python call":
    print(kernels.add_to(a, 2), a.tolist())
else:
    print(kernels.caller(a), a.tolist())
print(kernels.add_to.build is None, build.process.returncode if build else None)
alive = weakref.ref(build) if build else lambda: None
del build
gc.collect()  # the caller compiled before the build settled still calls its trampoline
print(kernels.caller(np.zeros(2, dtype=np.int64)), alive() is not None)
"""


def _run_kernels(
    tmp_path, script: str, how: str, aside: str = "1", module: str = BOUNDARY_MODULE
) -> list[str]:
    """The output lines of `script` run in a new process on the kernels module `module`,
    with numba's cache in tmp_path and CARD_ENVS_BUILD_ASIDE=`aside`."""
    (tmp_path / "kernels.py").write_text(module)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "CARD_ENVS_BUILD_ASIDE": aside}
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path), how],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.split("\n")


def _built_aside(tmp_path, how):
    return _run_kernels(tmp_path, BUILT_ASIDE, how)


def test_a_cold_boundary_builds_in_a_process_of_its_own_that_its_first_call_awaits(tmp_path):
    lines = _built_aside(tmp_path, "call")
    # no builder at import; compiling the caller started one, and nothing compiled it here
    assert lines[0] == "True"
    assert lines[1] == "918 [5, 6, 7]"  # the caller compiled here ran through the trampoline
    assert lines[2] == "True 0"  # settled on the builder's kernel
    # [0, 0] -> [2, 2] sums to 4 -> [5, 5] sums to 10; the trampoline's code is kept
    assert lines[3] == "410 True"
    # the builder left it in numba's cache: the next process loads it
    assert _built_aside(tmp_path, "call")[:3] == ["False", "918 [5, 6, 7]", "True None"]


SETTLE_ONE_PACKAGE = """
import sys, numpy as np
sys.path.insert(0, sys.argv[1])
from card_envs.core import jit
import kernels, other
jit.settle("other")  # compiles the other module's boundary, not this one's
print(kernels.add_to.build is not None, other.add_to.build is None)
jit.settle()
print(kernels.add_to.build is None)
"""


def test_settle_takes_the_boundaries_of_one_package_or_all(tmp_path):
    """A warm-up process settles its game's boundaries only (the other games' are compiled
    by their own processes), and a batched env its game's before its threads run."""
    (tmp_path / "other.py").write_text(BOUNDARY_MODULE)
    lines = _run_kernels(tmp_path, SETTLE_ONE_PACKAGE, "", aside="0")
    assert lines[:2] == ["True True", "True"]


def test_a_boundary_called_from_python_before_its_build_settles_waits_for_it(tmp_path):
    assert _built_aside(tmp_path, "python call")[:3] == ["True", "9 [2, 3, 4]", "True 0"]


def test_a_process_forked_during_the_build_waits_for_the_same_builder(tmp_path):
    assert _built_aside(tmp_path, "fork")[:4] == ["True", "True", "918 [5, 6, 7]", "True 0"]


def test_a_failed_build_is_compiled_where_it_is_needed(tmp_path):
    assert _built_aside(tmp_path, "failing builder")[:3] == ["True", "918 [5, 6, 7]", "True 3"]


AT_FIRST_CALL = """
import sys, numpy as np
sys.path.insert(0, sys.argv[1])
import kernels
print(kernels.add_to.build is not None and kernels.add_to.build.process is None,
      len(kernels.add_to.overloads))
if sys.argv[2] == "call":
    print(kernels.caller(np.arange(3, dtype=np.int64)), kernels.add_to.build is None)
"""


def _at_first_call(tmp_path, how: str, aside: str, module: str = BOUNDARY_MODULE) -> list[str]:
    return _run_kernels(tmp_path, AT_FIRST_CALL, how, aside, module)


def test_a_cold_boundary_no_builder_takes_compiles_at_its_first_call_only(tmp_path):
    """With no builder (one core, or `aside=False`), a cold boundary is not compiled when
    its module is imported: a process that never calls it never compiles it, and the first
    call compiles it through the trampoline, into the cache the next process loads."""
    assert _at_first_call(tmp_path, "import", "0")[0] == "True 0"  # nothing compiled
    assert _at_first_call(tmp_path, "import", "0")[0] == "True 0"  # nor cached
    assert _at_first_call(tmp_path, "call", "0")[:2] == ["True 0", "918 True"]
    assert _at_first_call(tmp_path, "import", "0")[0] == "False 1"  # loaded from the cache


def test_a_boundary_not_built_aside_starts_no_builder(tmp_path):
    module = BOUNDARY_MODULE.replace('int64)")', 'int64)", aside=False)', 1)
    assert module != BOUNDARY_MODULE
    assert _at_first_call(tmp_path, "call", "1", module)[:2] == ["True 0", "918 True"]


def test_a_boundary_names_its_return_type():
    with pytest.raises(ValueError, match=r"'\(int64, int64\)' has no return type"):
        boundary("(int64, int64)")(lambda x, y: x + y)


def test_build_aside_takes_one_or_zero(monkeypatch):
    from card_envs.core import jit

    monkeypatch.setenv("CARD_ENVS_BUILD_ASIDE", "yes")
    with pytest.raises(ValueError, match="CARD_ENVS_BUILD_ASIDE='yes': use 1"):
        jit._build_aside()
    monkeypatch.setenv("CARD_ENVS_BUILD_ASIDE", "0")
    assert jit._build_aside() is False
