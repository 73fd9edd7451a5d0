"""The least a Dagster run costs a new process, whatever the run does: the floor under `assay run`.

    .venv/bin/python benchmarks/dagster_floor.py HOME

Imports Dagster, makes a fresh instance in ``HOME`` as `assay run` makes its home's (SQLite storage, no
telemetry, no compute log capture), and executes one in-process run of one asset over one of 256 static
partitions whose function does nothing.
`benchmarks/record.py` section 6 times it as a new process beside `assay run` and `assay check`: no
`assay run` can take less, since the issue's design runs every stage as Dagster's own run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import dagster as dg

INSTANCE_YAML = """\
telemetry:
  enabled: false
compute_logs:
  module: dagster._core.storage.noop_compute_log_manager
  class: NoOpComputeLogManager
"""
KEYS = dg.StaticPartitionsDefinition([f"{i:02x}" for i in range(256)])


@dg.asset(partitions_def=KEYS)
def nothing() -> None:
    """Does nothing: the run's cost is Dagster's alone."""


def main(home: Path) -> int:
    home.mkdir(parents=True, exist_ok=True)
    (home / "dagster.yaml").write_text(INSTANCE_YAML, encoding="utf-8")
    with dg.DagsterInstance.from_config(str(home)) as instance:
        result = dg.materialize([nothing], instance=instance, partition_key="00")
    return 0 if result.success else 1


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
