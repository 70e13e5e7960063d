"""The lock files in requirements/ agree with pyproject.toml: every dependency pinned once, at
a version its range allows, with hashes; the run lock a part of the test lock."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)")


def pins(lock: Path) -> dict[str, tuple[str, int]]:
    """Each pinned package of a pip-compile lock file: its version and how many hashes it has."""
    found: dict[str, tuple[str, int]] = {}
    name = ""
    for line in lock.read_text().splitlines():
        match = PIN.match(line)
        if match:
            name = canonicalize_name(match.group(1))
            assert name not in found, f"{lock.name} pins {name} twice"
            found[name] = (match.group(2), 0)
        elif line.strip().startswith("--hash=sha256:") and name:
            version, hashes = found[name]
            found[name] = (version, hashes + 1)
    return found


def project() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def requirements(group: str) -> list[Requirement]:
    table = project()
    build = table["build-system"]
    deps = table["project"]
    assert isinstance(build, dict) and isinstance(deps, dict)
    wanted = list(build["requires"]) + list(deps["dependencies"])
    if group == "test":
        wanted += deps["optional-dependencies"]["test"]
    return [Requirement(r) for r in wanted]


@pytest.mark.parametrize("group", ["run", "test"])
def test_every_dependency_of_pyproject_is_pinned_in_its_lock_at_a_version_its_range_allows(group: str) -> None:
    locked = pins(ROOT / "requirements" / f"{group}.txt")
    for requirement in requirements(group):
        name = canonicalize_name(requirement.name)
        assert name in locked, f"requirements/{group}.txt does not pin {requirement} (run tools/lock.sh)"
        version, _ = locked[name]
        assert requirement.specifier.contains(version, prereleases=True), (
            f"requirements/{group}.txt pins {name}=={version}, outside pyproject.toml's {requirement} "
            "(run tools/lock.sh)"
        )


@pytest.mark.parametrize("group", ["run", "test"])
def test_every_pin_carries_its_hashes(group: str) -> None:
    for name, (version, hashes) in pins(ROOT / "requirements" / f"{group}.txt").items():
        assert hashes > 0, f"requirements/{group}.txt pins {name}=={version} without a hash"


def test_the_run_lock_is_the_test_lock_less_the_test_tools() -> None:
    run = pins(ROOT / "requirements" / "run.txt")
    test = pins(ROOT / "requirements" / "test.txt")
    for name, (version, _) in run.items():
        assert name in test and test[name][0] == version, (
            f"run.txt pins {name}=={version}, test.txt {test.get(name, ('nothing',))[0]} (run tools/lock.sh)"
        )


def test_the_readme_and_ci_install_from_the_locks() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "tools/install.sh" in readme and "tools/install.sh test" in readme
    assert "tools/install.sh test" in ci
    script = (ROOT / "tools" / "install.sh").read_text()
    assert "--require-hashes" in script and "requirements/$what.txt" in script
