"""The layering the project's layout promises, checked over the import graph of every file.

The intended direction is the diagram of docs/architecture.md, written here as data (``MAY_IMPORT``):
each layer names the layers it may import. An import between two layers that is not listed fails, and so
does any circle of imports between files, whether the imports sit at the top of a module or inside a
function. No two classes of the product code have the same name, nor two modules the same file name (a
name says what it holds, once). The last tests build small trees that break each rule and show that the
checks see it.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("orchestration", "assets", "quality", "readers", "warehouse")

#: The reader families: each reads its content kinds with the core's types. Some borrow from another
#: family (an e-mail's HTML body is read as HTML, a PDF's attachments are members as an e-mail's are, a
#: Word document's embedded HTML or text is read as HTML or text).
FAMILIES = ("text", "archives", "html", "office", "mail", "images", "pdf")
_FAMILY_BORROWS = {
    "text": set(),
    "archives": set(),
    "images": set(),
    "html": {"text"},
    "office": {"archives", "html", "text"},
    "mail": {"text", "html", "office", "archives"},
    "pdf": {"mail", "archives"},
}
_READERS = {f"readers.{f}" for f in FAMILIES}

#: Each layer and the layers it may import (besides itself). Read top to bottom, docs/architecture.md.
MAY_IMPORT: dict[str, set[str]] = {
    "orchestration": {"assets", "quality", "warehouse", "readers.walk", "readers.engine", "readers.core"}
    | _READERS,
    "assets": {"quality", "warehouse", "readers.walk", "readers.engine", "readers.core"} | _READERS,
    "warehouse": {"quality", "readers.core"},
    "quality": {"readers.core"},
    "readers.walk": {"readers.engine", "readers.core"} | _READERS,
    "readers.engine": {"readers.core"},
    **{f"readers.{f}": {"readers.core"} | {f"readers.{b}" for b in _FAMILY_BORROWS[f]} for f in FAMILIES},
    "readers.core": set(),
}

#: External packages a layer may not import, whatever its place.
FORBIDDEN = {
    "quality": {"dagster"},
    "warehouse": {"dagster"},
    **{layer: {"dagster"} for layer in MAY_IMPORT if layer.startswith("readers.")},
}


def module_name(root: Path, path: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path, packages: Iterable[str] = PACKAGES) -> dict[str, set[str]]:
    """Every module under ``packages`` and the names it imports (top level and inside functions alike),
    with relative imports resolved."""
    graph: dict[str, set[str]] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            name = module_name(root, path)
            here = name if path.name == "__init__.py" else name.rpartition(".")[0]
            names: set[str] = set()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names |= {a.name for a in node.names}
                elif isinstance(node, ast.ImportFrom):
                    base = node.module or ""
                    if node.level:
                        anchor = here.split(".")[: len(here.split(".")) - node.level + 1]
                        base = ".".join([*anchor, base] if base else anchor)
                    names.add(base)
                    names |= {f"{base}.{a.name}" for a in node.names}
            graph[name] = names
    return graph


def internal_edges(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph restricted to the project's own modules: ``from a import b`` names module ``a.b`` when
    it is one, the package ``a`` otherwise."""

    def resolve(name: str) -> str | None:
        while name and name not in graph:
            if "." not in name:
                return None
            name = name.rpartition(".")[0]
        return name or None

    return {m: {t for n in names if (t := resolve(n)) and t != m} for m, names in graph.items()}


