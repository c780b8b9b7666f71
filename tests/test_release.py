"""`python -m scicon.release` on a tiny project shaped like SciCon's release, for real: git, DVC
and the repository's own store (``release/store``). The release is cut as the lead does it: on
a branch of its own with the run's record uncommitted, then merged onto main, whose record
stays its own; clones pull it offline, other projects import it, and every refusal says why."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from tests.dvc_project import REPO, commit_all, dvc, file_digests, project_environment, run
from tests.release_project import RELEASED, documented, make_project, release, release_environment, set_params

pytestmark = pytest.mark.slow

RELEASED_SIZE = 5  # the release's run; main's own record keeps the fixture's 4


@pytest.fixture(scope="module")
def cut(tmp_path_factory, scicon_cache):
    """A project whose `build` branch ran with another parameter and was released as v1 into the
    repository's store, then merged onto main: (project, env, the released files' SHA-256)."""
    env = project_environment(scicon_cache)
    project = make_project(tmp_path_factory.mktemp("release") / "project", env)
    run(["git", "switch", "-q", "-c", "build"], project, env)
    set_params(project, size=RELEASED_SIZE)
    dvc(project, env, "repro")  # the run to release: params, lock, report, metric and plot uncommitted
    digests = file_digests(project, RELEASED)
    release(project, env, "cut", "v1", "--remote", "store")
    run(["git", "switch", "-q", "main"], project, env)
    release(project, env, "merge", "v1")
    dvc(project, env, "checkout")
    return project, env, digests


def clone(project: Path, env: dict, destination: Path, revision: str = "main") -> Path:
    run(["git", "clone", "-q", "--branch", revision, str(project), str(destination)], destination.parent, env)
    return destination


def renamed(digests: dict[str, str], names: dict[str, str]) -> dict[str, str]:
    return {
        path.replace(old, new, 1): digest
        for path, digest in digests.items()
        for old, new in names.items()
        if path.startswith(f"{old}/")
    }


def test_the_release_commit_holds_the_run_record_and_the_store_and_main_keeps_its_own(cut):
    project, env, _ = cut

    def at(revision: str, path: str) -> str:
        return run(["git", "show", f"{revision}:{path}"], project, env).stdout

    # the run's record, uncommitted when the release was cut, is the tag's: dvc status there is clean
    assert yaml.safe_load(at("v1", "params.yaml"))["size"] == RELEASED_SIZE
    assert json.loads(at("v1", "reports/build.json"))["size"] == RELEASED_SIZE
    assert json.loads(at("v1", "metrics/build.json"))["examples"] == 3 * RELEASED_SIZE
    assert f"{RELEASED_SIZE}\n" in at("v1", "plots/build.csv")
    stored = run(
        ["git", "ls-tree", "-r", "--name-only", "v1", "--", "release/store"], project, env
    ).stdout.split()
    assert len(stored) == 2 + 4 + 2  # two manifests, four dataset files, two judge files: no probe left
    assert not [name for name in stored if "probe" in name]
    # main: its own record, the release's store and pointers, the release commit in its history
    assert yaml.safe_load((project / "params.yaml").read_text())["size"] == 4
    assert run(["git", "merge-base", "--is-ancestor", "v1", "main"], project, env).returncode == 0
    pointer = yaml.safe_load((project / "release/scicon.dvc").read_text())
    assert pointer["meta"] == {"release": "v1", "source": "data/scicon"}
    assert "up to date" in dvc(project, env, "status").stdout
    assert run(["git", "status", "--porcelain"], project, env).stdout == ""


def test_a_fresh_clone_of_the_tag_pulls_the_release_and_dvc_status_is_up_to_date(cut, tmp_path):
    project, env, digests = cut
    copy = clone(project, env, tmp_path / "clone", "v1")
    assert not (copy / "data/scicon").exists()
    dvc(copy, env, "pull")  # from release/store in the clone itself: nothing outside it is read
    assert file_digests(copy, RELEASED) == digests
    assert "Data and pipelines are up to date" in dvc(copy, env, "status").stdout


def test_a_fresh_clone_of_main_pulls_the_release_in_its_release_project(cut, tmp_path):
    project, env, digests = cut
    copy = clone(project, env, tmp_path / "clone")
    pulled = dvc(copy / "release", env, "pull")
    assert "Data and pipelines are up to date" in dvc(copy / "release", env, "status").stdout, pulled.stdout
    expected = renamed(digests, {"data/scicon": "release/scicon", "models/entailment": "release/judge"})
    assert file_digests(copy, ("release/scicon", "release/judge")) == expected
    # main's own pipeline is untouched by the release project
    assert "release" not in dvc(copy, env, "status", "--json").stdout


def test_another_project_imports_and_gets_the_release(cut, tmp_path):
    project, env, digests = cut
    consumer = tmp_path / "consumer"
    consumer.mkdir()
    run(["git", "init", "-q"], consumer, env)
    dvc(consumer, env, "init", "-q")
    dvc(consumer, env, "import", str(project), "data/scicon", "--rev", "v1", "--out", "scicon")
    dvc(consumer, env, "get", str(project), "models/entailment", "--rev", "v1", "--out", "judge")
    dvc(consumer, env, "import", str(project), "release/scicon", "--out", "latest")  # main's pointer
    assert file_digests(consumer, ("scicon", "judge")) == renamed(
        digests, {"data/scicon": "scicon", "models/entailment": "judge"}
    )
    assert file_digests(consumer, ("latest",)) == renamed(digests, {"data/scicon": "latest"})
    locked = yaml.safe_load((consumer / "scicon.dvc").read_text())["deps"][0]["repo"]
    assert locked["rev"] == "v1" and len(locked["rev_lock"]) == 40


def refused(project: Path, env: dict, *args: str) -> str:
    head = run(["git", "rev-parse", "HEAD"], project, env).stdout
    tags = run(["git", "tag"], project, env).stdout
    result = release(project, env, "cut", *args, check=False)
    assert result.returncode == 1, result.stdout + result.stderr
    # a refused release leaves no commit and no tag behind
    assert run(["git", "rev-parse", "HEAD"], project, env).stdout == head
    assert run(["git", "tag"], project, env).stdout == tags
    return result.stderr


def test_a_release_refuses_with_the_reason(cut, tmp_path):
    source, env, _ = cut
    project = tmp_path / "project"
    shutil.copytree(source, project, symlinks=True)

    assert "tag v1 exists" in refused(project, env, "v1", "--remote", "store")
    assert "no DVC remote named 'nowhere' (configured: store)" in refused(
        project, env, "v2", "--remote", "nowhere"
    )

    (project / "make.py").write_text((project / "make.py").read_text() + "# an edit\n")
    (project / "notes.txt").write_text("not committed\n")
    said = refused(project, env, "v2", "--remote", "store")
    assert "changes outside the pipeline's record: make.py, notes.txt" in said
    run(["git", "checkout", "make.py"], project, env)
    (project / "notes.txt").unlink()

    set_params(project, size=6)  # a parameter changed without `dvc repro`
    said = refused(project, env, "v2", "--remote", "store")
    assert "`dvc status` is not up to date (build: changed deps params.yaml" in said
    run(["git", "checkout", "params.yaml"], project, env)

    blocker = tmp_path / "a-file"
    blocker.write_text("a file where the remote's folder should be\n")
    dvc(project, env, "remote", "add", "blocked", str(blocker / "store"))
    commit_all(project, env, "a remote that cannot be written")
    said = refused(project, env, "v2", "--remote", "blocked")
    assert "cannot write to remote 'blocked'" in said and "Not a directory" in said


def object_path(project: Path, output: str, relpath: str, lock: Path | None = None) -> str:
    """Where one file of a folder output of ``lock`` (default: the project's ``dvc.lock``) lies
    in a DVC store, ``files/md5/xx/yyyy``; its manifest is read from the project's cache."""
    locked = yaml.safe_load((lock or project / "dvc.lock").read_text())
    entry = next(o for s in locked["stages"].values() for o in s["outs"] if o["path"] == output)
    manifest = project / ".dvc/cache/files/md5" / entry["md5"][:2] / entry["md5"][2:]
    md5 = next(item["md5"] for item in json.loads(manifest.read_text()) if item["relpath"] == relpath)
    return f"files/md5/{md5[:2]}/{md5[2:]}"


def corrupt(path: Path) -> None:
    path.chmod(0o644)  # DVC writes its objects read-only
    path.write_bytes(b"not the released bytes\n" + path.read_bytes()[23:])


def test_a_corrupted_object_in_the_store_stops_dvc_pull(cut, tmp_path):
    project, env, _ = cut
    copy = clone(project, env, tmp_path / "clone", "v1")
    corrupt(copy / "release/store" / object_path(project, "data/scicon", "train.parquet", copy / "dvc.lock"))
    # the store is read with `verify = true` (.dvc/config): DVC hashes what it fetched
    pulled = dvc(copy, env, "pull", check=False)
    assert pulled.returncode == 1
    said = pulled.stdout + pulled.stderr
    assert "ERROR: failed to pull data from the cloud - Checkout failed for following targets:" in said
    assert "data/scicon" in said and not (copy / "data/scicon/train.parquet").exists()


def test_verify_finds_a_corrupted_object_on_a_remote_dvc_does_not_check(cut, tmp_path):
    source, env, _ = cut
    project = tmp_path / "project"
    shutil.copytree(source, project, symlinks=True)
    plain = tmp_path / "plain"  # a remote without `verify`: DVC takes what it fetches on trust
    dvc(project, env, "remote", "add", "plain", str(plain))
    commit_all(project, env, "a plain remote")
    dvc(project, env, "push", "--remote", "plain", *RELEASED)
    corrupt(plain / object_path(project, "data/scicon", "train.parquet"))
    result = release(project, env, "verify", "HEAD", "--remote", "plain", check=False)
    assert result.returncode == 1
    assert "does not match its dvc.lock: data/scicon/train.parquet: MD5" in result.stderr
    assert "the lock says" in result.stderr


SETUP = "scripts/setup.sh && . .venv/bin/activate && "  # the README's set-up, done by the test run itself


def run_documented(text: str, cwd: Path, env: dict, values: dict[str, str]) -> str:
    for placeholder, value in values.items():
        text = text.replace(placeholder, value)
    return run(["bash", "-euo", "pipefail", "-c", text], cwd, env).stdout


def test_the_documented_release_runs_as_written(tmp_path, scicon_cache):
    """docs/workflows.md's release blocks and the README's line, run verbatim in bash on the
    tiny project: cut from an experiment on a branch, merge onto main, pull on a clone of main
    and at the tag, import and get from another project. Only ``<repository>`` and
    ``<experiment>`` are filled in, and the README's set-up is the test run's own."""
    env = release_environment(project_environment(scicon_cache))
    repository = make_project(tmp_path / "repository", env)
    dvc(
        repository,
        env,
        "exp",
        "run",
        "--temp",
        "--name",
        "release-run",
        "--set-param",
        f"size={RELEASED_SIZE}",
    )
    values = {"<repository>": str(repository), "<experiment>": "release-run"}
    workflows, readme = REPO / "docs/workflows.md", REPO / "README.md"

    run_documented(documented(workflows, "cut"), repository, env, values)
    assert yaml.safe_load((repository / "params.yaml").read_text())["size"] == 4  # main's own record
    pulled = run_documented(documented(workflows, "pull"), tmp_path, env, values)
    assert "Data and pipelines are up to date" in pulled
    run_documented(documented(workflows, "tag"), tmp_path, env, values)
    released = file_digests(tmp_path / "scicon-v3", RELEASED)
    assert len(released) == 4 + 2
    run_documented(documented(workflows, "import"), tmp_path, env, values)

    main = tmp_path / "main"
    run(["git", "clone", "-q", str(repository), str(main)], tmp_path, env)
    line = documented(readme, "readme").strip()
    assert line.startswith(SETUP)
    assert "Data and pipelines are up to date" in run_documented(line.removeprefix(SETUP), main, env, values)

    names = {"data/scicon": "scicon", "models/entailment": "judge"}
    assert file_digests(tmp_path / "scicon/release", ("scicon", "judge")) == renamed(released, names)
    assert file_digests(main / "release", ("scicon", "judge")) == renamed(released, names)
    consumer = tmp_path / "consumer"
    assert file_digests(consumer, ("scicon", "judge")) == renamed(released, names)
    assert file_digests(consumer, ("scicon-latest",)) == renamed(released, {"data/scicon": "scicon-latest"})


def test_the_release_carries_the_verifier_the_gate_read_and_not_an_untrained_one(tmp_path):
    from scicon.classifier_folder import write_untrained
    from scicon.release.cut import default_released

    params = tmp_path / "params.yaml"
    params.write_text(
        yaml.safe_dump(
            {"evolve": {"settings": {"goal": {"classifier": {"model": "models/judge"}}}},
             "build": {"verifier": "models/verifier"}}
        )
    )
    write_untrained(tmp_path / "models" / "verifier", "verifier.train is false")
    assert [item.name for item in default_released(params)] == ["scicon", "judge"]
    shutil.rmtree(tmp_path / "models" / "verifier")
    (tmp_path / "models" / "verifier").mkdir()
    (tmp_path / "models" / "verifier" / "config.json").write_text("{}")
    released = default_released(params)
    assert [(item.path, item.name) for item in released][-1] == ("models/verifier", "verifier")
