"""The Dagster instance file and the run config of the runs ``assay run`` executes itself.

Kept apart from ``orchestration/home.py`` (which loads the warehouse) so that whatever starts such a run,
``benchmarks/dagster_floor.py`` included, sets the instance up the same way for the price of a YAML
import.
"""

from __future__ import annotations

import yaml

#: The instance file of the runs ``assay run`` executes itself: the home's ``dagster.yaml`` with Dagster's
#: compute log capture switched off. Dagster's default capture tails each step's output through a
#: ``tail -F`` and a watcher interpreter per stream, which Ctrl-C (sent to the terminal's whole process
#: group) makes print a KeyboardInterrupt traceback each, for output (the progress bar) the web UI does
#: not need. Runs the daemon or the UI launch read ``dagster.yaml`` and keep the capture.
RUN_INSTANCE_YAML = "assay-run.yaml"
NO_COMPUTE_LOGS = {
    "module": "dagster._core.storage.noop_compute_log_manager",
    "class": "NoOpComputeLogManager",
}
#: The run config of those runs: Dagster's console log quiet (the progress bars and the summary say what
#: happened; the event log keeps everything).
QUIET_LOGS = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


def run_instance_yaml(template: bytes) -> bytes:
    """The instance file ``template`` with its compute log manager (if any) replaced by the no-op one."""
    config = yaml.safe_load(template) or {}
    config["compute_logs"] = NO_COMPUTE_LOGS
    heading = "# Written by assay from dagster.yaml: `assay run`'s own runs, without compute log capture.\n"
    return (heading + yaml.safe_dump(config, sort_keys=False)).encode("utf-8")