def layer_of(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "readers":
        return "readers.core" if len(parts) == 1 else f"readers.{parts[1]}"
    return parts[0]


def against_the_direction(edges: dict[str, set[str]]) -> list[str]:
    """Each import from one layer into another that the layer may not import."""
    found = []
    for module, targets in sorted(edges.items()):
        for target in sorted(targets):
            a, b = layer_of(module), layer_of(target)
            if a != b and b not in MAY_IMPORT.get(a, set()):
                found.append(f"{module} -> {target} ({a} may not import {b})")
    return found


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


#: The files of a stage's folder under assets/ (``assets/<stage>/<name>.py``): every stage has its own, and
#: the same name in each folder says the same job, so these names are not counted as used twice.
STAGE_FILES = frozenset({"declaration", "asset", "work", "records"})


def _modules(root: Path, packages: Iterable[str]) -> Iterable[Path]:
    for package in packages:
        yield from sorted((root / package).rglob("*.py"))


def classes_defined_twice(root: Path, packages: Iterable[str] = PACKAGES) -> dict[str, list[str]]:
    """Each class name defined more than once (private or public, at any depth), with the modules that
    define it, once for each definition."""
    where: dict[str, list[str]] = {}
    for path in _modules(root, packages):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                where.setdefault(node.name, []).append(module_name(root, path))
    return {name: modules for name, modules in sorted(where.items()) if len(modules) > 1}


def is_stage_file(root: Path, path: Path) -> bool:
    parts = path.relative_to(root).parts
    return len(parts) == 3 and parts[0] == "assets" and path.stem in STAGE_FILES


def module_names_used_twice(root: Path, packages: Iterable[str] = PACKAGES) -> dict[str, list[str]]:
    """Each module file name (without ``.py``) that more than one module has, with those modules; a
    package's ``__init__.py`` and a stage folder's own files (:data:`STAGE_FILES`) do not count."""
    where: dict[str, list[str]] = {}
    for path in _modules(root, packages):
        if path.name != "__init__.py" and not is_stage_file(root, path):
            where.setdefault(path.stem, []).append(module_name(root, path))
    return {stem: modules for stem, modules in sorted(where.items()) if len(modules) > 1}


def forbidden_imports(graph: dict[str, set[str]]) -> list[str]:
    return [
        f"{module} imports {name}"
        for module, names in sorted(graph.items())
        for name in sorted(names)
        if name.split(".")[0] in FORBIDDEN.get(layer_of(module), set())
    ]


@functools.cache
def _graph() -> dict[str, set[str]]:
    """The repository's graph, parsed once for all the tests that read it."""
    return import_graph(REPO)


def test_every_import_runs_in_the_intended_direction() -> None:
    offenders = against_the_direction(internal_edges(_graph()))
    assert not offenders, "imports against the layering (docs/architecture.md):\n" + "\n".join(offenders)


def test_no_files_import_in_a_circle() -> None:
    found = circles(internal_edges(_graph()))
    assert not found, f"files that import each other in a circle: {found}"


def test_no_layers_import_in_a_circle() -> None:
    layers: dict[str, set[str]] = {}
    for module, targets in internal_edges(_graph()).items():
        layers.setdefault(layer_of(module), set()).update(layer_of(t) for t in targets)
    assert not circles({a: bs - {a} for a, bs in layers.items()})


def test_the_allowed_directions_have_no_circle() -> None:
    assert not circles(MAY_IMPORT)


def test_plain_layers_import_no_dagster() -> None:
    offenders = forbidden_imports(_graph())
    assert not offenders, f"readers/, quality/ and warehouse/ stay plain Python: {offenders}"


def test_each_stages_work_beside_its_asset_imports_no_dagster() -> None:
    """In a stage's folder under assets/ only ``asset.py`` is Dagster's: the work over stored rows is plain
    Python, so that ``assay check`` and the benchmarks run it without loading Dagster."""
    offenders = {
        module: sorted(n for n in names if n.split(".")[0] == "dagster")
        for module, names in _graph().items()
        if module.startswith("assets.")
        and module.count(".") == 2
        and not module.endswith(".asset")
        and any(n.split(".")[0] == "dagster" for n in names)
    }
    assert not offenders, offenders


@pytest.mark.parametrize("package", [*PACKAGES, "tests", "benchmarks"])
def test_only_dagsters_public_api_is_imported(package: str) -> None:
    offenders = {
        module: sorted(n for n in names if n.startswith("dagster._"))
        for module, names in import_graph(REPO, [package]).items()
        if any(n.startswith("dagster._") for n in names)
    }
    assert not offenders, f"private Dagster modules imported: {offenders}"


def test_layout_is_as_promised() -> None:
    for name in ("pyproject.toml", "dagster.yaml", *PACKAGES, "tests"):
        assert (REPO / name).exists(), name
    for family in FAMILIES:
        assert (REPO / "readers" / family / "__init__.py").exists(), family


def test_the_architecture_page_draws_the_same_layers() -> None:
    page = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    architecture = page.split("\n## ", 1)[0]
    for layer in MAY_IMPORT:
        assert layer.split(".")[-1] in architecture, layer


def test_no_class_name_is_defined_twice() -> None:
    twice = classes_defined_twice(REPO)
    assert not twice, (
        "class names defined more than once (each name says what it holds, once):\n"
        + "\n".join(f"{name}: {', '.join(modules)}" for name, modules in twice.items())
    )


def test_no_module_file_name_is_used_twice() -> None:
    twice = module_names_used_twice(REPO)
    assert not twice, "module file names used more than once:\n" + "\n".join(
        f"{stem}.py: {', '.join(modules)}" for stem, modules in twice.items()
    )


# The checks themselves, on trees built here that break each rule.


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for directory in {p.parent for p in root.rglob("*.py")}:
        (directory / "__init__.py").touch()
    return root


def test_the_direction_check_finds_an_import_against_the_layers(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "readers/core/model.py": "X = 1\n",
            "readers/walk/inventory.py": "from readers.core.model import X\n",
            # Backwards, and hidden in a function as a local import.
            "readers/core/base.py": "def f():\n    from readers.walk.inventory import X\n    return X\n",
            "quality/judge.py": "from ..readers.pdf import facts\n",
            "readers/pdf/facts.py": "Y = 2\n",
        },
    )
    offenders = against_the_direction(internal_edges(import_graph(root, ["readers", "quality"])))
    assert any(o.startswith("readers.core.base -> readers.walk.inventory") for o in offenders), offenders
    assert any(o.startswith("quality.judge -> readers.pdf") for o in offenders), offenders
    assert not any(o.startswith("readers.walk.inventory") for o in offenders)


