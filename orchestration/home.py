"""The assay home: one directory holding the Parquet tables, the catalog and the Dagster instance."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from orchestration.settings import home_from_env
from readers.errors import ConfigError
from warehouse import Warehouse

_TEMPLATE = Path(__file__).resolve().parents[1] / "dagster.yaml"


@dataclass(frozen=True, slots=True)
class Home:
    path: Path

    @classmethod
    def resolve(cls, given: str | os.PathLike[str] | None) -> Home:
        """``--home`` if given, else ``ASSAY_HOME``, else ``.assay`` in the working directory."""
        return cls(Path(given if given else home_from_env()).expanduser().absolute())

    @property
    def dagster_home(self) -> Path:
        return self.path / "dagster"

    @property
    def warehouse(self) -> Warehouse:
        return Warehouse(self.path / "warehouse")

    @property
    def demo_corpus(self) -> Path:
        return self.path / "demo-corpus"

    def prepare(self) -> None:
        """Create the directories and the Dagster instance file, and point the environment at them.

        The instance file is the repository's ``dagster.yaml`` (SQLite under the home), or the file
        ``ASSAY_DAGSTER_YAML`` names (the production one, ``deploy/dagster.postgres.yaml``), so that
        ``assay run`` records its runs where the daemon and the web UI look.
        """
        self.dagster_home.mkdir(parents=True, exist_ok=True)
        (self.dagster_home / "storage").mkdir(exist_ok=True)
        template = Path(os.environ.get("ASSAY_DAGSTER_YAML") or _TEMPLATE)
        if not template.is_file():
            raise ConfigError(f"ASSAY_DAGSTER_YAML names {template}, which is not a file")
        target = self.dagster_home / "dagster.yaml"
        if not target.exists() or target.read_bytes() != template.read_bytes():
            shutil.copyfile(template, target)
        os.environ["DAGSTER_HOME"] = str(self.dagster_home)
        os.environ["ASSAY_HOME"] = str(self.path)
