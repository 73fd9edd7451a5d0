"""The assay home: one directory holding the Parquet tables, the catalog and the Dagster instance."""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path

from assets.settings import home_from_env
from orchestration.faults import fault, fault_of
from orchestration.run_instance import RUN_INSTANCE_YAML, run_instance_yaml
from readers.core.atomic import written_whole
from readers.core.errors import ConfigError
from warehouse import Warehouse

_TEMPLATE = Path(__file__).resolve().parents[1] / "dagster.yaml"


def _write_if_changed(path: Path, data: bytes) -> None:
    """``data`` at ``path``, written to a temporary and renamed into place, unless it is there already."""
    if not path.exists() or path.read_bytes() != data:
        with written_whole(path) as temporary:
            temporary.write_bytes(data)


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

    def require_directory(self) -> None:
        """Raise an :class:`EnvironmentFault` when the home, or a folder above it, is a file (commands
        that only read the home call this; :meth:`prepare` does it too)."""
        for candidate in (self.path, *self.path.parents):
            if candidate.exists():
                if not candidate.is_dir():
                    raise fault(errno.ENOTDIR, candidate)
                return

    def prepare(self) -> None:
        """Create the directories and the Dagster instance file, and point the environment at them.

        The instance file is the repository's ``dagster.yaml`` (SQLite under the home), or the file
        ``ASSAY_DAGSTER_YAML`` names (the production one, ``deploy/dagster.postgres.yaml``), so that
        ``assay run`` records its runs where the daemon and the web UI look. A home that is a file, on a
        read-only disk, not writable or on a full disk is an :class:`EnvironmentFault` here, before
        anything runs: a byte is written to it and removed.
        """
        self.require_directory()
        template = Path(os.environ.get("ASSAY_DAGSTER_YAML") or _TEMPLATE)
        if not template.is_file():
            raise ConfigError(f"ASSAY_DAGSTER_YAML names {template}, which is not a file")
        try:
            self.dagster_home.mkdir(parents=True, exist_ok=True)
            (self.dagster_home / "storage").mkdir(exist_ok=True)
            self._probe_write()
            instance = template.read_bytes()
            _write_if_changed(self.dagster_home / "dagster.yaml", instance)
            _write_if_changed(self.dagster_home / RUN_INSTANCE_YAML, run_instance_yaml(instance))
        except OSError as exc:
            raise (fault_of(exc) or exc) from exc
        os.environ["DAGSTER_HOME"] = str(self.dagster_home)
        os.environ["ASSAY_HOME"] = str(self.path)
        # matplotlib keeps its list of the system's fonts in the user's cache folder unless told where:
        # the home's, so that a run writes nothing outside its home (the quality report's plots).
        os.environ.setdefault("MPLCONFIGDIR", str(self.path / "cache" / "matplotlib"))

    def _probe_write(self) -> None:
        """Write one byte under the home and remove it: a directory that exists on a read-only or full
        disk (or that this user may not write) lets ``mkdir(exist_ok=True)`` pass silently."""
        probe = self.path / f".write-probe-{os.getpid()}.tmp"
        try:
            fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.write(fd, b"\0")
                os.fsync(fd)
            finally:
                os.close(fd)
        finally:
            probe.unlink(missing_ok=True)