def test_the_circle_check_finds_a_circle_of_files(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "readers/mail/common.py": "from readers.mail.eml import parse\n",
            "readers/mail/eml.py": "from readers.mail.msg import read\nparse = 1\n",
            "readers/mail/msg.py": "def read():\n    from readers.mail.common import X\n",
            "readers/core/model.py": "",
        },
    )
    found = circles(internal_edges(import_graph(root, ["readers"])))
    assert found == [["readers.mail.common", "readers.mail.eml", "readers.mail.msg"]]


def test_the_plain_layers_check_finds_dagster(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"readers/pdf/mupdf.py": "import dagster\n", "quality/x.py": "import duckdb\n"})
    found = forbidden_imports(import_graph(root, ["readers", "quality"]))
    assert found == ["readers.pdf.mupdf imports dagster"]


# Stage names: each is written in its declaration, and read from the stage graph everywhere else.

#: String constants equal to a stage's name that are something else of the same name, by module: an
#: output's field or a file's prefix that happens to share the word.
NOT_STAGE_NAMES = {
    ("orchestration.checkfile", "ocr"): "a field of `assay check --json`: the OCR readings of the file",
    ("warehouse.duckdb_catalog", "catalog"): "the prefix of the catalog file's temporary name",
    ("quality.sanitizer", "sanitize"): "the activity a stopped document's message names",
}


