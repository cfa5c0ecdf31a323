"""`make test`'s packaging check: a wheel built from the repository installs and serves.

An editable install reads every file from the checkout, so it cannot show what a wheel leaves
out (it once left out recall/domains.toml and the admin's templates). This script:

1. copies the repository's files (tracked, or new and not ignored) to a scratch folder and
   builds a wheel there, so that a stale build/ of the checkout cannot fill a gap;
2. checks that every file of the packages is in the wheel, and the root templates/ under the
   wiring package's templates/ (settings.TEMPLATES reads them there);
3. installs the wheel, without dependencies, into a scratch virtualenv whose only other path
   is this interpreter's site-packages (the dependencies, but not the editable install: a
   directory named by a .pth line has its own .pth files skipped);
4. runs testing/wheel_smoke.py with the scratch interpreter, outside the checkout: it imports
   every module of every app from the wheel, then migrates an embedded PostgreSQL in a scratch
   data folder, serves the WSGI application over HTTP and calls /health and an extract.

Run as `python -m testing.wheel_check` from the repository (`make test` does). Offline: pip
takes setuptools from the configured index for the build. Prints what failed and exits 1.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WIRING = "memory_platform"
TEMPLATES = "templates"


def _run(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode:
        sys.exit(f"wheel check: {' '.join(map(str, args))} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def repository_files() -> list[str]:
    """The files a clone would have, with the working tree's edits (tracked or new, not ignored)."""
    listed = _run("git", "ls-files", "--cached", "--others", "--exclude-standard", cwd=ROOT)
    # A symlink counts (memory_platform/templates), a deleted file that git still lists does not.
    return [n for n in listed.splitlines() if (ROOT / n).is_file() or (ROOT / n).is_symlink()]


def packages(names: list[str]) -> list[str]:
    """The top-level packages pyproject.toml ships (those its find directive includes)."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = project["tool"]["setuptools"]["packages"]["find"]["include"]
    tops = {name.split("/", 1)[0] for name in names if "/" in name}
    return sorted(t for t in tops for p in patterns if p.rstrip("*") == t)


def build(names: list[str], into: Path) -> Path:
    source = into / "source"
    for name in names:
        target = source / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target, follow_symlinks=False)
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", into, source)
    (wheel,) = into.glob("*.whl")
    return wheel


def missing_from(wheel: Path, names: list[str]) -> list[str]:
    shipped = set(zipfile.ZipFile(wheel).namelist())
    tops = packages(names)
    expected = [n for n in names if n.split("/", 1)[0] in tops and not (ROOT / n).is_symlink()]
    expected += [f"{WIRING}/{n}" for n in names if n.startswith(f"{TEMPLATES}/")]
    return sorted(n for n in expected if n not in shipped)


def scratch_venv(into: Path, wheel: Path) -> Path:
    """A virtualenv with the wheel installed and the dependencies of this one on its path."""
    home = into / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(home)
    python = home / "bin" / "python"
    scratch_site = _run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))")
    ours = sysconfig.get_path("purelib")
    (Path(scratch_site.strip()) / "project_dependencies.pth").write_text(ours + "\n")
    _run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "-q", wheel)
    return python


def main() -> None:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="wheel-check-") as scratch:
        into = Path(scratch)
        names = repository_files()
        wheel = build(names, into)
        missing = missing_from(wheel, names)
        if missing:
            sys.exit("wheel check: the wheel leaves out\n  " + "\n  ".join(missing))
        python = scratch_venv(into, wheel)
        work = into / "work"
        work.mkdir()
        # -I: neither the checkout (the script's folder) nor PYTHON* variables on the path;
        # and none of the caller's settings (a DATABASE_URL, an LLM): the defaults serve.
        env = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "TMPDIR"}}
        env["LOG_LEVEL"] = "ERROR"
        smoke = subprocess.run(
            [str(python), "-I", str(ROOT / "testing" / "wheel_smoke.py"), str(work)],
            cwd=work,
            env=env,
            check=False,
        )
        if smoke.returncode:
            sys.exit(f"wheel check: {wheel.name} does not serve from a scratch install")
    print(f"wheel check: {wheel.name} installs and serves ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