def stage_folders(stages: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Each stage's folder (the package its asset is in), from (name, ``module:attribute`` of its asset)."""
    return {name: asset.partition(":")[0].rpartition(".")[0] for name, asset in stages}


def stage_names_written(
    root: Path, packages: Iterable[str], folders: dict[str, str], tables: set[str]
) -> list[str]:
    """Each string constant equal to a stage's name outside the declaration modules and the stage's own
    folder (``folders``: stage -> package), except a table's name given as a call's first argument or
    written in the warehouse (the vocabulary stage writes the ``vocabulary`` table), an enum member's
    value and :data:`NOT_STAGE_NAMES`."""
    found = []
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            module = module_name(root, path)
            if module.rpartition(".")[2] == "declaration":
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            exempt: set[int] = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and node.args:
                    first = node.args[0]
                    if isinstance(first, ast.Constant) and first.value in tables:
                        exempt.add(id(first))
                if package == "warehouse" and isinstance(node, ast.Constant) and node.value in tables:
                    exempt.add(id(node))  # the tables' own layer: a table of the same name
                if isinstance(node, ast.ClassDef) and any(
                    isinstance(b, ast.Name | ast.Attribute) and "Enum" in ast.unparse(b) for b in node.bases
                ):
                    exempt |= {id(n) for n in ast.walk(node) if isinstance(n, ast.Constant)}
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) or id(node) in exempt:
                    continue
                stage = node.value
                if stage not in folders or (module, stage) in NOT_STAGE_NAMES:
                    continue
                folder = folders[stage]
                if module == folder or module.startswith(f"{folder}."):
                    continue
                found.append(f"{module}:{node.lineno}: {stage!r}")
    return found


def test_no_stage_name_is_written_outside_its_declaration_and_its_folder() -> None:
    from assets.stages import graph
    from warehouse.schema import TABLES

    folders = stage_folders((s.name, s.asset or "") for s in graph().order)
    offenders = stage_names_written(REPO, PACKAGES, folders, set(TABLES))
    assert not offenders, (
        "stage names written outside their declaration (read them from assets.stages.graph()):\n"
        + "\n".join(offenders)
    )


def test_the_stage_name_check_finds_a_stage_named_outside_its_folder(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "assets/ocr/declaration.py": 'STAGE = ("ocr", "after", "verdicts")\n',
            "assets/ocr/asset.py": 'progress.stage("ocr")\n',
            "assets/planner.py": 'second = by_name["verdicts"]\nrows = wh.rows("vocabulary", version)\n',
            "orchestration/live.py": 'UNITS = {"ocr": "pages"}\n',
            "quality/records.py": 'class Source(StrEnum):\n    OCR = "ocr"\n',
        },
    )
    folders = {"ocr": "assets.ocr", "verdicts": "assets.verdicts", "vocabulary": "assets.vocabulary"}
    found = stage_names_written(root, ["assets", "orchestration", "quality"], folders, {"vocabulary"})
    assert found == ["assets.planner:1: 'verdicts'", "orchestration.live:1: 'ocr'"]


def test_the_class_check_finds_a_class_defined_twice(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "quality/facts.py": "class Outcome:\n    pass\n\n\nclass Rate:\n    pass\n",
            "assets/extract/shard.py": "import enum\n\n\nclass Outcome(enum.StrEnum):\n    READ = 'read'\n",
            # Private, and nested in a function: still a second definition of the name.
            "readers/pdf/mupdf.py": "def f():\n    class _Line:\n        pass\n    return _Line\n",
            "quality/furniture.py": "class _Line:\n    pass\n",
            "warehouse/store.py": "class Warehouse:\n    class Rate:\n        pass\n",
        },
    )
    assert classes_defined_twice(root) == {
        "Outcome": ["assets.extract.shard", "quality.facts"],
        "Rate": ["quality.facts", "warehouse.store"],
        "_Line": ["quality.furniture", "readers.pdf.mupdf"],
    }


def test_the_module_name_check_finds_a_name_used_twice(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "quality/facts.py": "",
            "orchestration/facts.py": "",
            "readers/pdf/facts.py": "",
            "assets/ocr/shard.py": "",
            "assets/extract/shard.py": "",
            # A stage folder's own files, one in each stage: not a name used twice.
            "assets/ocr/asset.py": "",
            "assets/extract/asset.py": "",
            "assets/ocr/records.py": "",
            "assets/chunk/records.py": "",
            "quality/judge.py": "",
        },
    )
    assert module_names_used_twice(root) == {
        "facts": ["orchestration.facts", "quality.facts", "readers.pdf.facts"],
        "shard": ["assets.extract.shard", "assets.ocr.shard"],
    }
